// The Protobuf representation, checked from the outside: answers are decoded with an
// independent, hand-written description of the Kubernetes messages (fixtures/k8s-subset.proto)
// loaded by protobufjs, never with the server's own encoder schema.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeProtobuf,
  decodeProtobufWatchEvent,
  encodeProtobuf,
  encodeProtobufWatchEvent,
  hasProtobuf,
  PREFIX,
  splitWatchFrames,
} from '../src/content/protobuf.ts';
import { ALL_VERBS } from '../src/registry/kinds/common.ts';
import type { ResourceDef } from '../src/registry/types.ts';
import { makeNamespace, startServer, type TestServer, uniqueName } from './helpers.ts';

const PROTO = 'application/vnd.orch.protobuf';
const root = protobuf.loadSync(resolve(dirname(fileURLToPath(import.meta.url)), 'fixtures/k8s-subset.proto'));
const T = (name: string) => root.lookupType(`subset.${name}`);
const asObject = (name: string, msg: protobuf.Message) =>
  T(name).toObject(msg, { longs: Number, bytes: String, defaults: false }) as any;

/** The 4-byte prefix, then Unknown: returns typeMeta and the raw object bytes. */
function unwrap(body: Buffer): {
  typeMeta: { apiVersion?: string; kind?: string };
  raw: Buffer;
  unknown: any;
} {
  expect([...body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
  const u = T('Unknown').decode(body.subarray(4)) as any;
  return {
    typeMeta: { apiVersion: u.typeMeta?.apiVersion, kind: u.typeMeta?.kind },
    raw: Buffer.from(u.raw ?? []),
    unknown: T('Unknown').toObject(u, { defaults: false }),
  };
}

/** Decodes an envelope as `message` (checking the envelope's typeMeta). */
function decodeAs(body: Buffer, message: string, apiVersion: string, kind: string): any {
  const { typeMeta, raw } = unwrap(body);
  expect(typeMeta).toEqual({ apiVersion, kind });
  return asObject(message, T(message).decode(raw));
}

/** Builds an envelope with the independent schema. */
function wrap(apiVersion: string, kind: string, message: string, value: Record<string, unknown>): Buffer {
  const type = T(message);
  const err = type.verify(value);
  if (err) throw new Error(`${message}: ${err}`);
  const raw = type.encode(type.fromObject(value)).finish();
  const unknown = T('Unknown')
    .encode(T('Unknown').fromObject({ typeMeta: { apiVersion, kind }, raw }))
    .finish();
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), unknown]);
}

const TS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/;
/** RFC 3339 (UTC) -> {seconds, nanos} as a Timestamp message holds it. */
function ts(text: string): { seconds: number; nanos: number } {
  const m = TS.exec(text);
  if (!m) throw new Error(`not a UTC timestamp: ${text}`);
  return { seconds: Date.parse(`${m[1]}Z`) / 1000, nanos: m[2] ? Number(m[2].padEnd(9, '0')) : 0 };
}

/**
 * Every field of the JSON form is in the Protobuf form with the same value: strings, numbers,
 * booleans as such, timestamps as {seconds, nanos}, bytes as base64, FieldsV1 as JSON text.
 */
function expectCovers(json: unknown, pb: any, path: string, isObject = false): void {
  if (json === null || json === undefined) return;
  if (path.endsWith('.fieldsV1')) {
    expect(JSON.parse(Buffer.from(pb?.Raw ?? '', 'base64').toString('utf8')), path).toEqual(json);
    return;
  }
  if (typeof json === 'string' && TS.test(json) && pb && typeof pb === 'object') {
    const t = ts(json);
    expect({ seconds: pb.seconds ?? 0, nanos: pb.nanos ?? 0 }, path).toEqual(t);
    return;
  }
  if (Array.isArray(json)) {
    expect(pb ?? [], path).toHaveLength(json.length);
    json.forEach((x, i) => {
      expectCovers(x, pb[i], `${path}[${i}]`, path.endsWith('.items')); // list items are objects
    });
    return;
  }
  if (typeof json === 'object') {
    for (const [k, v] of Object.entries(json as Record<string, unknown>)) {
      if (isObject && (k === 'apiVersion' || k === 'kind')) continue; // carried by the envelope
      if (v && typeof v === 'object' && Object.keys(v).length === 0) continue; // {} and [] are absent on the wire
      expectCovers(v, pb?.[k], `${path}.${k}`);
    }
    return;
  }
  expect(pb, path).toEqual(json);
}

const b64 = (s: string | number[]) => Buffer.from(s as string).toString('base64');

// ------------------------------------------------------------------ the kinds under test

interface KindCase {
  apiVersion: string;
  kind: string;
  message: string;
  /** collection path inside a namespace (or cluster-wide for Namespace) */
  path: (ns: string) => string;
  /** a valid object named `name` in namespace `ns` (JSON form) */
  make: (ns: string, name: string) => Record<string, any>;
  /** checks by explicit field reads on the independently decoded message */
  spot: (pb: any, json: any) => void;
}

const KINDS: KindCase[] = [
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    message: 'Namespace',
    path: () => '/api/v1/namespaces',
    make: (_ns, name) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { team: 'pb' } },
    }),
    spot: (pb, json) => {
      expect(pb.spec.finalizers).toEqual(json.spec.finalizers);
      expect(pb.status.phase).toBe('Active');
      expect(pb.metadata.labels.team).toBe('pb');
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    message: 'ConfigMap',
    path: (ns) => `/api/v1/namespaces/${ns}/configmaps`,
    make: (_ns, name) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, labels: { app: 'pb', tier: 'x' }, annotations: { note: 'hi' } },
      data: { a: '1', b: 'two', 'c.txt': 'line\nline' },
      binaryData: { bin: b64([0, 1, 2, 255]) },
    }),
    spot: (pb) => {
      expect(pb.data).toEqual({ a: '1', b: 'two', 'c.txt': 'line\nline' });
      expect([...Buffer.from(pb.binaryData.bin, 'base64')]).toEqual([0, 1, 2, 255]);
      expect(pb.metadata.annotations).toEqual({ note: 'hi' });
      expect(pb.immutable).toBeUndefined(); // a Go pointer left unset is not written
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    message: 'Secret',
    path: (ns) => `/api/v1/namespaces/${ns}/secrets`,
    make: (_ns, name) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name },
      type: 'Opaque',
      data: { token: b64('s3cr3t\u0000!'), empty: '' },
      immutable: true,
    }),
    spot: (pb) => {
      expect(Buffer.from(pb.data.token, 'base64').toString('utf8')).toBe('s3cr3t\u0000!');
      expect(pb.data.empty ?? '').toBe('');
      expect(pb.type).toBe('Opaque');
      expect(pb.immutable).toBe(true);
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    message: 'ServiceAccount',
    path: (ns) => `/api/v1/namespaces/${ns}/serviceaccounts`,
    make: (_ns, name) => ({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name },
      secrets: [{ name: 'tok' }, { name: 'other' }],
      imagePullSecrets: [{ name: 'registry' }],
      automountServiceAccountToken: false,
    }),
    spot: (pb) => {
      expect(pb.secrets.map((s: any) => s.name)).toEqual(['tok', 'other']);
      expect(pb.imagePullSecrets).toEqual([{ name: 'registry' }]);
      expect(pb.automountServiceAccountToken).toBe(false); // a pointer set to false is written
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Event',
    message: 'Event',
    path: (ns) => `/api/v1/namespaces/${ns}/events`,
    make: (ns, name) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: ns },
      involvedObject: {
        kind: 'ConfigMap',
        namespace: ns,
        name: 'cm1',
        uid: '0b6f5f0a-1111-4222-8333-444455556666',
        apiVersion: 'v1',
        resourceVersion: '12',
        fieldPath: 'data',
      },
      reason: 'Created',
      message: 'the config map was created',
      source: { component: 'tester', host: 'node-1' },
      firstTimestamp: '2024-05-06T07:08:09Z',
      lastTimestamp: '2024-05-06T07:08:10Z',
      count: 3,
      type: 'Normal',
      eventTime: '2024-05-06T07:08:09.123456Z',
      series: { count: 2, lastObservedTime: '2024-05-06T07:08:10.654321Z' },
      action: 'Create',
      related: { kind: 'ConfigMap', namespace: ns, name: 'cm2', apiVersion: 'v1' },
      reportingComponent: 'orch.io/tester',
      reportingInstance: 'tester-1',
    }),
    spot: (pb, json) => {
      expect(pb.involvedObject.fieldPath).toBe('data');
      expect(pb.source).toEqual({ component: 'tester', host: 'node-1' });
      expect(pb.firstTimestamp).toEqual({ seconds: ts('2024-05-06T07:08:09Z').seconds, nanos: 0 });
      expect(pb.eventTime).toEqual({ seconds: ts('2024-05-06T07:08:09Z').seconds, nanos: 123456000 });
      expect(pb.series.count).toBe(2);
      expect(pb.series.lastObservedTime.nanos).toBe(654321000);
      expect(pb.count).toBe(3);
      expect(pb.related.name).toBe('cm2');
      expect(pb.reportingComponent).toBe(json.reportingComponent);
      expect(pb.reportingInstance).toBe('tester-1');
    },
  },
  {
    apiVersion: 'events.orch.io/v1',
    kind: 'Event',
    message: 'EventsV1Event',
    path: (ns) => `/apis/events.orch.io/v1/namespaces/${ns}/events`,
    make: (ns, name) => ({
      apiVersion: 'events.orch.io/v1',
      kind: 'Event',
      metadata: { name, namespace: ns },
      eventTime: '2024-05-06T07:08:09.000001Z',
      series: { count: 4, lastObservedTime: '2024-05-06T07:09:00.500000Z' },
      reportingController: 'orch.io/tester',
      reportingInstance: 'tester-2',
      action: 'Update',
      reason: 'Changed',
      regarding: { kind: 'ConfigMap', namespace: ns, name: 'cm1', apiVersion: 'v1' },
      related: { kind: 'Secret', namespace: ns, name: 's1', apiVersion: 'v1' },
      note: 'something changed',
      type: 'Warning',
    }),
    spot: (pb) => {
      expect(pb.eventTime.nanos).toBe(1000);
      expect(pb.series).toEqual({
        count: 4,
        lastObservedTime: { seconds: ts('2024-05-06T07:09:00Z').seconds, nanos: 500000000 },
      });
      expect(pb.regarding.name).toBe('cm1');
      expect(pb.note).toBe('something changed');
      expect(pb.reportingController).toBe('orch.io/tester');
    },
  },
  {
    apiVersion: 'coordination.orch.io/v1',
    kind: 'Lease',
    message: 'Lease',
    path: (ns) => `/apis/coordination.orch.io/v1/namespaces/${ns}/leases`,
    make: (_ns, name) => ({
      apiVersion: 'coordination.orch.io/v1',
      kind: 'Lease',
      metadata: { name },
      spec: {
        holderIdentity: 'node-a',
        leaseDurationSeconds: 40,
        acquireTime: '2024-05-06T07:08:09.000001Z',
        renewTime: '2024-05-06T07:08:19.250000Z',
        leaseTransitions: 0,
      },
    }),
    spot: (pb) => {
      expect(pb.spec.holderIdentity).toBe('node-a');
      expect(pb.spec.leaseDurationSeconds).toBe(40);
      expect(pb.spec.acquireTime.nanos).toBe(1000);
      expect(pb.spec.renewTime).toEqual({ seconds: ts('2024-05-06T07:08:19Z').seconds, nanos: 250000000 });
      expect(pb.spec.leaseTransitions).toBe(0); // pointer set to 0: written
    },
  },
];

// ------------------------------------------------------------------ encoder, no server

describe('Protobuf encoding (module)', () => {
  it('lists every kind, its list kind and Status', () => {
    for (const k of [
      'v1/Status',
      'v1/Namespace',
      'v1/NamespaceList',
      'v1/ConfigMap',
      'v1/ConfigMapList',
      'v1/Secret',
      'v1/SecretList',
      'v1/ServiceAccount',
      'v1/ServiceAccountList',
      'v1/Event',
      'v1/EventList',
      'events.orch.io/v1/Event',
      'events.orch.io/v1/EventList',
      'coordination.orch.io/v1/Lease',
      'coordination.orch.io/v1/LeaseList',
    ])
      expect(hasProtobuf(k.slice(0, k.lastIndexOf('/')), k.slice(k.lastIndexOf('/') + 1)), k).toBe(true);
    expect(hasProtobuf('v1', 'ConfigMap')).toBe(true);
    expect(hasProtobuf('example.orch.io/v1', 'Widget')).toBe(false);
    // every built-in kind, as 1.28 serves them (generated messages)
    expect(hasProtobuf('v1', 'Pod')).toBe(true);
    expect(hasProtobuf('apps/v1', 'DeploymentList')).toBe(true);
    expect(hasProtobuf('apiextensions.orch.io/v1', 'CustomResourceDefinition')).toBe(true);
    expect(hasProtobuf('v1', 'DeleteOptions')).toBe(false);
  });

  it('writes the prefix, then Unknown with typeMeta and raw', () => {
    const body = encodeProtobuf({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x' },
      data: { k: 'v' },
    });
    expect([...body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(PREFIX.equals(body.subarray(0, 4))).toBe(true);
    const { typeMeta, raw, unknown } = unwrap(body);
    expect(typeMeta).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
    // Go writes the (empty) contentEncoding and contentType strings: 0x1a 0x00 0x22 0x00
    expect(unknown.contentEncoding).toBe('');
    expect(unknown.contentType).toBe('');
    expect([...body.subarray(-4)]).toEqual([0x1a, 0x00, 0x22, 0x00]);
    const cm = asObject('ConfigMap', T('ConfigMap').decode(raw));
    expect(cm.metadata.name).toBe('x');
    expect(cm.data).toEqual({ k: 'v' });
  });

  it('follows Go marshalling: value fields always written, pointers only when set, sorted maps', () => {
    const body = encodeProtobuf({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'q', labels: { b: '2', a: '1', '10': 'x', '9': 'y' } },
    });
    const raw = unwrap(body).raw;
    const cm = T('ConfigMap').decode(raw) as any;
    // ObjectMeta strings and generation are Go values: present even when empty
    expect(Object.hasOwn(cm.metadata, 'generateName')).toBe(true);
    expect(Object.hasOwn(cm.metadata, 'namespace')).toBe(true);
    expect(Object.hasOwn(cm.metadata, 'generation')).toBe(true);
    // creationTimestamp (a Go value) is an empty Timestamp when zero
    expect(Object.hasOwn(cm.metadata, 'creationTimestamp')).toBe(true);
    expect(Object.hasOwn(cm.metadata.creationTimestamp, 'seconds')).toBe(false);
    // pointers: deletionTimestamp, deletionGracePeriodSeconds, immutable
    expect(Object.hasOwn(cm.metadata, 'deletionTimestamp')).toBe(false);
    expect(Object.hasOwn(cm.metadata, 'deletionGracePeriodSeconds')).toBe(false);
    expect(Object.hasOwn(cm, 'immutable')).toBe(false);
    // map entries in Go's byte order of keys
    const keys: string[] = [];
    const r = protobuf.Reader.create(raw);
    r.uint32();
    const meta = protobuf.Reader.create(r.bytes());
    while (meta.pos < meta.len) {
      const t = meta.uint32();
      if (t >>> 3 === 11) keys.push(decodeEntryKey(meta.bytes()));
      else meta.skipType(t & 7);
    }
    expect(keys).toEqual(['10', '9', 'a', 'b']);
  });

  it('Time keeps whole seconds, MicroTime keeps microseconds', () => {
    const body = encodeProtobuf({
      apiVersion: 'coordination.orch.io/v1',
      kind: 'Lease',
      metadata: { name: 'l', creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: { renewTime: '2024-01-02T03:04:05.123456Z' },
    });
    const l = decodeAs(body, 'Lease', 'coordination.orch.io/v1', 'Lease');
    expect(l.metadata.creationTimestamp).toEqual({ seconds: 1704164645, nanos: 0 });
    expect(l.spec.renewTime).toEqual({ seconds: 1704164645, nanos: 123456000 });
    expect(l.spec.holderIdentity).toBeUndefined();
    expect(decodeProtobuf(body)).toMatchObject({
      metadata: { creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: { renewTime: '2024-01-02T03:04:05.123456Z' },
    });
  });

  // a rich object per kind: everything the encoder writes is read back by the independent
  // schema, re-encoded by it, and decodes to the same JSON form (a wrong field number on
  // either side would drop the field)
  const rich: Record<string, Record<string, any>> = {
    meta: {
      name: 'rich',
      generateName: 'ri-',
      namespace: 'ns1',
      uid: 'b7c1e2d3-0000-4000-8000-000000000001',
      resourceVersion: '42',
      generation: 7,
      creationTimestamp: '2023-12-31T23:59:59Z',
      deletionTimestamp: '2024-01-01T00:00:30Z',
      deletionGracePeriodSeconds: 30,
      labels: { a: '1', 'orch.io/x': 'y' },
      annotations: { long: 'x'.repeat(300) },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'rs',
          uid: 'b7c1e2d3-0000-4000-8000-000000000002',
          controller: true,
          blockOwnerDeletion: false,
        },
      ],
      finalizers: ['orch.io/one', 'two'],
      managedFields: [
        {
          manager: 'kubectl',
          operation: 'Apply',
          apiVersion: 'v1',
          time: '2024-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:a': {}, '.': {} } },
        },
        { manager: 'ctl', operation: 'Update', apiVersion: 'v1', subresource: 'status' },
      ],
    },
  };
  const richObjects: Record<string, any>[] = [
    ...KINDS.map((k) => ({ ...k.make('ns1', 'rich'), metadata: rich.meta })),
    {
      apiVersion: 'events.orch.io/v1',
      kind: 'Event',
      metadata: { name: 'old-style' },
      eventTime: '2024-05-06T07:08:09.000001Z',
      regarding: { name: 'x' },
      deprecatedSource: { component: 'c', host: 'h' },
      deprecatedFirstTimestamp: '2024-05-06T07:08:09Z',
      deprecatedLastTimestamp: '2024-05-06T07:08:19Z',
      deprecatedCount: 5,
    },
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'terminating' },
      spec: { finalizers: ['orch'] },
      status: {
        phase: 'Terminating',
        conditions: [
          {
            type: 'NamespaceDeletionContentFailure',
            status: 'False',
            lastTransitionTime: '2024-02-03T04:05:06Z',
            reason: 'ContentDeleted',
            message: 'All content successfully deleted',
          },
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message: 'ConfigMap "x" is invalid: [data[a b]: Invalid value, data[c d]: Invalid value]',
      reason: 'Invalid',
      details: {
        name: 'x',
        kind: 'ConfigMap',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: "a b"', field: 'data[a b]' },
          { reason: 'FieldValueInvalid', message: 'Invalid value: "c d"', field: 'data[c d]' },
        ],
        retryAfterSeconds: 3,
      },
      code: 422,
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '99', continue: 'tok', remainingItemCount: 12 },
      items: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: 'b' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two' }, immutable: false },
      ],
    },
  ];
  const messageOf = (o: Record<string, any>) =>
    o.kind === 'Status'
      ? 'Status'
      : o.kind === 'ConfigMapList'
        ? 'ConfigMapList'
        : KINDS.find((k) => k.apiVersion === o.apiVersion && k.kind === o.kind)!.message;

  for (const obj of richObjects) {
    it(`round-trips every field of ${obj.apiVersion}/${obj.kind} (${obj.metadata.name ?? obj.reason})`, () => {
      const body = encodeProtobuf(obj);
      const message = messageOf(obj);
      const pb = decodeAs(body, message, obj.apiVersion, obj.kind);
      expectCovers(obj, pb, obj.kind, true);
      const reencoded = wrap(obj.apiVersion, obj.kind, message, pb);
      expect(decodeProtobuf(reencoded)).toEqual(obj);
      expect(decodeProtobuf(body)).toEqual(obj);
    });
  }

  it('rejects a body without the prefix, an unknown kind, a truncated body', () => {
    const body = encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    expect(() => decodeProtobuf(body.subarray(4))).toThrow(/prefix/);
    expect(() => decodeProtobuf(Buffer.from('{"kind":"ConfigMap"}'))).toThrow(/prefix/);
    expect(() => decodeProtobuf(wrap('example.orch.io/v1', 'Widget', 'ConfigMap', {}))).toThrow(
      /no Protobuf/,
    );
    expect(() => decodeProtobuf(body.subarray(0, body.length - 9))).toThrow();
    expect(() => encodeProtobuf({ apiVersion: 'example.orch.io/v1', kind: 'Widget', metadata: {} })).toThrow(
      /no Protobuf/,
    );
  });

  it('frames a watch event as Kubernetes does: length, then an unprefixed WatchEvent', () => {
    const frame = encodeProtobufWatchEvent('MODIFIED', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'w' },
    });
    const len = frame.readUInt32BE(0);
    expect(len).toBe(frame.length - 4);
    const msg = frame.subarray(4);
    expect(msg.subarray(0, 4).equals(PREFIX)).toBe(false);
    const ev = T('WatchEvent').decode(msg) as any;
    expect(ev.type).toBe('MODIFIED');
    expect(decodeAs(Buffer.from(ev.object.raw), 'ConfigMap', 'v1', 'ConfigMap').metadata.name).toBe('w');
    // the module's own stream helpers agree
    const two = Buffer.concat([frame, frame.subarray(0, 6)]);
    const { frames, rest } = splitWatchFrames(two);
    expect(frames).toHaveLength(1);
    expect(rest).toHaveLength(6);
    expect(decodeProtobufWatchEvent(frames[0]!)).toEqual({
      type: 'MODIFIED',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w' } },
    });
  });
});

function decodeEntryKey(entry: Uint8Array): string {
  const r = protobuf.Reader.create(entry);
  while (r.pos < r.len) {
    const t = r.uint32();
    if (t >>> 3 === 1) return r.string();
    r.skipType(t & 7);
  }
  return '';
}

// ------------------------------------------------------------------ over HTTP

function minimalDef(group: string, kind: string, plural: string, custom = false): ResourceDef {
  return {
    group,
    versions: ['v1'],
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: [],
    custom,
    protobuf: !custom,
    strategy: { allowUnconditionalUpdate: true },
  };
}

describe('Protobuf over HTTP', () => {
  let srv: TestServer;
  let ns: string;
  const json: Record<string, any> = {};

  beforeAll(async () => {
    srv = await startServer();
    const reg = srv.server.registry;
    // kinds this test needs, when the server does not serve them (yet)
    const wanted: [string, string, string][] = [
      ['', 'Secret', 'secrets'],
      ['', 'ServiceAccount', 'serviceaccounts'],
      ['', 'Event', 'events'],
      ['events.orch.io', 'Event', 'events'],
      ['coordination.orch.io', 'Lease', 'leases'],
    ];
    for (const [g, k, p] of wanted) if (!reg.byResource(g, p)) reg.add(minimalDef(g, k, p));
    reg.add(minimalDef('example.orch.io', 'Widget', 'widgets', true));
    ns = await makeNamespace(srv, 'pb');
  });
  afterAll(async () => {
    await srv?.close();
  });

  const accept = (a: string) => ({ accept: a });

  for (const k of KINDS) {
    describe(`${k.apiVersion}/${k.kind}`, () => {
      // one name per kind and API (core and events.orch.io events share one storage)
      const slug = `${k.kind.toLowerCase()}${k.apiVersion.startsWith('events.') ? '-events-v1' : ''}`;
      const name = k.kind === 'Namespace' ? uniqueName('pbns') : `pb-${slug}`;
      const itemPath = (n: string) => `${k.path(ns)}/${n}`;

      it('get answers the object in Protobuf', async () => {
        const c = await srv.req('POST', k.path(ns), k.make(ns, name));
        expect(c.status, c.text).toBe(201);
        const j = await srv.req('GET', itemPath(name));
        expect(j.status).toBe(200);
        json[k.apiVersion + k.kind] = j.json;
        const r = await srv.req('GET', itemPath(name), undefined, accept(PROTO));
        expect(r.status).toBe(200);
        expect(r.headers['content-type']).toBe(PROTO);
        const pb = decodeAs(r.body, k.message, k.apiVersion, k.kind);
        expect(pb.metadata.name).toBe(name);
        expect(pb.metadata.uid).toBe(j.json.metadata.uid);
        expect(pb.metadata.resourceVersion).toBe(j.json.metadata.resourceVersion);
        expect(pb.metadata.creationTimestamp).toEqual(ts(j.json.metadata.creationTimestamp));
        expectCovers(j.json, pb, k.kind, true);
        k.spot(pb, j.json);
      });

      it('list answers the list kind in Protobuf', async () => {
        const r = await srv.req('GET', k.path(ns), undefined, accept(PROTO));
        expect(r.status).toBe(200);
        expect(r.headers['content-type']).toBe(PROTO);
        const list = decodeAs(r.body, `${k.message}List`, k.apiVersion, `${k.kind}List`);
        expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
        const item = (list.items ?? []).find((i: any) => i.metadata.name === name);
        expect(item).toBeDefined();
        expectCovers(json[k.apiVersion + k.kind], item, k.kind, true);
      });

      it('accepts a Protobuf body (and answers JSON when asked)', async () => {
        const n = k.kind === 'Namespace' ? uniqueName('pbrt') : `rt-${slug}`;
        const obj = k.make(ns, n);
        const value = toIndependent(obj);
        const r = await srv.req('POST', k.path(ns), wrap(k.apiVersion, k.kind, k.message, value), {
          'content-type': PROTO,
          accept: 'application/json',
        });
        expect(r.status, r.text).toBe(201);
        expect(r.headers['content-type']).toBe('application/json');
        const back = (await srv.req('GET', itemPath(n))).json;
        const { metadata: sent, ...rest } = obj;
        expect(back).toMatchObject(rest);
        expect(back.metadata).toMatchObject(sent);
      });
    });
  }

  it('updates from a Protobuf body and answers Protobuf', async () => {
    const cur = (await srv.req('GET', `/api/v1/namespaces/${ns}/configmaps/pb-configmap`)).json;
    const value = toIndependent({ ...cur, data: { changed: 'yes' }, binaryData: undefined });
    const r = await srv.req(
      'PUT',
      `/api/v1/namespaces/${ns}/configmaps/pb-configmap`,
      wrap('v1', 'ConfigMap', 'ConfigMap', value),
      { 'content-type': PROTO, accept: PROTO },
    );
    expect(r.status, r.text).toBe(200);
    const pb = decodeAs(r.body, 'ConfigMap', 'v1', 'ConfigMap');
    expect(pb.data).toEqual({ changed: 'yes' });
    expect(Number(pb.metadata.resourceVersion)).toBeGreaterThan(Number(cur.metadata.resourceVersion));
  });

  it('deletes with a Protobuf DeleteOptions body', async () => {
    const c = await srv.req('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'to-delete' },
    });
    expect(c.status).toBe(201);
    const opts = (uid: string) => wrap('v1', 'DeleteOptions', 'DeleteOptions', { preconditions: { uid } });
    const wrong = await srv.req('DELETE', `/api/v1/namespaces/${ns}/configmaps/to-delete`, opts('nope'), {
      'content-type': PROTO,
      accept: PROTO,
    });
    expect(wrong.status).toBe(409);
    expect(decodeAs(wrong.body, 'Status', 'v1', 'Status').reason).toBe('Conflict');
    const ok = await srv.req(
      'DELETE',
      `/api/v1/namespaces/${ns}/configmaps/to-delete`,
      opts(c.json.metadata.uid),
      {
        'content-type': PROTO,
      },
    );
    expect(ok.status, ok.text).toBe(200);
  });

  it('answers a 404 as a Protobuf Status', async () => {
    const r = await srv.req('GET', `/api/v1/namespaces/${ns}/configmaps/missing`, undefined, accept(PROTO));
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toBe(PROTO);
    const st = decodeAs(r.body, 'Status', 'v1', 'Status');
    expect(st).toMatchObject({
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      message: 'configmaps "missing" not found',
      details: { name: 'missing', kind: 'configmaps' },
    });
    // before any resource is resolved (unknown resource type): still a Protobuf Status
    const p = await srv.req('GET', `/api/v1/namespaces/${ns}/nothings/x`, undefined, accept(PROTO));
    expect(p.status).toBe(404);
    expect(p.headers['content-type']).toBe(PROTO);
    expect(decodeAs(p.body, 'Status', 'v1', 'Status').code).toBe(404);
  });

  it('answers a 422 with its causes as a Protobuf Status', async () => {
    const r = await srv.req(
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' }, data: { 'a b': 'x' } },
      accept(PROTO),
    );
    expect(r.status).toBe(422);
    const st = decodeAs(r.body, 'Status', 'v1', 'Status');
    expect(st.reason).toBe('Invalid');
    expect(st.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'data[a b]' });
  });

  it('streams watch events as length-prefixed Protobuf frames', async () => {
    const list = await srv.req('GET', `/api/v1/namespaces/${ns}/configmaps`);
    const rv = list.json.metadata.resourceVersion;
    const ac = new AbortController();
    const res = await request(`${srv.url}/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`, {
      headers: { authorization: `Bearer ${srv.token}`, accept: PROTO },
      signal: ac.signal,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(`${PROTO};stream=watch`);
    const events: { type: string; obj: any }[] = [];
    const reading = (async () => {
      let buf = Buffer.alloc(0);
      try {
        for await (const chunk of res.body) {
          buf = Buffer.concat([buf, chunk as Buffer]);
          while (buf.length >= 4 && buf.length - 4 >= buf.readUInt32BE(0)) {
            const len = buf.readUInt32BE(0);
            const msg = buf.subarray(4, 4 + len);
            buf = buf.subarray(4 + len);
            expect(msg.subarray(0, 4).equals(PREFIX)).toBe(false); // the event itself is not enveloped
            const ev = T('WatchEvent').decode(msg) as any;
            const obj = decodeAs(Buffer.from(ev.object.raw), 'ConfigMap', 'v1', 'ConfigMap');
            events.push({ type: ev.type, obj });
          }
          if (events.length >= 3) break;
        }
      } catch {
        // aborted
      }
    })();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    expect(
      (await srv.req('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' } }))
        .status,
    ).toBe(201);
    const cur = (await srv.req('GET', `${base}/watched`)).json;
    expect((await srv.req('PUT', `${base}/watched`, { ...cur, data: { k: 'v' } })).status).toBe(200);
    expect((await srv.req('DELETE', `${base}/watched`)).status).toBe(200);
    await Promise.race([reading, new Promise((r) => setTimeout(r, 10_000))]);
    ac.abort();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events.every((e) => e.obj.metadata.name === 'watched')).toBe(true);
    expect(events[1]!.obj.data).toEqual({ k: 'v' });
  });

  it('answers 406 for a kind without Protobuf when Protobuf is the only choice', async () => {
    const r = await srv.req(
      'GET',
      `/apis/example.orch.io/v1/namespaces/${ns}/widgets`,
      undefined,
      accept(PROTO),
    );
    expect(r.status).toBe(406);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json).toMatchObject({ kind: 'Status', code: 406, reason: 'NotAcceptable' });
  });

  it('falls back to JSON when JSON is listed after Protobuf', async () => {
    const both = `${PROTO}, application/json`;
    const w = await srv.req(
      'GET',
      `/apis/example.orch.io/v1/namespaces/${ns}/widgets`,
      undefined,
      accept(both),
    );
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toBe('application/json');
    expect(w.json.kind).toBe('WidgetList');
    const c = await srv.req('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, accept(both));
    expect(c.headers['content-type']).toBe(PROTO);
    const q = await srv.req(
      'GET',
      `/api/v1/namespaces/${ns}/configmaps`,
      undefined,
      accept(`${PROTO};q=0.5, application/json`),
    );
    expect(q.headers['content-type']).toBe('application/json');
  });

  it('rejects a Protobuf body without the prefix (400)', async () => {
    const good = wrap('v1', 'ConfigMap', 'ConfigMap', { metadata: { name: 'noprefix' } });
    const post = (body: Buffer) =>
      srv.req('POST', `/api/v1/namespaces/${ns}/configmaps`, body, { 'content-type': PROTO });
    const r = await post(good.subarray(4));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
    expect(r.json.message).toMatch(/prefix/);
    expect(
      (await post(Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j"}}'))).status,
    ).toBe(400);
    expect((await post(Buffer.concat([PREFIX, Buffer.from([0x0a, 0xff])]))).status).toBe(400);
    expect(
      (await post(wrap('example.orch.io/v1', 'Widget', 'ConfigMap', { metadata: { name: 'w' } }))).status,
    ).toBe(400);
    expect((await srv.req('GET', `/api/v1/namespaces/${ns}/configmaps/noprefix`)).status).toBe(404);
  });
});

/**
 * A JSON-form object in the shape protobufjs' fromObject takes for the subset schema: no
 * apiVersion/kind at the top (the envelope carries them), timestamps as {seconds, nanos},
 * FieldsV1 as its JSON text.
 */
function toIndependent(v: any, key = '', top = true): any {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' && TS.test(v)) return ts(v);
  if (Array.isArray(v)) return v.map((x) => toIndependent(x, key, false));
  if (typeof v === 'object') {
    if (key === 'fieldsV1') return { Raw: Buffer.from(JSON.stringify(v)).toString('base64') };
    const out: Record<string, any> = {};
    for (const [k, x] of Object.entries(v)) {
      if (top && (k === 'apiVersion' || k === 'kind')) continue;
      const y = toIndependent(x, k, false);
      if (y !== undefined) out[k] = y;
    }
    return out;
  }
  return v;
}
