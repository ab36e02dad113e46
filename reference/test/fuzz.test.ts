// Property-based fuzzing of the HTTP surface: random requests (methods, paths built from real
// and bogus segments, query strings with real parameter names and random values, Accept,
// Content-Type and Accept-Encoding headers, bodies that are mutated valid objects, random
// JSON, YAML or bytes) against one running server. For every request:
//   - the status is below 500 (the one exception is the 504 doc1 prescribes for a resource
//     version the server has not reached yet);
//   - a status of 400 or more comes with a Status object (in the negotiated encoding);
//   - a refused request changed nothing in the store (every key and resourceVersion);
//   - an accepted write is what the store now holds (by uid and resourceVersion), a dry run
//     and a read changed nothing;
//   - the server still answers /readyz, and no prototype was polluted.
// FUZZ_RUNS (default 400) and FUZZ_SEED (replay) tune a run; fast-check prints the seed and
// the shrunk counterexample of a failure (keep it in bad-input.test.ts as a named case).
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobuf } from '../src/content/protobuf.ts';
import { fingerprint, type RawReply, rawExchange } from './bad-input-helpers.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

let t: TestServer;
let ns: string;
/** Resource paths the server really serves: `<prefix>` + namespaced flag + plural. */
const resources: { prefix: string; plural: string; namespaced: boolean; kind: string }[] = [];

beforeAll(async () => {
  t = await startServer({ futureRvWaitMs: 20 });
  ns = uniqueName('fuzz');
  const r = await t.req('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  expect(r.status, r.text).toBe(201);
  for (const name of ['fz-a', 'fz-b']) {
    const c = await t.req('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, labels: { app: 'fuzz' } },
      data: { k: 'v' },
    });
    expect(c.status, c.text).toBe(201);
  }
  // the served resources, from discovery
  const lists: { prefix: string; doc: any }[] = [
    { prefix: '/api/v1', doc: (await t.req('GET', '/api/v1')).json },
  ];
  const groups = (await t.req('GET', '/apis')).json;
  for (const g of groups.groups ?? []) {
    const gv = g.preferredVersion.groupVersion;
    lists.push({ prefix: `/apis/${gv}`, doc: (await t.req('GET', `/apis/${gv}`)).json });
  }
  for (const { prefix, doc } of lists)
    for (const res of doc?.resources ?? [])
      if (!String(res.name).includes('/'))
        resources.push({ prefix, plural: res.name, namespaced: res.namespaced, kind: res.kind });
  expect(resources.length).toBeGreaterThan(2);
});

afterAll(async () => {
  if (process.env.FUZZ_STATS)
    console.log(
      [...seen.entries()]
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join('\n'),
    );
  await t?.close();
});

// ------------------------------------------------------------------- generators

const NAMES = [
  'fz-a',
  'fz-b',
  'fz-c',
  'fz-new',
  'UPPER',
  'a..b',
  '..',
  '.',
  'a_b',
  '',
  'x'.repeat(300),
  'default',
];
const SEGMENT_GARBAGE = [
  '%zz',
  '%',
  '%ff',
  '%2F',
  'a%2Fb',
  '%2e%2e',
  '..',
  '.',
  '',
  ' ',
  'é',
  '%00',
  '*',
  '~',
  ';x',
];

/** `arb` with probability 1/n, otherwise null. */
const sometimes = <T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 1, arbitrary: arb }, { weight: n - 1, arbitrary: fc.constant(null) });

const asciiText = (max: number) =>
  fc.string({ unit: fc.constantFrom(...'abcAZ09-_.=,!()/:;~ %'.split('')), maxLength: max });

const segment = (real: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 6, arbitrary: real },
    { weight: 1, arbitrary: fc.constantFrom(...SEGMENT_GARBAGE) },
    { weight: 1, arbitrary: asciiText(12) },
  );

function pathArb(): fc.Arbitrary<string> {
  const prefix = fc.oneof(
    { weight: 8, arbitrary: fc.constant('/api/v1') },
    { weight: 4, arbitrary: fc.constantFrom(...new Set(resources.map((r) => r.prefix))) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '/api/v2',
        '/apis/nope.orch.io/v1',
        '/apis/apps/v9',
        '/apis',
        '/api',
        '',
        '/apis/v1',
        '/api/v1/watch',
      ),
    },
  );
  const resource = segment(
    fc.oneof(
      { weight: 4, arbitrary: fc.constant('configmaps') },
      { weight: 4, arbitrary: fc.constantFrom(...resources.map((r) => r.plural)) },
    ),
  );
  const namespace = fc.oneof(
    { weight: 6, arbitrary: fc.constant(ns) },
    { weight: 1, arbitrary: fc.constantFrom('default', 'nope-ns', '') },
    { weight: 1, arbitrary: fc.constantFrom(...SEGMENT_GARBAGE) },
  );
  const name = segment(fc.constantFrom(...NAMES.map((n) => encodeURIComponent(n))));
  const sub = segment(fc.constantFrom('status', 'finalize', 'scale', 'eviction', 'bogus'));
  return fc
    .record({
      prefix,
      withNs: fc.boolean(),
      namespace,
      resource,
      name: sometimes(name, 2),
      sub: sometimes(sub, 5),
      extra: sometimes(fc.array(segment(asciiText(6)), { minLength: 1, maxLength: 3 }), 12),
      trailingSlash: fc.boolean(),
      raw: sometimes(asciiText(40), 25),
    })
    .map((p) => {
      if (p.raw !== null) return `/${p.raw}`;
      let s = p.prefix;
      if (p.withNs) s += `/namespaces/${p.namespace}`;
      s += `/${p.resource}`;
      if (p.name !== null) {
        s += `/${p.name}`;
        if (p.sub !== null) s += `/${p.sub}`;
      }
      if (p.extra) s += `/${p.extra.join('/')}`;
      if (p.trailingSlash) s += '/';
      return s;
    });
}

const QUERY_NAMES = [
  'watch',
  'resourceVersion',
  'resourceVersionMatch',
  'limit',
  'continue',
  'labelSelector',
  'fieldSelector',
  'timeoutSeconds',
  'allowWatchBookmarks',
  'sendInitialEvents',
  'dryRun',
  'fieldValidation',
  'fieldManager',
  'force',
  'gracePeriodSeconds',
  'propagationPolicy',
  'orphanDependents',
  'includeObject',
  'pretty',
  'bogus',
];
const QUERY_VALUES = [
  '',
  '0',
  '1',
  '-1',
  '2',
  'true',
  'false',
  'abc',
  'All',
  'Strict',
  'Ignore',
  'Warn',
  'Exact',
  'NotOlderThan',
  'Orphan',
  'Foreground',
  'Background',
  'app=fuzz',
  'app in (fuzz,x)',
  'a=(b',
  '!app',
  'metadata.name=fz-a',
  'metadata.name',
  'status.phase!=x',
  '9'.repeat(30),
  '1e3',
  '1.5',
  'None',
  'Object',
  'Metadata',
  'eyJ2IjoxfQ',
];

const queryArb = fc
  .array(
    fc.tuple(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...QUERY_NAMES) },
        { weight: 1, arbitrary: asciiText(8) },
      ),
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...QUERY_VALUES) },
        { weight: 2, arbitrary: asciiText(20) },
      ),
      fc.boolean(),
    ),
    { maxLength: 4 },
  )
  .map((ps) =>
    ps.length === 0
      ? ''
      : `?${ps.map(([k, v, encode]) => (encode ? `${encodeURIComponent(k)}=${encodeURIComponent(v)}` : `${k}=${v.replace(/[ %#]/g, '')}`)).join('&')}`,
  );

const ACCEPT = [
  'application/json',
  'application/yaml',
  'application/vnd.orch.protobuf',
  'application/vnd.orch.protobuf, application/json',
  'application/json;as=Table;g=meta.orch.io;v=v1',
  'application/json;as=Table;g=meta.orch.io;v=v1, application/json',
  'application/json;as=PartialObjectMetadata;g=meta.orch.io;v=v1',
  'text/html',
  '*/*',
  'application/*;q=0.5, text/plain',
  ';;;',
];
const CONTENT_TYPE = [
  'application/json',
  'application/yaml',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/vnd.orch.protobuf',
  'text/plain',
  'application/json; charset=utf-8',
  'multipart/form-data; boundary=x',
];
const ENCODING = ['gzip', 'identity', 'br', 'gzip, deflate', '*', 'gzip;q=0'];

const headersArb = fc
  .record({
    accept: sometimes(fc.oneof(fc.constantFrom(...ACCEPT), asciiText(20)), 3),
    contentType: fc.oneof(fc.constantFrom(...CONTENT_TYPE), sometimes(asciiText(20), 4)),
    encoding: sometimes(fc.constantFrom(...ENCODING), 3),
    auth: fc.oneof(
      { weight: 14, arbitrary: fc.constant('admin') },
      { weight: 1, arbitrary: fc.constantFrom('none', 'wrong', 'basic') },
    ),
  })
  .map((h) => {
    const out: Record<string, string> = {};
    if (h.accept !== null) out.Accept = h.accept;
    if (h.contentType !== null) out['Content-Type'] = h.contentType;
    if (h.encoding !== null) out['Accept-Encoding'] = h.encoding;
    if (h.auth === 'admin') out.Authorization = `Bearer ${t.token}`;
    else if (h.auth === 'wrong') out.Authorization = 'Bearer not-the-token';
    else if (h.auth === 'basic') out.Authorization = 'Basic YTpi';
    return out;
  });

/** A valid object of a simple kind, the starting point of mutations. */
const validObjectArb = fc
  .record({
    kind: fc.constantFrom('ConfigMap', 'ConfigMap', 'Secret', 'ServiceAccount', 'Namespace'),
    name: fc.constantFrom(...NAMES),
    withNs: fc.boolean(),
    labels: sometimes(
      fc.dictionary(fc.constantFrom('app', 'tier', 'x'), fc.constantFrom('fuzz', 'a', '')),
      2,
    ),
    data: fc.dictionary(fc.constantFrom('k', 'k2', 'key.name'), fc.constantFrom('v', 'dmFsdWU=', '')),
    rv: sometimes(fc.constantFrom('1', '2', '999'), 8),
  })
  .map((o) => {
    const obj: Record<string, any> = { apiVersion: 'v1', kind: o.kind, metadata: { name: o.name } };
    if (o.withNs && o.kind !== 'Namespace') obj.metadata.namespace = ns;
    if (o.labels) obj.metadata.labels = o.labels;
    if (o.rv) obj.metadata.resourceVersion = o.rv;
    if (o.kind === 'ConfigMap' || o.kind === 'Secret') obj.data = o.data;
    return obj;
  });

const mutationArb = fc.record({
  path: fc.array(
    fc.constantFrom(
      'metadata',
      'name',
      'labels',
      'data',
      'kind',
      'apiVersion',
      'namespace',
      'finalizers',
      '__proto__',
      'spec',
      'k',
      '0',
    ),
    {
      minLength: 1,
      maxLength: 3,
    },
  ),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom('v2', 'apps/v1', 'Secret', 1e308, -0, 2 ** 64, null, [], {}, ['x'], 'ConfigMap'),
  ),
  remove: fc.boolean(),
});

function mutate(
  obj: Record<string, any>,
  muts: { path: string[]; value: unknown; remove: boolean }[],
): unknown {
  const root = JSON.parse(JSON.stringify(obj));
  for (const m of muts) {
    let cur: any = root;
    for (const k of m.path.slice(0, -1)) {
      if (cur === null || typeof cur !== 'object') break;
      if (!Object.hasOwn(cur, k) || cur[k] === null || typeof cur[k] !== 'object') {
        Object.defineProperty(cur, k, { value: {}, writable: true, enumerable: true, configurable: true });
      }
      cur = cur[k];
    }
    const last = m.path[m.path.length - 1]!;
    if (cur === null || typeof cur !== 'object') continue;
    if (m.remove) delete cur[last];
    else
      Object.defineProperty(cur, last, {
        // a copy: fc.constantFrom hands out the same [] and {} each time, and a later mutation
        // that writes into one would make the body circular
        value: structuredClone(m.value),
        writable: true,
        enumerable: true,
        configurable: true,
      });
  }
  return root;
}

const bodyArb: fc.Arbitrary<Buffer | undefined> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: validObjectArb.map((o) => Buffer.from(JSON.stringify(o))) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(validObjectArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }))
      .map(([o, m]) => Buffer.from(JSON.stringify(mutate(o, m)))),
  },
  { weight: 2, arbitrary: validObjectArb.map((o) => Buffer.from(toYaml(o))) },
  {
    weight: 2,
    arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.record({
          op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
          path: fc.constantFrom(
            '/data/k',
            '/metadata/labels',
            '/metadata/name',
            '/metadata/resourceVersion',
            '/kind',
            '',
            '/__proto__/x',
            '/data/-',
          ),
          value: fc.jsonValue({ maxDepth: 1 }),
          from: fc.constantFrom('/data/k', '/metadata'),
        }),
        { maxLength: 3 },
      )
      .map((ops) => Buffer.from(JSON.stringify(ops))),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: asciiText(40).map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.nat({ max: 3000 }).map((n) => Buffer.from('['.repeat(n) + ']'.repeat(n))) },
);

interface FuzzRequest {
  method: string;
  target: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** Requests on the wrong path, with garbage anywhere. */
function chaosArb(): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
      path: pathArb(),
      query: queryArb,
      headers: headersArb,
      body: bodyArb,
    })
    .map((r) => ({ method: r.method, target: r.path + r.query, headers: r.headers, body: r.body }));
}

const REAL_KINDS = [
  { plural: 'configmaps', kind: 'ConfigMap', namespaced: true },
  { plural: 'secrets', kind: 'Secret', namespaced: true },
  { plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  { plural: 'namespaces', kind: 'Namespace', namespaced: false },
] as const;

/** Requests a client could plausibly send: a served path, a fitting method and body, now and then a mistake. */
function plausibleArb(): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      res: fc.constantFrom(...REAL_KINDS, REAL_KINDS[0], REAL_KINDS[0]),
      named: fc.boolean(),
      name: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('fz-a', 'fz-b', 'fz-c', 'fz-new') },
        { weight: 1, arbitrary: fc.constantFrom(...NAMES) },
      ),
      verb: fc.nat({ max: 3 }),
      watch: fc.nat({ max: 9 }),
      obj: validObjectArb,
      mutations: sometimes(fc.array(mutationArb, { minLength: 1, maxLength: 2 }), 3),
      patch: fc.oneof(
        fc.record({
          metadata: fc.record({
            labels: fc.dictionary(
              fc.constantFrom('app', 'x'),
              fc.oneof(fc.constantFrom('a', 'fuzz'), fc.jsonValue({ maxDepth: 0 })),
            ),
          }),
        }),
        fc.record({
          data: fc.dictionary(
            fc.constantFrom('k', 'z', 'bad key'),
            fc.oneof(fc.constant('v'), fc.constant(null), fc.integer()),
          ),
        }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      patchType: fc.constantFrom(
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
        'application/json-patch+json',
      ),
      yaml: fc.nat({ max: 4 }),
      query: fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 2, arbitrary: queryArb }),
      headers: fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: headersArb },
      ),
    })
    .map((p) => {
      const nsPath = p.res.namespaced ? `/namespaces/${ns}` : '';
      const coll = `/api/v1${nsPath}/${p.res.plural}`;
      // never the test namespace itself as a named namespace target
      const name = p.res.plural === 'namespaces' && p.name === ns ? 'fz-a' : p.name;
      const target = p.named ? `${coll}/${encodeURIComponent(name)}` : coll;
      const method = p.named
        ? (['GET', 'PUT', 'PATCH', 'DELETE'] as const)[p.verb]!
        : (['GET', 'POST', 'POST', 'DELETE'] as const)[p.verb]!;
      let query = p.query;
      if (method === 'GET' && p.watch === 0) query = `${query ? `${query}&` : '?'}watch=1`;
      const obj: Record<string, any> = {
        ...p.obj,
        apiVersion: 'v1',
        kind: p.res.kind,
        metadata: { ...p.obj.metadata, name },
      };
      if (!p.res.namespaced) delete obj.metadata.namespace;
      const doc = p.mutations ? mutate(obj, p.mutations) : obj;
      const headers: Record<string, string> = p.headers ?? { Authorization: `Bearer ${t.token}` };
      let body: Buffer | undefined;
      if (method === 'POST' || method === 'PUT') {
        const yaml = p.yaml === 0;
        body = Buffer.from(yaml ? toYaml(doc) : JSON.stringify(doc));
        if (!p.headers) headers['Content-Type'] = yaml ? 'application/yaml' : 'application/json';
      } else if (method === 'PATCH') {
        body = Buffer.from(
          JSON.stringify(
            p.patchType === 'application/json-patch+json'
              ? [
                  {
                    op: 'add',
                    path: '/metadata/labels',
                    value: (p.patch as any)?.metadata?.labels ?? p.patch,
                  },
                ]
              : p.patch,
          ),
        );
        if (!p.headers) headers['Content-Type'] = p.patchType;
      }
      // deleting a namespace finalizes its content in the background, which would show up as
      // changes while later requests run: namespace deletions go to a protected namespace
      const finalTarget =
        method === 'DELETE' && p.res.plural === 'namespaces' && p.named
          ? '/api/v1/namespaces/default'
          : target;
      return { method, target: finalTarget + query, headers, body };
    });
}

const SPEC_KEYS = [
  'replicas',
  'selector',
  'template',
  'containers',
  'image',
  'name',
  'ports',
  'port',
  'type',
  'clusterIP',
  'nodeName',
  'holderIdentity',
  'leaseDurationSeconds',
  'unschedulable',
  'podCIDR',
  'matchLabels',
  'metadata',
  'spec',
  'labels',
];
const TOP_KEYS = [
  'spec',
  'status',
  'data',
  'stringData',
  'type',
  'reason',
  'message',
  'involvedObject',
  'secrets',
  'count',
  'note',
];

/** An object of any served kind (but CustomResourceDefinition, whose controller writes in the background), with random content. */
function anyKindArb(): fc.Arbitrary<FuzzRequest> {
  const kinds = resources.filter(
    (r) => r.plural !== 'customresourcedefinitions' && r.plural !== 'namespaces',
  );
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 1 }),
    fc.object({ key: fc.constantFrom(...SPEC_KEYS), maxDepth: 3, maxKeys: 4 }),
    fc.array(fc.object({ key: fc.constantFrom(...SPEC_KEYS), maxDepth: 2, maxKeys: 3 }), { maxLength: 2 }),
  );
  return fc
    .record({
      res: fc.constantFrom(...kinds),
      name: fc.constantFrom('fz-k1', 'fz-k2'),
      verb: fc.constantFrom('POST', 'POST', 'PUT', 'PATCH', 'GET', 'DELETE'),
      top: fc.dictionary(fc.constantFrom(...TOP_KEYS), value, { maxKeys: 3 }),
      spec: fc.object({ key: fc.constantFrom(...SPEC_KEYS), maxDepth: 3, maxKeys: 5 }),
    })
    .map((p) => {
      const gv = p.res.prefix.replace(/^\/apis?\//, '');
      const coll = `${p.res.prefix}${p.res.namespaced ? `/namespaces/${ns}` : ''}/${p.res.plural}`;
      const obj = { apiVersion: gv, kind: p.res.kind, metadata: { name: p.name }, spec: p.spec, ...p.top };
      const headers: Record<string, string> = {
        Authorization: `Bearer ${t.token}`,
        'Content-Type': 'application/json',
      };
      if (p.verb === 'PATCH') headers['Content-Type'] = 'application/merge-patch+json';
      const target = p.verb === 'POST' ? coll : `${coll}/${p.name}`;
      const body =
        p.verb === 'GET' || p.verb === 'DELETE'
          ? undefined
          : Buffer.from(JSON.stringify(p.verb === 'PATCH' ? { spec: p.spec, ...p.top } : obj));
      return { method: p.verb, target, headers, body };
    });
}

function requestArb(): fc.Arbitrary<FuzzRequest> {
  return fc
    .oneof(
      { weight: 3, arbitrary: plausibleArb() },
      { weight: 2, arbitrary: anyKindArb() },
      { weight: 2, arbitrary: chaosArb() },
    )
    .map((r) => {
      // the same rule for the chaos paths: no namespace is ever deleted
      if (r.method === 'DELETE' && /^\/api\/v1\/namespaces\/[^/?]+\/?(\?|$)/.test(r.target))
        return { ...r, target: '/api/v1/namespaces/default' };
      return r;
    });
}

// ------------------------------------------------------------------- checks

function send(r: FuzzRequest): Promise<RawReply> {
  const h: Record<string, string> = { Host: '127.0.0.1', Connection: 'close', ...r.headers };
  if (r.body !== undefined) h['Content-Length'] = String(r.body.length);
  const head = `${r.method} ${r.target} HTTP/1.1\r\n${Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  // a watch streams until it times out: read what comes in a short while, then hang up
  const streaming = (r.method === 'GET' || r.method === 'HEAD') && /[?&]watch=|\/watch\//.test(r.target);
  return rawExchange(t.url, head, r.body, { timeoutMs: streaming ? 300 : 15_000 });
}

function decodeBody(rep: RawReply): any {
  const ct = rep.headers['content-type'] ?? '';
  let buf = rep.body;
  if (/gzip/.test(rep.headers['content-encoding'] ?? '')) buf = gunzipSync(buf);
  if (ct.startsWith('application/yaml')) return parseYaml(buf.toString('utf8'));
  if (ct.startsWith('application/json')) return JSON.parse(buf.toString('utf8'));
  if (ct.startsWith('application/vnd.orch.protobuf')) return decodeProtobuf(buf);
  return undefined;
}

function isDryRun(target: string): boolean {
  const q = target.includes('?')
    ? new URLSearchParams(target.slice(target.indexOf('?') + 1))
    : new URLSearchParams();
  return q.has('dryRun');
}

function storedByUid(uid: string): { key: string; rv: number; obj: any } | undefined {
  const snap = (t.server.storage as any).snapshot() as { objects: { key: string; rv: number; obj: any }[] };
  return snap.objects.find((o) => o.obj?.metadata?.uid === uid);
}

/** Status codes seen, by method (printed with FUZZ_STATS=1). */
const seen = new Map<string, number>();

async function check(r: FuzzRequest): Promise<void> {
  const before = fingerprint(t);
  const rep = await send(r);
  const k = `${r.method} ${rep.status}`;
  seen.set(k, (seen.get(k) ?? 0) + 1);
  if (process.env.FUZZ_STATS === '2') console.log(`${k} ${r.target} ${rep.text.slice(0, 160)}`);
  const label = `${r.method} ${r.target} -> ${rep.status} ${rep.text.slice(0, 300)}`;
  expect(rep.status, label).toBeGreaterThanOrEqual(100);

  // 1. never a 5xx, but the 504 doc1 prescribes for a resource version not reached yet
  if (rep.status >= 500) {
    const body = decodeBody(rep);
    const tooLargeRv =
      rep.status === 504 &&
      body?.reason === 'Timeout' &&
      /Too large resource version/.test(body?.message ?? '');
    expect(tooLargeRv, label).toBe(true);
  }

  // 2. an error is a Status (HEAD replies carry no body)
  if (rep.status >= 400 && r.method !== 'HEAD') {
    let body: any;
    expect(() => (body = decodeBody(rep)), label).not.toThrow();
    expect(body, label).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: rep.status,
    });
    expect(typeof body.reason, label).toBe('string');
    expect(body.reason.length, label).toBeGreaterThan(0);
    expect(typeof body.message, label).toBe('string');
  }

  // 3. a refused request, a read, a dry run: the store is unchanged
  const after = fingerprint(t);
  const write = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method);
  const accepted = rep.status >= 200 && rep.status < 300;
  if (!accepted || !write || isDryRun(r.target)) expect(after, label).toEqual(before);

  // 4. an accepted write is what the store holds
  if (accepted && write && !isDryRun(r.target) && rep.body.length) {
    const body = decodeBody(rep);
    const uid: string | undefined = body?.metadata?.uid ?? body?.details?.uid;
    if (body?.kind && body.kind !== 'Status' && !String(body.kind).endsWith('List') && uid) {
      const stored = storedByUid(uid);
      if (r.method === 'DELETE') {
        if (stored) expect(stored.obj.metadata.deletionTimestamp, label).toBeTruthy();
      } else {
        expect(stored, label).toBeDefined();
        expect(stored!.obj.metadata.resourceVersion, label).toBe(body.metadata.resourceVersion);
      }
    } else if (body?.kind === 'Status' && r.method === 'DELETE' && uid) {
      expect(storedByUid(uid), label).toBeUndefined();
    }
  }

  // 5. still alive, still clean
  const ready = await rawExchange(t.url, 'GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  expect(ready.status, `readyz after ${label}`).toBe(200);
  expect(({} as Record<string, unknown>).polluted, label).toBeUndefined();
  expect(Object.keys(Object.prototype), label).toEqual([]);
}

describe('fuzz: random requests never hurt the server', () => {
  it(`${RUNS} random requests`, async () => {
    await fc.assert(
      fc.asyncProperty(requestArb(), async (r) => {
        await check(r);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: false, interruptAfterTimeLimit: 60_000 },
    );
  }, 180_000);
});
