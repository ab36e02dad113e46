// The kinds of scheduling, node runtime, quota, networking and storage: discovery as a
// Kubernetes 1.28 server lists them, their defaults and their validation.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectResourceAsFact } from './discovery-expect.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { FACTS_DIR } from './k8s-facts.ts';

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer();
});
afterAll(async () => {
  await ts?.close();
});

const RESOURCES: Record<string, string[]> = {
  'scheduling.k8s.io/v1': ['priorityclasses'],
  'node.k8s.io/v1': ['runtimeclasses'],
  v1: [
    'limitranges',
    'resourcequotas',
    'resourcequotas/status',
    'persistentvolumes',
    'persistentvolumes/status',
    'persistentvolumeclaims',
    'persistentvolumeclaims/status',
  ],
  'networking.k8s.io/v1': ['ingressclasses', 'ingresses', 'ingresses/status'],
  'storage.k8s.io/v1': ['storageclasses'],
};

describe('discovery of the kinds as Kubernetes 1.28 lists them', () => {
  const facts = JSON.parse(readFileSync(join(FACTS_DIR, 'discovery.json'), 'utf8')).resources;
  for (const [gv, names] of Object.entries(RESOURCES))
    it(`${gv}: ${names.join(', ')}`, async () => {
      const orch = gv.replace('.k8s.io', '.orch.io');
      const r = await ts.req('GET', gv === 'v1' ? '/api/v1' : `/apis/${orch}`);
      expect(r.status).toBe(200);
      for (const name of names) {
        const want = (facts[gv] as any[]).find((x) => x.name === name);
        const got = r.json.resources.find((x: any) => x.name === name);
        expect(got, name).toBeDefined();
        expectResourceAsFact(got, want);
      }
    });
});

const causesOf = (r: { json: any }) =>
  (r.json?.details?.causes ?? []) as { field: string; message: string; reason: string }[];
const hasCause = (r: { json: any }, field: string, text: string) =>
  causesOf(r).some((c) => c.field === field && c.message.includes(text));

async function namespace(): Promise<string> {
  const ns = uniqueName('k');
  expect(
    (
      await ts.req('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      })
    ).status,
  ).toBe(201);
  return ns;
}

describe('PriorityClass', () => {
  const PATH = '/apis/scheduling.orch.io/v1/priorityclasses';
  const pc = (name: string, extra: Record<string, unknown>) => ({
    apiVersion: 'scheduling.orch.io/v1',
    kind: 'PriorityClass',
    metadata: { name },
    ...extra,
  });

  it('the two system classes exist from the start with their 1.28 values', async () => {
    const node = await ts.req('GET', `${PATH}/system-node-critical`);
    const cluster = await ts.req('GET', `${PATH}/system-cluster-critical`);
    expect(node.json).toMatchObject({ value: 2000001000, preemptionPolicy: 'PreemptLowerPriority' });
    expect(cluster.json).toMatchObject({ value: 2000000000, preemptionPolicy: 'PreemptLowerPriority' });
    expect(node.json.globalDefault).toBeUndefined();
  });

  it('defaults preemptionPolicy; refuses user values above one billion and the system- prefix', async () => {
    const ok = await ts.req('POST', PATH, pc(uniqueName('pc'), { value: 1000 }));
    expect(ok.status).toBe(201);
    expect(ok.json.preemptionPolicy).toBe('PreemptLowerPriority');
    const high = await ts.req('POST', PATH, pc(uniqueName('pc'), { value: 1_000_000_001 }));
    expect(high.status).toBe(422);
    expect(hasCause(high, 'value', 'maximum allowed value of a user defined priority is 1000000000')).toBe(
      true,
    );
    const sys = await ts.req('POST', PATH, pc('system-mine', { value: 1 }));
    expect(sys.status).toBe(422);
    expect(
      hasCause(
        sys,
        'metadata.name',
        "priority class names with 'system-' prefix are reserved for system use only",
      ),
    ).toBe(true);
    const bad = await ts.req('POST', PATH, pc(uniqueName('pc'), { value: 1, preemptionPolicy: 'Sometimes' }));
    expect(hasCause(bad, 'preemptionPolicy', 'Unsupported value: "Sometimes"')).toBe(true);
  });

  it('value and preemptionPolicy never change', async () => {
    const name = uniqueName('pc');
    const c = await ts.req('POST', PATH, pc(name, { value: 5 }));
    const u = await ts.req('PUT', `${PATH}/${name}`, { ...c.json, value: 6, preemptionPolicy: 'Never' });
    expect(u.status).toBe(422);
    expect(hasCause(u, 'value', 'may not be changed in an update.')).toBe(true);
    expect(hasCause(u, 'preemptionPolicy', 'field is immutable')).toBe(true);
  });
});

describe('RuntimeClass', () => {
  const PATH = '/apis/node.orch.io/v1/runtimeclasses';
  it('handler is a DNS label that never changes; overhead quantities are not negative', async () => {
    const name = uniqueName('rc');
    const bad = await ts.req('POST', PATH, {
      apiVersion: 'node.orch.io/v1',
      kind: 'RuntimeClass',
      metadata: { name },
      handler: 'Not_A_Label',
      overhead: { podFixed: { cpu: '-1' } },
    });
    expect(bad.status).toBe(422);
    expect(hasCause(bad, 'handler', 'RFC 1123 label')).toBe(true);
    expect(hasCause(bad, 'overhead.podFixed[cpu]', 'must be greater than or equal to 0')).toBe(true);
    const c = await ts.req('POST', PATH, {
      apiVersion: 'node.orch.io/v1',
      kind: 'RuntimeClass',
      metadata: { name },
      handler: 'runc',
      overhead: { podFixed: { cpu: '250m' } },
    });
    expect(c.status).toBe(201);
    const u = await ts.req('PUT', `${PATH}/${name}`, { ...c.json, handler: 'kata' });
    expect(hasCause(u, 'handler', 'field is immutable')).toBe(true);
  });
});

describe('LimitRange', () => {
  it('fills container defaults from max, default and min; refuses min above max and defaults on Pod items', async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/limitranges`;
    const c = await ts.req('POST', path, {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'lr' },
      spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }] },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec.limits[0]).toMatchObject({
      default: { cpu: '2' },
      defaultRequest: { cpu: '2', memory: '64Mi' },
    });
    const bad = await ts.req('POST', path, {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'bad' },
      spec: {
        limits: [
          { type: 'Container', max: { cpu: '1' }, min: { cpu: '2' } },
          { type: 'Pod', default: { cpu: '1' } },
        ],
      },
    });
    expect(bad.status).toBe(422);
    expect(hasCause(bad, 'spec.limits[0].min[cpu]', 'min value 2 is greater than max value 1')).toBe(true);
    expect(hasCause(bad, 'spec.limits[1].default', "may not be specified when `type` is 'Pod'")).toBe(true);
  });
});

describe('ResourceQuota', () => {
  it('a create drops status; the status subresource writes only status; negative hard values are refused', async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/resourcequotas`;
    const bad = await ts.req('POST', path, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { pods: '-1', 'requests.cpu': '1' } },
    });
    expect(bad.status).toBe(422);
    expect(hasCause(bad, 'spec.hard[pods]', 'must be greater than or equal to 0')).toBe(true);
    // the quota's usage is written by the server at once (the plugin), so read the status back
    const c = await ts.req('POST', path, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { secrets: '10' } },
      status: { used: { secrets: '99' } },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json.status?.used?.secrets).not.toBe('99');
    const conflicting = await ts.req('POST', path, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q2' },
      spec: { hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] },
    });
    expect(hasCause(conflicting, 'spec.scopes', 'conflicting scopes')).toBe(true);
  });
});

describe('IngressClass and Ingress', () => {
  it('an ingress class needs a domain-prefixed controller; parameters default to Cluster scope', async () => {
    const PATH = '/apis/networking.orch.io/v1/ingressclasses';
    const bad = await ts.req('POST', PATH, {
      apiVersion: 'networking.orch.io/v1',
      kind: 'IngressClass',
      metadata: { name: uniqueName('ic') },
      spec: { controller: 'nginx' },
    });
    expect(hasCause(bad, 'spec.controller', 'must be a domain-prefixed path')).toBe(true);
    const c = await ts.req('POST', PATH, {
      apiVersion: 'networking.orch.io/v1',
      kind: 'IngressClass',
      metadata: { name: uniqueName('ic') },
      spec: { controller: 'example.com/ingress', parameters: { kind: 'Config', name: 'c' } },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec.parameters.scope).toBe('Cluster');
  });

  it('an ingress needs rules or a default backend; paths need a type and an absolute path; status starts empty', async () => {
    const ns = await namespace();
    const path = `/apis/networking.orch.io/v1/namespaces/${ns}/ingresses`;
    const empty = await ts.req('POST', path, {
      apiVersion: 'networking.orch.io/v1',
      kind: 'Ingress',
      metadata: { name: 'e' },
      spec: {},
    });
    expect(hasCause(empty, 'spec', 'either `defaultBackend` or `rules` must be specified')).toBe(true);
    const bad = await ts.req('POST', path, {
      apiVersion: 'networking.orch.io/v1',
      kind: 'Ingress',
      metadata: { name: 'b' },
      spec: {
        rules: [
          {
            host: '10.0.0.1',
            http: { paths: [{ path: 'rel', pathType: 'Prefix', backend: { service: { name: 's' } } }] },
          },
        ],
      },
    });
    expect(hasCause(bad, 'spec.rules[0].host', 'must be a DNS name, not an IP address')).toBe(true);
    expect(hasCause(bad, 'spec.rules[0].http.paths[0].path', 'must be an absolute path')).toBe(true);
    expect(hasCause(bad, 'spec.rules[0].http.paths[0].backend', 'port name or number is required')).toBe(
      true,
    );
    const ok = await ts.req('POST', path, {
      apiVersion: 'networking.orch.io/v1',
      kind: 'Ingress',
      metadata: { name: 'ok' },
      spec: {
        rules: [
          {
            host: 'a.example.com',
            http: {
              paths: [
                { path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } },
              ],
            },
          },
        ],
      },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.status).toEqual({ loadBalancer: {} });
    expect(ok.json.metadata.generation).toBe(1);
  });
});

describe('StorageClass', () => {
  it('defaults reclaimPolicy and volumeBindingMode; provisioner, parameters and reclaimPolicy never change', async () => {
    const PATH = '/apis/storage.orch.io/v1/storageclasses';
    const name = uniqueName('sc');
    const c = await ts.req('POST', PATH, {
      apiVersion: 'storage.orch.io/v1',
      kind: 'StorageClass',
      metadata: { name },
      provisioner: 'example.com/disk',
      parameters: { a: 'b' },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    const u = await ts.req('PUT', `${PATH}/${name}`, {
      ...c.json,
      provisioner: 'example.com/other',
      parameters: {},
      reclaimPolicy: 'Retain',
    });
    expect(u.status).toBe(422);
    expect(hasCause(u, 'provisioner', 'updates to provisioner are forbidden.')).toBe(true);
    expect(hasCause(u, 'parameters', 'updates to parameters are forbidden.')).toBe(true);
    expect(hasCause(u, 'reclaimPolicy', 'updates to reclaimPolicy are forbidden.')).toBe(true);
    const none = await ts.req('POST', PATH, {
      apiVersion: 'storage.orch.io/v1',
      kind: 'StorageClass',
      metadata: { name: uniqueName('sc') },
    });
    expect(hasCause(none, 'provisioner', 'Required value')).toBe(true);
  });
});

describe('PersistentVolume and PersistentVolumeClaim', () => {
  it('a volume needs access modes, a storage capacity and one source; it starts Pending with Retain and Filesystem', async () => {
    const PATH = '/api/v1/persistentvolumes';
    const bad = await ts.req('POST', PATH, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: uniqueName('pv') },
      spec: {},
    });
    expect(bad.status).toBe(422);
    expect(hasCause(bad, 'spec.accessModes', 'Required value')).toBe(true);
    expect(hasCause(bad, 'spec.capacity', 'Required value')).toBe(true);
    expect(hasCause(bad, 'spec', 'must specify a volume type')).toBe(true);
    const name = uniqueName('pv');
    const c = await ts.req('POST', PATH, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json.status).toEqual({ phase: 'Pending' });
    expect(c.json.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' });
    const u = await ts.req('PUT', `${PATH}/${name}`, {
      ...c.json,
      spec: { ...c.json.spec, hostPath: { path: '/other' } },
    });
    expect(
      hasCause(u, 'spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'),
    ).toBe(true);
  });

  it('a claim needs access modes and a positive storage request; its spec is fixed except a bound claim growing', async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
    const bad = await ts.req('POST', path, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'b' },
      spec: { resources: { requests: { storage: '0' } } },
    });
    expect(hasCause(bad, 'spec.accessModes', 'at least 1 access mode is required')).toBe(true);
    expect(hasCause(bad, 'spec.resources[storage]', 'must be greater than zero')).toBe(true);
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'c' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: '',
        resources: { requests: { storage: '1Gi' } },
      },
    };
    const c = await ts.req('POST', path, claim);
    expect(c.status, c.text).toBe(201);
    expect(c.json.status).toEqual({ phase: 'Pending' });
    const grow = await ts.req('PUT', `${path}/c`, {
      ...c.json,
      spec: { ...c.json.spec, resources: { requests: { storage: '2Gi' } } },
    });
    expect(grow.status).toBe(422);
    expect(
      hasCause(grow, 'spec', 'spec is immutable after creation except resources.requests for bound claims'),
    ).toBe(true);
    const bound = await ts.req('PUT', `${path}/c/status`, {
      ...c.json,
      status: { phase: 'Bound', capacity: { storage: '1Gi' } },
    });
    expect(bound.status, bound.text).toBe(200);
    const shrink = await ts.req('PUT', `${path}/c`, {
      ...bound.json,
      spec: { ...bound.json.spec, resources: { requests: { storage: '512Mi' } } },
    });
    expect(
      hasCause(shrink, 'spec.resources.requests.storage', 'field can not be less than previous value'),
    ).toBe(true);
  });
});

describe('the system priority classes', () => {
  it('may not be deleted, one by one or by collection', async () => {
    const PATH = '/apis/scheduling.orch.io/v1/priorityclasses';
    const d = await ts.req('DELETE', `${PATH}/system-node-critical`);
    expect(d.status).toBe(403);
    expect(d.json.message).toBe(
      'priorityclasses.scheduling.orch.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted',
    );
    const all = await ts.req('DELETE', PATH);
    expect(all.status, all.text).toBe(200);
    expect((await ts.req('GET', `${PATH}/system-cluster-critical`)).status).toBe(200);
    expect((await ts.req('GET', `${PATH}/system-node-critical`)).status).toBe(200);
  });
});
