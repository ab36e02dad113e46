// The built-in kinds beyond Namespace and ConfigMap (of Namespace: its status subresource):
// Secret, Pod (status, eviction), Service
// (IP and node port allocation), Node, ServiceAccount, Event (core and events.orch.io),
// Lease and Deployment (status, scale). Expected values come from Kubernetes 1.28's
// documented behaviour (with `orch` for the maker's name), never from the server's output.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalQuantity, parseQuantity } from '../src/registry/kinds/common.ts';
import { base64ErrorOffset } from '../src/registry/kinds/secret.ts';
import { makeNamespace, startServer, type TestServer, uniqueName } from './helpers.ts';

const TABLE = 'application/json;as=Table;g=meta.orch.io;v=v1';

let srv: TestServer;
let ns: string;

beforeAll(async () => {
  srv = await startServer();
  ns = await makeNamespace(srv, 'kinds');
});

afterAll(async () => {
  await srv?.close();
});

const core = (plural: string, name = '') => `/api/v1/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
const apps = (name = '') => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ''}`;

function causeFields(json: any): string[] {
  return (json?.details?.causes ?? []).map((c: any) => c.field);
}

function expectInvalid(r: { status: number; json: any }, field: string, reason?: string): void {
  expect(r.status, JSON.stringify(r.json)).toBe(422);
  expect(r.json.kind).toBe('Status');
  expect(r.json.reason).toBe('Invalid');
  expect(causeFields(r.json)).toContain(field);
  if (reason) expect(r.json.details.causes.find((c: any) => c.field === field).reason).toBe(reason);
}

function columns(table: any): string[] {
  return table.columnDefinitions.map((c: any) => c.name);
}

function cellsByName(table: any, name: string): Record<string, unknown> {
  const row = table.rows.find((r: any) => r.object?.metadata?.name === name);
  expect(row, `row ${name}`).toBeDefined();
  const out: Record<string, unknown> = {};
  table.columnDefinitions.forEach((c: any, i: number) => {
    out[c.name] = row.cells[i];
  });
  return out;
}

/** 10.96.0.0/12 covers 10.96.0.0 .. 10.111.255.255; the network and broadcast addresses are not handed out. */
function inServiceRange(ip: string): boolean {
  const p = ip.split('.').map(Number);
  if (p.length !== 4 || p.some((x) => !Number.isInteger(x) || x < 0 || x > 255)) return false;
  if (p[0] !== 10 || p[1]! < 96 || p[1]! > 111) return false;
  if (ip === '10.96.0.0' || ip === '10.111.255.255') return false;
  return true;
}

function pod(name: string, extra: Record<string, unknown> = {}, containers?: unknown[]) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: containers ?? [{ name: 'app', image: 'nginx:1.25' }], ...extra },
  };
}

function service(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec };
}

function deployment(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] },
      },
      ...spec,
    },
  };
}

// ====================================================================== discovery

describe('discovery', () => {
  it('lists the core resources with kind, scope, verbs, short names and subresources', async () => {
    const r = await srv.req('GET', '/api/v1');
    expect(r.status).toBe(200);
    const byName = new Map<string, any>(r.json.resources.map((x: any) => [x.name, x]));
    const expectations: [string, string, boolean, string[] | undefined][] = [
      ['pods', 'Pod', true, ['po']],
      ['services', 'Service', true, ['svc']],
      ['nodes', 'Node', false, ['no']],
      ['serviceaccounts', 'ServiceAccount', true, ['sa']],
      ['events', 'Event', true, ['ev']],
      ['configmaps', 'ConfigMap', true, ['cm']],
      ['namespaces', 'Namespace', false, ['ns']],
      ['secrets', 'Secret', true, undefined],
    ];
    for (const [name, kind, namespaced, shortNames] of expectations) {
      const res = byName.get(name);
      expect(res, name).toBeDefined();
      expect(res.kind).toBe(kind);
      expect(res.namespaced).toBe(namespaced);
      if (shortNames) expect(res.shortNames).toEqual(shortNames);
      expect(res.verbs).toEqual(
        expect.arrayContaining(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']),
      );
    }
    for (const sub of ['pods/status', 'services/status', 'nodes/status']) {
      expect(byName.get(sub), sub).toBeDefined();
      expect(byName.get(sub).verbs).toEqual(expect.arrayContaining(['get', 'patch', 'update']));
    }
    const ev = byName.get('pods/eviction');
    expect(ev).toMatchObject({
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
      verbs: ['create'],
      namespaced: true,
    });
  });

  it('serves apps/v1 deployments with status and scale, leases and events.orch.io events', async () => {
    const a = await srv.req('GET', '/apis/apps/v1');
    expect(a.status).toBe(200);
    const names = a.json.resources.map((x: any) => x.name);
    expect(names).toEqual(expect.arrayContaining(['deployments', 'deployments/status', 'deployments/scale']));
    expect(a.json.resources.find((x: any) => x.name === 'deployments/scale')).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    const d = a.json.resources.find((x: any) => x.name === 'deployments');
    expect(d).toMatchObject({ kind: 'Deployment', namespaced: true, shortNames: ['deploy'] });

    const l = await srv.req('GET', '/apis/coordination.orch.io/v1');
    expect(l.status).toBe(200);
    expect(l.json.resources.find((x: any) => x.name === 'leases')).toMatchObject({
      kind: 'Lease',
      namespaced: true,
    });

    const e = await srv.req('GET', '/apis/events.orch.io/v1');
    expect(e.status).toBe(200);
    expect(e.json.resources.find((x: any) => x.name === 'events')).toMatchObject({
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
    });
  });
});

// ====================================================================== Protobuf

describe('Protobuf', () => {
  it('serves Secret, ServiceAccount, Event and Lease in the Protobuf envelope', async () => {
    const pbns = await makeNamespace(srv, 'pb');
    const at = (plural: string) => `/api/v1/namespaces/${pbns}/${plural}`;
    const objs: [string, Record<string, unknown>][] = [
      [at('secrets'), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pb' }, stringData: { a: 'b' } }],
      [at('serviceaccounts'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'pb' } }],
      [
        at('events'),
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'pb' },
          involvedObject: { kind: 'Pod', namespace: pbns, name: 'p' },
          reason: 'R',
        },
      ],
      [
        `/apis/coordination.orch.io/v1/namespaces/${pbns}/leases`,
        {
          apiVersion: 'coordination.orch.io/v1',
          kind: 'Lease',
          metadata: { name: 'pb' },
          spec: { holderIdentity: 'me' },
        },
      ],
    ];
    for (const [path, body] of objs) {
      expect((await srv.req('POST', path, body)).status, path).toBe(201);
      const g = await srv.req('GET', `${path}/pb`, undefined, { accept: 'application/vnd.orch.protobuf' });
      expect(g.status, path).toBe(200);
      expect(g.headers['content-type']).toContain('application/vnd.orch.protobuf');
      expect([...g.body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    }
  });
});

// ====================================================================== Secret

describe('Namespace status', () => {
  it('keeps metadata changes sent through /status (patch and update); spec stays as stored', async () => {
    const name = uniqueName('nsstatus');
    const c = await srv.req('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
    expect(c.status, c.text).toBe(201);
    const path = `/api/v1/namespaces/${name}/status`;
    const cond = { type: 'StatusPatch', status: 'True', reason: 'Test', message: 'patched' };
    const p = await srv.req(
      'PATCH',
      path,
      { metadata: { annotations: { patched: 'yes' } }, status: { conditions: [cond] } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(p.status, p.text).toBe(200);
    expect(p.json.metadata.annotations).toEqual({ patched: 'yes' });
    expect(p.json.status.conditions).toEqual([cond]);
    const upd = structuredClone(p.json);
    upd.metadata.labels = { ...upd.metadata.labels, updated: 'yes' };
    upd.spec = { finalizers: [] };
    upd.status.conditions = [{ ...cond, type: 'StatusUpdate', message: 'updated' }];
    const u = await srv.req('PUT', path, upd);
    expect(u.status, u.text).toBe(200);
    expect(u.json.metadata.labels).toEqual({ 'orch.io/metadata.name': name, updated: 'yes' });
    expect(u.json.metadata.annotations).toEqual({ patched: 'yes' });
    expect(u.json.spec).toEqual({ finalizers: ['orch'] });
    expect(u.json.status.conditions).toEqual([{ ...cond, type: 'StatusUpdate', message: 'updated' }]);
    const g = await srv.req('GET', `/api/v1/namespaces/${name}`);
    expect(g.json.metadata.labels.updated).toBe('yes');
    expect(g.json.metadata.annotations.patched).toBe('yes');
  });
});

describe('Secret', () => {
  it('defaults type to Opaque, folds stringData into data and drops it', async () => {
    const r = await srv.req('POST', core('secrets'), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds' },
      data: { user: Buffer.from('admin').toString('base64') },
      stringData: { password: 'pa55w0rd', user: 'root' },
    });
    expect(r.status).toBe(201);
    expect(r.json.type).toBe('Opaque');
    expect(r.json.stringData).toBeUndefined();
    // stringData wins over data for the same key
    expect(r.json.data).toEqual({
      user: Buffer.from('root').toString('base64'),
      password: Buffer.from('pa55w0rd').toString('base64'),
    });
    const g = await srv.req('GET', core('secrets', 'creds'));
    expect(g.status).toBe(200);
    expect(g.json.data.password).toBe('cGE1NXcwcmQ=');
  });

  it('rejects data that is not base64 as a decoding error', async () => {
    const r = await srv.req('POST', core('secrets'), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bad64' },
      data: { pass: 'My-pass-123' },
    });
    expect(r.status).toBe(400);
    expect(r.json.reason).toBe('BadRequest');
    expect(r.json.message).toBe(
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 2',
    );
  });

  it('reports the byte offset where Go stops decoding', () => {
    expect(base64ErrorOffset('YWRtaW4=')).toBe(-1);
    expect(base64ErrorOffset('s3cr3t-not-for-production')).toBe(6);
    expect(base64ErrorOffset('My-pass-123')).toBe(2);
    expect(base64ErrorOffset('admin')).toBe(4); // an incomplete last quantum
    expect(base64ErrorOffset('')).toBe(-1);
  });

  it('requires tls.crt and tls.key for orch.io/tls', async () => {
    const r = await srv.req('POST', core('secrets'), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tls-missing' },
      type: 'orch.io/tls',
      data: { 'tls.crt': 'Y2VydA==' },
    });
    expectInvalid(r, 'data[tls.key]', 'FieldValueRequired');
    expect(causeFields(r.json)).not.toContain('data[tls.crt]');
  });

  it('requires .dockerconfigjson for orch.io/dockerconfigjson and a user or password for basic-auth', async () => {
    const d = await srv.req('POST', core('secrets'), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'dcj' },
      type: 'orch.io/dockerconfigjson',
      data: {},
    });
    expectInvalid(d, 'data[.dockerconfigjson]', 'FieldValueRequired');
    const ok = await srv.req('POST', core('secrets'), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'dcj' },
      type: 'orch.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': '{"auths":{}}' },
    });
    expect(ok.status).toBe(201);
    const b = await srv.req('POST', core('secrets'), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ba' },
      type: 'orch.io/basic-auth',
    });
    expectInvalid(b, 'data[username]');
    expect(causeFields(b.json)).toContain('data[password]');
  });

  it('keeps the type immutable and honours immutable data', async () => {
    const c = await srv.req('POST', core('secrets'), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'frozen' },
      data: { a: 'YQ==' },
      immutable: true,
    });
    expect(c.status).toBe(201);
    const t = await srv.req('PUT', core('secrets', 'frozen'), { ...c.json, type: 'orch.io/other' });
    expectInvalid(t, 'type', 'FieldValueInvalid');
    const d = await srv.req('PUT', core('secrets', 'frozen'), { ...c.json, data: { a: 'Yg==' } });
    expectInvalid(d, 'data', 'FieldValueForbidden');
    const lbl = await srv.req('PUT', core('secrets', 'frozen'), {
      ...c.json,
      metadata: { ...c.json.metadata, labels: { x: 'y' } },
    });
    expect(lbl.status).toBe(200);
  });

  it('selects by type and prints Name, Type, Data, Age', async () => {
    const tls = await srv.req('POST', core('secrets'), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tls-ok' },
      type: 'orch.io/tls',
      data: { 'tls.crt': 'Y2VydA==', 'tls.key': 'a2V5' },
    });
    expect(tls.status).toBe(201);
    const l = await srv.req('GET', `${core('secrets')}?fieldSelector=type%3Dorch.io%2Ftls`);
    expect(l.status).toBe(200);
    expect(l.json.items.map((i: any) => i.metadata.name)).toEqual(['tls-ok']);
    const t = await srv.req('GET', core('secrets'), undefined, { accept: TABLE });
    expect(columns(t.json)).toEqual(['Name', 'Type', 'Data', 'Age']);
    expect(cellsByName(t.json, 'tls-ok')).toMatchObject({ Name: 'tls-ok', Type: 'orch.io/tls', Data: 2 });
    const bad = await srv.req('GET', `${core('secrets')}?fieldSelector=spec.type%3Dx`);
    expect(bad.status).toBe(400);
  });

  it('deletes', async () => {
    const d = await srv.req('DELETE', core('secrets', 'creds'));
    expect(d.status).toBe(200);
    expect(d.json).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'creds', kind: 'secrets' },
    });
    expect((await srv.req('GET', core('secrets', 'creds'))).status).toBe(404);
  });
});

// ====================================================================== Pod

describe('Pod', () => {
  it('applies the pod defaults', async () => {
    const r = await srv.req(
      'POST',
      core('pods'),
      pod('defaults', {}, [
        { name: 'a', image: 'nginx', ports: [{ containerPort: 80 }] },
        { name: 'b', image: 'registry.example:5000/team/tool:latest' },
        { name: 'c', image: 'nginx:1.25' },
        { name: 'd', image: 'busybox@sha256:' + 'a'.repeat(64) },
      ]),
    );
    expect(r.status, r.text).toBe(201);
    const spec = r.json.spec;
    expect(spec.restartPolicy).toBe('Always');
    expect(spec.dnsPolicy).toBe('ClusterFirst');
    expect(spec.schedulerName).toBe('default-scheduler');
    expect(spec.terminationGracePeriodSeconds).toBe(30);
    expect(spec.serviceAccountName).toBe('default');
    expect(spec.containers.map((c: any) => c.imagePullPolicy)).toEqual([
      'Always',
      'Always',
      'IfNotPresent',
      'IfNotPresent',
    ]);
    expect(spec.containers[0].ports[0].protocol).toBe('TCP');
    expect(spec.containers[0].terminationMessagePath).toBe('/dev/termination-log');
    expect(spec.containers[0].terminationMessagePolicy).toBe('File');
    expect(r.json.status.phase).toBe('Pending');
    expect(r.json.status.qosClass).toBe('BestEffort');
    expect(r.json.status.conditions).toBeUndefined();
  });

  it('marks a pod with scheduling gates as gated', async () => {
    const r = await srv.req(
      'POST',
      core('pods'),
      pod('gated', { schedulingGates: [{ name: 'example.com/wait' }] }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.json.status.conditions).toEqual([
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ]);
    const t = await srv.req('GET', core('pods', 'gated'), undefined, { accept: TABLE });
    expect(t.json.rows[0].cells[2]).toBe('SchedulingGated');
    // gates may be removed by an update, not added
    const open = structuredClone(r.json);
    open.spec.schedulingGates = [];
    const u = await srv.req('PUT', core('pods', 'gated'), open);
    expect(u.status, u.text).toBe(200);
  });

  it('derives the QoS class and canonical quantities', async () => {
    const g = await srv.req(
      'POST',
      core('pods'),
      pod('qos-guaranteed', {}, [
        { name: 'a', image: 'x:1', resources: { limits: { cpu: 0.5, memory: '1024Mi' } } },
      ]),
    );
    expect(g.status, g.text).toBe(201);
    // requests default to limits; 0.5 CPU is 500m and 1024Mi is 1Gi
    expect(g.json.spec.containers[0].resources).toEqual({
      limits: { cpu: '500m', memory: '1Gi' },
      requests: { cpu: '500m', memory: '1Gi' },
    });
    expect(g.json.status.qosClass).toBe('Guaranteed');
    const b = await srv.req(
      'POST',
      core('pods'),
      pod('qos-burstable', {}, [{ name: 'a', image: 'x:1', resources: { requests: { cpu: '100m' } } }]),
    );
    expect(b.json.status.qosClass).toBe('Burstable');
    const bad = await srv.req(
      'POST',
      core('pods'),
      pod('qos-bad', {}, [{ name: 'a', image: 'x:1', resources: { requests: { cpu: 'lots' } } }]),
    );
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('quantities must match the regular expression');
  });

  it('canonicalizes quantities as Kubernetes prints them', () => {
    const c = (s: string) => canonicalQuantity(parseQuantity(s)!);
    expect(c('1000m')).toBe('1');
    expect(c('0.1')).toBe('100m');
    expect(c('1.5Gi')).toBe('1536Mi');
    expect(c('2048')).toBe('2048');
    expect(c('1500')).toBe('1500');
    expect(c('2000')).toBe('2k');
    expect(c('512Ki')).toBe('512Ki');
    expect(c('0')).toBe('0');
    expect(parseQuantity('1.2.3')).toBeUndefined();
  });

  it('validates containers', async () => {
    const none = await srv.req('POST', core('pods'), pod('bad-none', {}, []));
    expectInvalid(none, 'spec.containers', 'FieldValueRequired');
    const dup = await srv.req(
      'POST',
      core('pods'),
      pod('bad-dup', {}, [
        { name: 'a', image: 'x:1' },
        { name: 'a', image: 'y:1' },
      ]),
    );
    expectInvalid(dup, 'spec.containers[1].name', 'FieldValueDuplicate');
    const noImage = await srv.req('POST', core('pods'), pod('bad-image', {}, [{ name: 'a' }]));
    expectInvalid(noImage, 'spec.containers[0].image', 'FieldValueRequired');
    const badName = await srv.req(
      'POST',
      core('pods'),
      pod('bad-name', {}, [{ name: 'Not_A_Label', image: 'x:1' }]),
    );
    expectInvalid(badName, 'spec.containers[0].name', 'FieldValueInvalid');
    const restart = await srv.req('POST', core('pods'), pod('bad-restart', { restartPolicy: 'Sometimes' }));
    expectInvalid(restart, 'spec.restartPolicy', 'FieldValueNotSupported');
    const mount = await srv.req(
      'POST',
      core('pods'),
      pod('bad-mount', {}, [
        { name: 'a', image: 'x:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] },
      ]),
    );
    expectInvalid(mount, 'spec.containers[0].volumeMounts[0].name', 'FieldValueNotFound');
    expect(mount.json.message).toContain('Pod "bad-mount" is invalid');
  });

  it('checks field types and unknown fields against the schema', async () => {
    const wrong = await srv.req('POST', core('pods'), { ...pod('typed'), spec: { containers: 'nginx' } });
    expect(wrong.status).toBe(400);
    const strict = await srv.req(
      'POST',
      `${core('pods')}?fieldValidation=Strict`,
      pod('strict', {}, [{ name: 'a', image: 'x:1', colour: 'blue' }]),
    );
    expect(strict.status).toBe(400);
    expect(strict.json.message).toContain('unknown field "spec.containers[0].colour"');
  });

  it('only lets an update change images, activeDeadlineSeconds and add tolerations', async () => {
    const c = await srv.req('POST', core('pods'), pod('upd'));
    expect(c.status).toBe(201);
    const img = structuredClone(c.json);
    img.spec.containers[0].image = 'nginx:1.26';
    img.metadata.labels = { tier: 'web' };
    const u = await srv.req('PUT', core('pods', 'upd'), img);
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec.containers[0].image).toBe('nginx:1.26');
    expect(u.json.metadata.labels).toEqual({ tier: 'web' });

    const env = structuredClone(u.json);
    env.spec.containers[0].env = [{ name: 'A', value: '1' }];
    const bad = await srv.req('PUT', core('pods', 'upd'), env);
    expectInvalid(bad, 'spec', 'FieldValueForbidden');
    expect(bad.json.message).toContain(
      'pod updates may not change fields other than `spec.containers[*].image`',
    );

    const tol = structuredClone(u.json);
    tol.spec.tolerations = [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }];
    const t = await srv.req('PUT', core('pods', 'upd'), tol);
    expect(t.status, t.text).toBe(200);
    const removed = structuredClone(t.json);
    removed.spec.tolerations = [];
    expectInvalid(await srv.req('PUT', core('pods', 'upd'), removed), 'spec.tolerations');

    const node = await srv.req(
      'PATCH',
      core('pods', 'upd'),
      { spec: { nodeName: 'n1' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expectInvalid(node, 'spec');
  });

  it('merges containers by name in a strategic merge patch', async () => {
    const c = await srv.req(
      'POST',
      core('pods'),
      pod('smp', {}, [
        { name: 'a', image: 'x:1', env: [{ name: 'A', value: '1' }] },
        { name: 'b', image: 'y:1' },
      ]),
    );
    expect(c.status).toBe(201);
    const r = await srv.req(
      'PATCH',
      core('pods', 'smp'),
      { spec: { containers: [{ name: 'b', image: 'y:2' }] } },
      {
        'content-type': 'application/strategic-merge-patch+json',
      },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.containers.map((x: any) => [x.name, x.image])).toEqual([
      ['a', 'x:1'],
      ['b', 'y:2'],
    ]);
    expect(r.json.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }]);
  });

  it('changes status only through the status subresource', async () => {
    const c = await srv.req('POST', core('pods'), pod('st'));
    const viaMain = structuredClone(c.json);
    viaMain.status = { phase: 'Running' };
    const m = await srv.req('PUT', core('pods', 'st'), viaMain);
    expect(m.status).toBe(200);
    expect(m.json.status.phase).toBe('Pending');

    const s = structuredClone(m.json);
    s.status = {
      phase: 'Running',
      podIP: '10.244.0.7',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [
        {
          name: 'app',
          ready: true,
          restartCount: 0,
          image: 'nginx:1.25',
          imageID: '',
          state: { running: {} },
        },
      ],
    };
    s.spec.containers[0].image = 'ignored:1';
    const r = await srv.req('PUT', core('pods', 'st/status'), s);
    expect(r.status, r.text).toBe(200);
    expect(r.json.status.phase).toBe('Running');
    expect(r.json.status.podIPs).toEqual([{ ip: '10.244.0.7' }]);
    expect(r.json.spec.containers[0].image).toBe('nginx:1.25');
    expect(r.json.status.qosClass).toBe('BestEffort');
    const g = await srv.req('GET', core('pods', 'st/status'));
    expect(g.status).toBe(200);
    expect(g.json.status.phase).toBe('Running');
  });

  it('supports the pod field selectors and rejects others', async () => {
    await srv.req('POST', core('pods'), pod('on-node', { nodeName: 'worker-1', restartPolicy: 'Never' }));
    const byNode = await srv.req('GET', `${core('pods')}?fieldSelector=spec.nodeName%3Dworker-1`);
    expect(byNode.json.items.map((i: any) => i.metadata.name)).toEqual(['on-node']);
    const byRestart = await srv.req('GET', `${core('pods')}?fieldSelector=spec.restartPolicy%3DNever`);
    expect(byRestart.json.items.map((i: any) => i.metadata.name)).toEqual(['on-node']);
    const running = await srv.req('GET', `${core('pods')}?fieldSelector=status.phase%3DRunning`);
    expect(running.json.items.map((i: any) => i.metadata.name)).toEqual(['st']);
    const byIp = await srv.req('GET', `${core('pods')}?fieldSelector=status.podIP%3D10.244.0.7`);
    expect(byIp.json.items.map((i: any) => i.metadata.name)).toEqual(['st']);
    const sched = await srv.req('GET', `${core('pods')}?fieldSelector=spec.schedulerName%3Dother`);
    expect(sched.json.items).toEqual([]);
    const sa = await srv.req(
      'GET',
      `${core('pods')}?fieldSelector=spec.serviceAccountName%3Ddefault,metadata.name%3Dst`,
    );
    expect(sa.json.items.map((i: any) => i.metadata.name)).toEqual(['st']);
    const nominated = await srv.req('GET', `${core('pods')}?fieldSelector=status.nominatedNodeName%3D`);
    expect(nominated.status).toBe(200);
    const bad = await srv.req('GET', `${core('pods')}?fieldSelector=spec.containers%3Dx`);
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('field label not supported');
  });

  it('prints the kubectl pod columns', async () => {
    const t = await srv.req('GET', core('pods'), undefined, { accept: TABLE });
    expect(t.status).toBe(200);
    expect(columns(t.json)).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      'IP',
      'Node',
      'Nominated Node',
      'Readiness Gates',
    ]);
    expect(t.json.columnDefinitions.map((c: any) => c.priority)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(cellsByName(t.json, 'on-node')).toMatchObject({
      Ready: '0/1',
      Status: 'Pending',
      Restarts: '0',
      IP: '<none>',
      Node: 'worker-1',
      'Nominated Node': '<none>',
      'Readiness Gates': '<none>',
    });
    expect(cellsByName(t.json, 'st')).toMatchObject({
      Ready: '1/1',
      Status: 'Running',
      IP: '10.244.0.7',
      Node: '<none>',
    });
  });

  it('evicts a pod: 201 with a success Status, and the pod is gone', async () => {
    await srv.req('POST', core('pods'), pod('evictee'));
    const mismatch = await srv.req('POST', core('pods', 'evictee/eviction'), {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'someone-else' },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.message).toBe('name in URL does not match name in Eviction object');
    const r = await srv.req('POST', core('pods', 'evictee/eviction'), {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'evictee', namespace: ns },
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 });
    expect((await srv.req('GET', core('pods', 'evictee'))).status).toBe(404);
    const again = await srv.req('POST', core('pods', 'evictee/eviction'), {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'evictee' },
    });
    expect(again.status).toBe(404);
    const get = await srv.req('GET', core('pods', 'on-node/eviction'));
    expect(get.status).toBe(405);
  });

  it('deletes at once, or marks the pod while finalizers remain', async () => {
    await srv.req('POST', core('pods'), pod('gone'));
    const del = await srv.req('DELETE', core('pods', 'gone'));
    expect(del.status).toBe(200);
    // pods answer a delete with the object, as Kubernetes' pod storage does
    expect(del.json.kind).toBe('Pod');
    expect(del.json.metadata.name).toBe('gone');
    expect((await srv.req('GET', core('pods', 'gone'))).status).toBe(404);
    const f = pod('held');
    (f.metadata as any).finalizers = ['example.com/hold'];
    await srv.req('POST', core('pods'), f);
    const d = await srv.req('DELETE', core('pods', 'held'));
    expect(d.status).toBe(200);
    const g = await srv.req('GET', core('pods', 'held'));
    expect(g.status).toBe(200);
    expect(g.json.metadata.deletionTimestamp).toBeTruthy();
    const t = await srv.req('GET', core('pods', 'held'), undefined, { accept: TABLE });
    expect(t.json.rows[0].cells[2]).toBe('Terminating');
  });
});

// ====================================================================== Service

describe('Service', () => {
  it('assigns a cluster IP from 10.96.0.0/12 and applies the defaults', async () => {
    const r = await srv.req(
      'POST',
      core('services'),
      service('web', { selector: { app: 'web' }, ports: [{ port: 80 }] }),
    );
    expect(r.status, r.text).toBe(201);
    const spec = r.json.spec;
    expect(inServiceRange(spec.clusterIP)).toBe(true);
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
    expect(spec.type).toBe('ClusterIP');
    expect(spec.sessionAffinity).toBe('None');
    expect(spec.ipFamilies).toEqual(['IPv4']);
    expect(spec.ipFamilyPolicy).toBe('SingleStack');
    expect(spec.ports).toEqual([{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    expect(spec.ports[0].nodePort).toBeUndefined();
  });

  it('honours a requested free IP and refuses a taken one', async () => {
    const a = await srv.req(
      'POST',
      core('services'),
      service('fixed-a', { clusterIP: '10.96.100.10', ports: [{ port: 80 }] }),
    );
    expect(a.status, a.text).toBe(201);
    expect(a.json.spec.clusterIP).toBe('10.96.100.10');
    const b = await srv.req(
      'POST',
      core('services'),
      service('fixed-b', { clusterIP: '10.96.100.10', ports: [{ port: 80 }] }),
    );
    expectInvalid(b, 'spec.clusterIPs', 'FieldValueInvalid');
    expect(b.json.message).toContain('failed to allocate IP 10.96.100.10: provided IP is already allocated');
    const out = await srv.req(
      'POST',
      core('services'),
      service('fixed-c', { clusterIP: '192.168.0.1', ports: [{ port: 80 }] }),
    );
    expectInvalid(out, 'spec.clusterIPs');
    expect(out.json.message).toContain('not in the valid range');
    // released on delete (the answer is the deleted Service)
    const del = await srv.req('DELETE', core('services', 'fixed-a'));
    expect(del.status).toBe(200);
    expect(del.json.kind).toBe('Service');
    const c = await srv.req(
      'POST',
      core('services'),
      service('fixed-b', { clusterIP: '10.96.100.10', ports: [{ port: 80 }] }),
    );
    expect(c.status, c.text).toBe(201);
  });

  it('does not hold an IP for a dry run', async () => {
    const dry = await srv.req(
      'POST',
      `${core('services')}?dryRun=All`,
      service('dry', { clusterIP: '10.96.100.20', ports: [{ port: 80 }] }),
    );
    expect(dry.status).toBe(201);
    expect(dry.json.spec.clusterIP).toBe('10.96.100.20');
    expect((await srv.req('GET', core('services', 'dry'))).status).toBe(404);
    const real = await srv.req(
      'POST',
      core('services'),
      service('real', { clusterIP: '10.96.100.20', ports: [{ port: 80 }] }),
    );
    expect(real.status, real.text).toBe(201);
  });

  it('allocates node ports for NodePort services, honours requested ones and refuses taken ones', async () => {
    const a = await srv.req(
      'POST',
      core('services'),
      service('np-a', {
        type: 'NodePort',
        selector: { app: 'a' },
        ports: [
          { name: 'http', port: 80, targetPort: 8080 },
          { name: 'admin', port: 9090, nodePort: 30090 },
        ],
      }),
    );
    expect(a.status, a.text).toBe(201);
    const [http, admin] = a.json.spec.ports;
    expect(http.nodePort).toBeGreaterThanOrEqual(30000);
    expect(http.nodePort).toBeLessThanOrEqual(32767);
    expect(http.targetPort).toBe(8080);
    expect(admin.nodePort).toBe(30090);
    expect(a.json.spec.externalTrafficPolicy).toBe('Cluster');

    const b = await srv.req(
      'POST',
      core('services'),
      service('np-b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30090 }] }),
    );
    expectInvalid(b, 'spec.ports[0].nodePort', 'FieldValueInvalid');
    expect(b.json.message).toContain('provided port is already allocated');
    const range = await srv.req(
      'POST',
      core('services'),
      service('np-c', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }),
    );
    expectInvalid(range, 'spec.ports[0].nodePort');
    expect(range.json.message).toContain(
      'provided port is not in the valid range. The range of valid ports is 30000-32767',
    );

    // a second service never gets a port already handed out
    const c = await srv.req(
      'POST',
      core('services'),
      service('np-c', { type: 'NodePort', ports: [{ port: 80 }] }),
    );
    expect(c.status).toBe(201);
    expect([http.nodePort, 30090]).not.toContain(c.json.spec.ports[0].nodePort);

    // the table shows port:nodePort/protocol
    const t = await srv.req('GET', core('services', 'np-a'), undefined, { accept: TABLE });
    expect(columns(t.json)).toEqual([
      'Name',
      'Type',
      'Cluster-IP',
      'External-IP',
      'Port(s)',
      'Age',
      'Selector',
    ]);
    expect(t.json.rows[0].cells).toEqual([
      'np-a',
      'NodePort',
      a.json.spec.clusterIP,
      '<none>',
      `80:${http.nodePort}/TCP,9090:30090/TCP`,
      expect.any(String),
      'app=a',
    ]);

    // released on delete
    expect((await srv.req('DELETE', core('services', 'np-a'))).status).toBe(200);
    const d = await srv.req(
      'POST',
      core('services'),
      service('np-b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30090 }] }),
    );
    expect(d.status, d.text).toBe(201);
  });

  it('frees node ports when a service turns into ClusterIP', async () => {
    const a = await srv.req(
      'POST',
      core('services'),
      service('np-x', { type: 'NodePort', ports: [{ port: 80, nodePort: 30111 }] }),
    );
    expect(a.status, a.text).toBe(201);
    const next = structuredClone(a.json);
    next.spec.type = 'ClusterIP';
    delete next.spec.externalTrafficPolicy;
    const u = await srv.req('PUT', core('services', 'np-x'), next);
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec.ports[0].nodePort).toBeUndefined();
    expect(u.json.spec.clusterIP).toBe(a.json.spec.clusterIP);
    const b = await srv.req(
      'POST',
      core('services'),
      service('np-y', { type: 'NodePort', ports: [{ port: 80, nodePort: 30111 }] }),
    );
    expect(b.status, b.text).toBe(201);
    // a nodePort on a ClusterIP service is refused
    const bad = await srv.req(
      'POST',
      core('services'),
      service('np-z', { type: 'ClusterIP', ports: [{ port: 80, nodePort: 30112 }] }),
    );
    expectInvalid(bad, 'spec.ports[0].nodePort');
  });

  it('merges ports by port number in a strategic merge patch and keeps node ports', async () => {
    const c = await srv.req(
      'POST',
      core('services'),
      service('smp-svc', {
        type: 'NodePort',
        ports: [
          { name: 'a', port: 80 },
          { name: 'b', port: 81 },
        ],
      }),
    );
    expect(c.status, c.text).toBe(201);
    const r = await srv.req(
      'PATCH',
      core('services', 'smp-svc'),
      { spec: { ports: [{ port: 81, protocol: 'TCP', targetPort: 9000 }] } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.ports.map((p: any) => [p.name, p.port, p.targetPort, p.nodePort])).toEqual([
      ['a', 80, 80, c.json.spec.ports[0].nodePort],
      ['b', 81, 9000, c.json.spec.ports[1].nodePort],
    ]);
  });

  it('allocates node ports when an update asks for them and frees them when it drops them', async () => {
    const c = await srv.req('POST', core('services'), service('flip', { ports: [{ port: 80 }] }));
    expect(c.status, c.text).toBe(201);
    const np = structuredClone(c.json);
    np.spec.type = 'NodePort';
    np.spec.ports[0].nodePort = 30222;
    const u1 = await srv.req('PUT', core('services', 'flip'), np);
    expect(u1.status, u1.text).toBe(200);
    expect(u1.json.spec.ports[0].nodePort).toBe(30222);
    const taken = await srv.req(
      'POST',
      core('services'),
      service('flip-2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30222 }] }),
    );
    expectInvalid(taken, 'spec.ports[0].nodePort');
    const back = structuredClone(u1.json);
    back.spec.type = 'ClusterIP';
    delete back.spec.externalTrafficPolicy;
    const u2 = await srv.req('PUT', core('services', 'flip'), back);
    expect(u2.status, u2.text).toBe(200);
    const free = await srv.req(
      'POST',
      core('services'),
      service('flip-2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30222 }] }),
    );
    expect(free.status, free.text).toBe(201);
  });

  it('keeps the cluster IP on update and refuses to change it', async () => {
    const a = await srv.req('POST', core('services'), service('keep', { ports: [{ port: 443 }] }));
    const omit = structuredClone(a.json);
    delete omit.spec.clusterIP;
    delete omit.spec.clusterIPs;
    omit.metadata.labels = { v: '2' };
    const u = await srv.req('PUT', core('services', 'keep'), omit);
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec.clusterIP).toBe(a.json.spec.clusterIP);
    const change = structuredClone(u.json);
    change.spec.clusterIP = '10.96.200.1';
    change.spec.clusterIPs = ['10.96.200.1'];
    const bad = await srv.req('PUT', core('services', 'keep'), change);
    expectInvalid(bad, 'spec.clusterIPs[0]');
    expect(bad.json.message).toContain('may not change once set');
  });

  it('handles headless and ExternalName services', async () => {
    const h = await srv.req(
      'POST',
      core('services'),
      service('headless', { clusterIP: 'None', selector: { app: 'db' } }),
    );
    expect(h.status, h.text).toBe(201);
    expect(h.json.spec.clusterIPs).toEqual(['None']);
    const e = await srv.req(
      'POST',
      core('services'),
      service('ext', { type: 'ExternalName', externalName: 'db.example.com' }),
    );
    expect(e.status, e.text).toBe(201);
    expect(e.json.spec.clusterIP).toBeUndefined();
    const t = await srv.req('GET', core('services', 'ext'), undefined, { accept: TABLE });
    expect(t.json.rows[0].cells.slice(1, 5)).toEqual(['ExternalName', '<none>', 'db.example.com', '<none>']);
    const missing = await srv.req('POST', core('services'), service('ext2', { type: 'ExternalName' }));
    expectInvalid(missing, 'spec.externalName', 'FieldValueRequired');
    const noPorts = await srv.req('POST', core('services'), service('noports', { selector: { a: 'b' } }));
    expectInvalid(noPorts, 'spec.ports', 'FieldValueRequired');
  });

  it('names services with DNS-1035 labels', async () => {
    const r = await srv.req('POST', core('services'), service('1st', { ports: [{ port: 80 }] }));
    expectInvalid(r, 'metadata.name', 'FieldValueInvalid');
  });

  it('shows a pending load balancer until status says otherwise', async () => {
    const lb = await srv.req(
      'POST',
      core('services'),
      service('lb', { type: 'LoadBalancer', ports: [{ port: 80 }] }),
    );
    expect(lb.status, lb.text).toBe(201);
    expect(lb.json.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect(lb.json.spec.allocateLoadBalancerNodePorts).toBe(true);
    let t = await srv.req('GET', core('services', 'lb'), undefined, { accept: TABLE });
    expect(t.json.rows[0].cells[3]).toBe('<pending>');
    const st = structuredClone(lb.json);
    st.status = { loadBalancer: { ingress: [{ ip: '203.0.113.9' }] } };
    const u = await srv.req('PUT', core('services', 'lb/status'), st);
    expect(u.status, u.text).toBe(200);
    t = await srv.req('GET', core('services', 'lb'), undefined, { accept: TABLE });
    expect(t.json.rows[0].cells[3]).toBe('203.0.113.9');
  });

  it('rebuilds allocations from stored services after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-kinds-'));
    try {
      const a = await startServer({ inMemory: false, dataDir: dir, fsync: false });
      const n = 'restart';
      expect(
        (
          await a.req('POST', '/api/v1/namespaces', {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name: n },
          })
        ).status,
      ).toBe(201);
      const s1 = await a.req(
        'POST',
        `/api/v1/namespaces/${n}/services`,
        service('one', { type: 'NodePort', clusterIP: '10.96.50.5', ports: [{ port: 80, nodePort: 30555 }] }),
      );
      expect(s1.status, s1.text).toBe(201);
      await a.close();
      const b = await startServer({ inMemory: false, dataDir: dir, fsync: false });
      try {
        const ip = await b.req(
          'POST',
          `/api/v1/namespaces/${n}/services`,
          service('two', { clusterIP: '10.96.50.5', ports: [{ port: 80 }] }),
        );
        expectInvalid(ip, 'spec.clusterIPs');
        const port = await b.req(
          'POST',
          `/api/v1/namespaces/${n}/services`,
          service('three', { type: 'NodePort', ports: [{ port: 80, nodePort: 30555 }] }),
        );
        expectInvalid(port, 'spec.ports[0].nodePort');
      } finally {
        await b.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ====================================================================== Node

describe('Node', () => {
  const node = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    ...extra,
  });

  it('is cluster-scoped and keeps the status it registers with', async () => {
    const r = await srv.req(
      'POST',
      '/api/v1/nodes',
      node('worker-a', {
        metadata: { name: 'worker-a', labels: { 'node-role.orch.io/control-plane': '' } },
        status: {
          conditions: [{ type: 'Ready', status: 'True' }],
          nodeInfo: {
            kubeletVersion: 'v1.28.0',
            osImage: 'Linux',
            kernelVersion: '6.1',
            containerRuntimeVersion: 'containerd://1.7',
          },
          addresses: [{ type: 'InternalIP', address: '192.0.2.10' }],
          capacity: { cpu: '4', memory: '8Gi' },
        },
      }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.json.metadata.namespace).toBeUndefined();
    expect(r.json.status.nodeInfo.kubeletVersion).toBe('v1.28.0');
    expect((await srv.req('GET', `/api/v1/namespaces/${ns}/nodes/worker-a`)).status).toBe(404);
    const t = await srv.req('GET', '/api/v1/nodes/worker-a', undefined, { accept: TABLE });
    expect(columns(t.json)).toEqual([
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
      'Internal-IP',
      'External-IP',
      'OS-Image',
      'Kernel-Version',
      'Container-Runtime',
    ]);
    expect(t.json.rows[0].cells).toEqual([
      'worker-a',
      'Ready',
      'control-plane',
      expect.any(String),
      'v1.28.0',
      '192.0.2.10',
      '<none>',
      'Linux',
      '6.1',
      'containerd://1.7',
    ]);
  });

  it('updates spec through the resource and status through the status subresource', async () => {
    const g = await srv.req('GET', '/api/v1/nodes/worker-a');
    const cordon = structuredClone(g.json);
    cordon.spec = { unschedulable: true };
    cordon.status.conditions = [{ type: 'Ready', status: 'False' }];
    const u = await srv.req('PUT', '/api/v1/nodes/worker-a', cordon);
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec.unschedulable).toBe(true);
    expect(u.json.status.conditions[0].status).toBe('True');
    const t = await srv.req('GET', '/api/v1/nodes/worker-a', undefined, { accept: TABLE });
    expect(t.json.rows[0].cells[1]).toBe('Ready,SchedulingDisabled');
    const st = structuredClone(u.json);
    st.status.conditions = [{ type: 'Ready', status: 'False' }];
    const s = await srv.req('PUT', '/api/v1/nodes/worker-a/status', st);
    expect(s.status, s.text).toBe(200);
    expect(s.json.status.conditions[0].status).toBe('False');
    await srv.req('POST', '/api/v1/nodes', node('worker-b'));
    const sel = await srv.req('GET', '/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue');
    expect(sel.json.items.map((i: any) => i.metadata.name)).toEqual(['worker-a']);
    const t2 = await srv.req('GET', '/api/v1/nodes', undefined, { accept: TABLE });
    expect(cellsByName(t2.json, 'worker-b')).toMatchObject({
      Status: 'Unknown',
      Roles: '<none>',
      Version: '',
    });
  });

  it('validates taints', async () => {
    const r = await srv.req(
      'POST',
      '/api/v1/nodes',
      node('tainted', { spec: { taints: [{ key: 'gpu', effect: 'Sometimes' }] } }),
    );
    expectInvalid(r, 'spec.taints[0].effect', 'FieldValueNotSupported');
  });
});

// ====================================================================== ServiceAccount

describe('ServiceAccount', () => {
  it('creates, lists as a table, updates and deletes', async () => {
    const c = await srv.req('POST', core('serviceaccounts'), {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'builder' },
      secrets: [{ name: 'builder-token', namespace: 'elsewhere', kind: 'Secret' }],
      automountServiceAccountToken: false,
    });
    expect(c.status, c.text).toBe(201);
    // a secret reference keeps only its name
    expect(c.json.secrets).toEqual([{ name: 'builder-token' }]);
    const t = await srv.req('GET', core('serviceaccounts'), undefined, { accept: TABLE });
    expect(columns(t.json)).toEqual(['Name', 'Secrets', 'Age']);
    expect(cellsByName(t.json, 'builder')).toMatchObject({ Secrets: 1 });
    const u = await srv.req('PUT', core('serviceaccounts', 'builder'), { ...c.json, secrets: [] });
    expect(u.status).toBe(200);
    const bad = await srv.req('POST', core('serviceaccounts'), {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'x' },
      secrets: 'no',
    });
    expect(bad.status).toBe(400);
    expect((await srv.req('DELETE', core('serviceaccounts', 'builder'))).status).toBe(200);
    expect((await srv.req('GET', core('serviceaccounts', 'builder'))).status).toBe(404);
  });
});

// ====================================================================== Event

describe('Event', () => {
  const coreEvent = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name },
    involvedObject: {
      kind: 'Pod',
      namespace: ns,
      name: 'web-1',
      uid: 'u-1',
      apiVersion: 'v1',
      fieldPath: 'spec.containers{web}',
    },
    reason: 'Pulled',
    message: 'Container image pulled ',
    source: { component: 'agent', host: 'worker-a' },
    type: 'Normal',
    firstTimestamp: '2024-03-01T10:00:00Z',
    lastTimestamp: '2024-03-01T10:05:00.123Z',
    count: 3,
    ...extra,
  });

  it('creates core events, normalizes timestamps and selects by the event field labels', async () => {
    const c = await srv.req('POST', core('events'), coreEvent('e1'));
    expect(c.status, c.text).toBe(201);
    expect(c.json.lastTimestamp).toBe('2024-03-01T10:05:00Z');
    const e2 = await srv.req(
      'POST',
      core('events'),
      coreEvent('e2', {
        reason: 'BackOff',
        type: 'Warning',
        source: { component: 'controller' },
        involvedObject: { kind: 'Deployment', namespace: ns, name: 'api' },
      }),
    );
    expect(e2.status, e2.text).toBe(201);
    const sel = async (fs: string) =>
      (await srv.req('GET', `${core('events')}?fieldSelector=${encodeURIComponent(fs)}`)).json.items.map(
        (i: any) => i.metadata.name,
      );
    expect(await sel('involvedObject.name=web-1')).toEqual(['e1']);
    expect(await sel('involvedObject.kind=Deployment')).toEqual(['e2']);
    expect(await sel('involvedObject.uid=u-1')).toEqual(['e1']);
    expect(await sel('involvedObject.fieldPath=spec.containers{web}')).toEqual(['e1']);
    expect(await sel('reason=BackOff')).toEqual(['e2']);
    expect(await sel('type=Warning')).toEqual(['e2']);
    expect(await sel('source=agent')).toEqual(['e1']);
    expect(await sel(`involvedObject.namespace=${ns}`)).toEqual(['e1', 'e2']);
    expect((await srv.req('GET', `${core('events')}?fieldSelector=regarding.name%3Dweb-1`)).status).toBe(400);
  });

  it('prints the event columns', async () => {
    const t = await srv.req('GET', core('events'), undefined, { accept: TABLE });
    expect(columns(t.json)).toEqual([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject',
      'Source',
      'Message',
      'First Seen',
      'Count',
      'Name',
    ]);
    const row = cellsByName(t.json, 'e1');
    expect(row).toMatchObject({
      Type: 'Normal',
      Reason: 'Pulled',
      Object: 'pod/web-1',
      Subobject: 'spec.containers{web}',
      Source: 'agent, worker-a',
      Message: 'Container image pulled',
      Count: 3,
      Name: 'e1',
    });
  });

  it('checks the involved object namespace', async () => {
    const r = await srv.req(
      'POST',
      core('events'),
      coreEvent('e3', { involvedObject: { kind: 'Pod', namespace: 'elsewhere', name: 'x' } }),
    );
    expectInvalid(r, 'involvedObject.namespace', 'FieldValueInvalid');
    // events about cluster-scoped objects live in the default namespace
    const node = coreEvent('e4', { involvedObject: { kind: 'Node', name: 'worker-a' } });
    expectInvalid(await srv.req('POST', core('events'), node), 'involvedObject.namespace');
    const ok = await srv.req('POST', '/api/v1/namespaces/default/events', node);
    expect(ok.status, ok.text).toBe(201);
    const sel = await srv.req('GET', '/api/v1/events?fieldSelector=involvedObject.kind%3DNode');
    expect(sel.json.items.map((i: any) => i.metadata.name)).toEqual(['e4']);
  });

  it('serves events.orch.io/v1 with its own rules, on the core events storage', async () => {
    const base = `/apis/events.orch.io/v1/namespaces/${ns}/events`;
    const bad = await srv.req('POST', base, {
      apiVersion: 'events.orch.io/v1',
      kind: 'Event',
      metadata: { name: 'n1' },
      type: 'Fatal',
    });
    expect(bad.status).toBe(422);
    expect(causeFields(bad.json)).toEqual(expect.arrayContaining(['eventTime', 'type']));
    const legacy = await srv.req('POST', base, {
      apiVersion: 'events.orch.io/v1',
      kind: 'Event',
      metadata: { name: 'n0' },
      eventTime: '2024-03-01T10:00:00.5Z',
      type: 'Normal',
      action: 'Pull',
      reason: 'Pulled',
      reportingController: 'orch.io/agent',
      reportingInstance: 'agent-worker-a',
      regarding: { kind: 'Pod', namespace: ns, name: 'web-1' },
      deprecatedCount: 4,
    });
    expectInvalid(legacy, 'deprecatedCount');
    const ok = await srv.req('POST', base, {
      apiVersion: 'events.orch.io/v1',
      kind: 'Event',
      metadata: { name: 'n1' },
      eventTime: '2024-03-01T10:00:00.5Z',
      type: 'Normal',
      action: 'Pull',
      reason: 'Pulled',
      note: 'pulled',
      reportingController: 'orch.io/agent',
      reportingInstance: 'agent-worker-a',
      regarding: { kind: 'Pod', namespace: ns, name: 'web-1' },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.eventTime).toBe('2024-03-01T10:00:00.500000Z');
    const sel = await srv.req(
      'GET',
      `${base}?fieldSelector=regarding.name%3Dweb-1,reportingController%3Dorch.io%2Fagent`,
    );
    expect(sel.json.items.map((i: any) => i.metadata.name)).toEqual(['n1']);
    expect((await srv.req('GET', `${base}?fieldSelector=involvedObject.name%3Dweb-1`)).status).toBe(400);
    // one storage: the event is a core event too, with the core field names
    const coreOne = await srv.req('GET', `${core('events')}/n1`);
    expect(coreOne.status).toBe(200);
    expect(coreOne.json).toMatchObject({
      apiVersion: 'v1',
      involvedObject: { name: 'web-1' },
      message: 'pulled',
    });
    const changed = await srv.req('PUT', `${base}/n1`, { ...ok.json, reason: 'Other' });
    expectInvalid(changed, 'reason');
    const t = await srv.req('GET', `${base}/n1`, undefined, { accept: TABLE });
    expect(t.json.rows[0].cells.slice(1, 4)).toEqual(['Normal', 'Pulled', 'pod/web-1']);
  });
});

// ====================================================================== Lease

describe('Lease', () => {
  const base = () => `/apis/coordination.orch.io/v1/namespaces/${ns}/leases`;

  it('stores micro times, validates durations and prints the holder', async () => {
    const c = await srv.req('POST', base(), {
      apiVersion: 'coordination.orch.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader' },
      spec: {
        holderIdentity: 'pod-a',
        leaseDurationSeconds: 15,
        renewTime: '2024-03-01T10:00:00Z',
        acquireTime: '2024-03-01T10:00:00.123456789+01:00',
        leaseTransitions: 0,
      },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec.renewTime).toBe('2024-03-01T10:00:00.000000Z');
    expect(c.json.spec.acquireTime).toBe('2024-03-01T09:00:00.123456Z');
    const t = await srv.req('GET', base(), undefined, { accept: TABLE });
    expect(columns(t.json)).toEqual(['Name', 'Holder', 'Age']);
    expect(cellsByName(t.json, 'leader')).toMatchObject({ Holder: 'pod-a' });
    const bad = await srv.req('POST', base(), {
      apiVersion: 'coordination.orch.io/v1',
      kind: 'Lease',
      metadata: { name: 'bad' },
      spec: { leaseDurationSeconds: 0 },
    });
    expectInvalid(bad, 'spec.leaseDurationSeconds', 'FieldValueInvalid');
    const badTime = await srv.req('POST', base(), {
      apiVersion: 'coordination.orch.io/v1',
      kind: 'Lease',
      metadata: { name: 'bad-time' },
      spec: { renewTime: 'yesterday' },
    });
    expect(badTime.status).toBe(400);
  });

  it('renews with an update and may be created by PUT', async () => {
    const g = await srv.req('GET', `${base()}/leader`);
    const u = await srv.req('PUT', `${base()}/leader`, {
      ...g.json,
      spec: { ...g.json.spec, holderIdentity: 'pod-b', leaseTransitions: 1 },
    });
    expect(u.status).toBe(200);
    expect(u.json.spec.holderIdentity).toBe('pod-b');
    const p = await srv.req('PUT', `${base()}/fresh`, {
      apiVersion: 'coordination.orch.io/v1',
      kind: 'Lease',
      metadata: { name: 'fresh' },
      spec: { holderIdentity: 'x' },
    });
    expect(p.status).toBe(201);
    expect((await srv.req('DELETE', `${base()}/fresh`)).status).toBe(200);
  });
});

// ====================================================================== Deployment

describe('Deployment', () => {
  it('applies the apps/v1 defaults and starts at generation 1', async () => {
    const d = deployment('web');
    delete (d.spec as any).replicas;
    const r = await srv.req('POST', apps(), d);
    expect(r.status, r.text).toBe(201);
    const spec = r.json.spec;
    expect(spec.replicas).toBe(1);
    expect(spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    expect(spec.revisionHistoryLimit).toBe(10);
    expect(spec.progressDeadlineSeconds).toBe(600);
    expect(spec.template.spec.restartPolicy).toBe('Always');
    expect(spec.template.spec.dnsPolicy).toBe('ClusterFirst');
    expect(spec.template.spec.containers[0].imagePullPolicy).toBe('IfNotPresent');
    expect(r.json.metadata.generation).toBe(1);
  });

  it('keeps Recreate without rolling update parameters', async () => {
    const r = await srv.req('POST', apps(), deployment('recreate', { strategy: { type: 'Recreate' } }));
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.strategy).toEqual({ type: 'Recreate' });
    const bad = await srv.req(
      'POST',
      apps(),
      deployment('recreate-bad', { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } }),
    );
    expectInvalid(bad, 'spec.strategy.rollingUpdate', 'FieldValueForbidden');
  });

  it('requires a selector that matches the template labels', async () => {
    const noSel = deployment('nosel');
    delete (noSel.spec as any).selector;
    expectInvalid(await srv.req('POST', apps(), noSel), 'spec.selector', 'FieldValueRequired');
    const mismatch = deployment('mismatch', { selector: { matchLabels: { app: 'other' } } });
    const m = await srv.req('POST', apps(), mismatch);
    expectInvalid(m, 'spec.template.metadata.labels', 'FieldValueInvalid');
    expect(m.json.message).toContain('`selector` does not match template `labels`');
    const never = deployment('never');
    (never.spec.template.spec as any).restartPolicy = 'Never';
    expectInvalid(
      await srv.req('POST', apps(), never),
      'spec.template.spec.restartPolicy',
      'FieldValueNotSupported',
    );
    const neg = await srv.req('POST', apps(), deployment('neg', { replicas: -1 }));
    expectInvalid(neg, 'spec.replicas', 'FieldValueInvalid');
  });

  it('bumps the generation on spec changes only and keeps the selector immutable', async () => {
    const c = await srv.req('POST', apps(), deployment('gen'));
    expect(c.status, c.text).toBe(201);
    const lbl = structuredClone(c.json);
    lbl.metadata.labels = { team: 'a' };
    const u1 = await srv.req('PUT', apps('gen'), lbl);
    expect(u1.status).toBe(200);
    expect(u1.json.metadata.generation).toBe(1);
    const img = structuredClone(u1.json);
    img.spec.template.spec.containers[0].image = 'nginx:1.26';
    const u2 = await srv.req('PUT', apps('gen'), img);
    expect(u2.status).toBe(200);
    expect(u2.json.metadata.generation).toBe(2);
    const sel = structuredClone(u2.json);
    sel.spec.selector = { matchLabels: { app: 'gen', tier: 'x' } };
    sel.spec.template.metadata.labels = { app: 'gen', tier: 'x' };
    const bad = await srv.req('PUT', apps('gen'), sel);
    expectInvalid(bad, 'spec.selector', 'FieldValueInvalid');
    expect(bad.json.message).toContain('field is immutable');
  });

  it('changes status through the status subresource and prints the deployment columns', async () => {
    const g = await srv.req('GET', apps('gen'));
    const st = structuredClone(g.json);
    st.status = {
      observedGeneration: 2,
      replicas: 3,
      updatedReplicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
    };
    const s = await srv.req('PUT', apps('gen/status'), st);
    expect(s.status, s.text).toBe(200);
    expect(s.json.status.readyReplicas).toBe(1);
    expect(s.json.metadata.generation).toBe(2);
    const viaMain = structuredClone(s.json);
    viaMain.status = { readyReplicas: 3 };
    const m = await srv.req('PUT', apps('gen'), viaMain);
    expect(m.json.status.readyReplicas).toBe(1);
    const t = await srv.req('GET', apps('gen'), undefined, { accept: TABLE });
    expect(columns(t.json)).toEqual([
      'Name',
      'Ready',
      'Up-to-date',
      'Available',
      'Age',
      'Containers',
      'Images',
      'Selector',
    ]);
    expect(t.json.rows[0].cells).toEqual([
      'gen',
      '1/3',
      2,
      1,
      expect.any(String),
      'web',
      'nginx:1.26',
      'app=gen',
    ]);
  });

  it('serves the scale subresource', async () => {
    const g = await srv.req('GET', apps('gen/scale'));
    expect(g.status).toBe(200);
    expect(g.json).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'gen', namespace: ns },
      spec: { replicas: 3 },
      status: { replicas: 3, selector: 'app=gen' },
    });
    const u = await srv.req('PUT', apps('gen/scale'), { ...g.json, spec: { replicas: 5 } });
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec.replicas).toBe(5);
    expect((await srv.req('GET', apps('gen'))).json.spec.replicas).toBe(5);
    const stale = await srv.req('PUT', apps('gen/scale'), { ...g.json, spec: { replicas: 6 } });
    expect(stale.status).toBe(409);
    const p = await srv.req(
      'PATCH',
      apps('gen/scale'),
      { spec: { replicas: 2 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(p.status, p.text).toBe(200);
    expect(p.json.spec.replicas).toBe(2);
    const neg = await srv.req(
      'PATCH',
      apps('gen/scale'),
      { spec: { replicas: -1 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expectInvalid(neg, 'spec.replicas');
  });

  it('lists across namespaces and deletes', async () => {
    const all = await srv.req('GET', '/apis/apps/v1/deployments');
    expect(all.status).toBe(200);
    expect(all.json.kind).toBe('DeploymentList');
    expect(all.json.items.map((i: any) => i.metadata.name)).toEqual(expect.arrayContaining(['web', 'gen']));
    expect((await srv.req('DELETE', apps('web'))).status).toBe(200);
    expect((await srv.req('GET', apps('web'))).status).toBe(404);
  });
});
