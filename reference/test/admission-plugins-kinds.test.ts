// The built-in admission plugins for scheduling, quota, networking and storage kinds (doc3's
// plugin table): Priority, RuntimeClass, LimitRanger, ResourceQuota, DefaultIngressClass,
// DefaultStorageClass, PersistentVolumeClaimResize and StorageObjectInUseProtection, each
// checked through the API of a server running the default plugin set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer();
});
afterAll(async () => {
  await ts?.close();
});

async function namespace(): Promise<string> {
  const ns = uniqueName('p');
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

const pod = (
  name: string,
  spec: Record<string, unknown> = {},
  containers: Record<string, unknown>[] = [{ name: 'app', image: 'nginx:1.25' }],
) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers, ...spec },
});
const podsIn = (ns: string) => `/api/v1/namespaces/${ns}/pods`;

describe('Priority', () => {
  const PCS = '/apis/scheduling.orch.io/v1/priorityclasses';
  it('fills priority and preemptionPolicy from the class; an unknown class or a mismatched priority is refused', async () => {
    const ns = await namespace();
    const cls = uniqueName('pc');
    expect(
      (
        await ts.req('POST', PCS, {
          apiVersion: 'scheduling.orch.io/v1',
          kind: 'PriorityClass',
          metadata: { name: cls },
          value: 4242,
          preemptionPolicy: 'Never',
        })
      ).status,
    ).toBe(201);
    const ok = await ts.req('POST', podsIn(ns), pod('a', { priorityClassName: cls }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.spec).toMatchObject({ priority: 4242, preemptionPolicy: 'Never' });
    const none = await ts.req('POST', podsIn(ns), pod('b', { priorityClassName: 'no-such-class' }));
    expect(none.status).toBe(403);
    expect(none.json.message).toBe(
      'pods "b" is forbidden: no PriorityClass with name no-such-class was found',
    );
    const mismatch = await ts.req('POST', podsIn(ns), pod('c', { priorityClassName: cls, priority: 7 }));
    expect(mismatch.status).toBe(403);
    expect(mismatch.json.message).toContain(
      'the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 4242',
    );
    const sys = await ts.req('POST', podsIn(ns), pod('d', { priorityClassName: 'system-node-critical' }));
    expect(sys.status, sys.text).toBe(201);
    expect(sys.json.spec.priority).toBe(2000001000);
  });

  it('without a class a pod gets priority 0, or the global default class; one global default only', async () => {
    const s2 = await startServer();
    try {
      const ns = uniqueName('p');
      await s2.req('POST', '/api/v1/namespaces', { metadata: { name: ns } });
      const plain = await s2.req('POST', podsIn(ns), pod('a'));
      expect(plain.json.spec.priority).toBe(0);
      expect(plain.json.spec.priorityClassName).toBeUndefined();
      const mk = (name: string, value: number) =>
        s2.req('POST', PCS, {
          apiVersion: 'scheduling.orch.io/v1',
          kind: 'PriorityClass',
          metadata: { name },
          value,
          globalDefault: true,
        });
      expect((await mk('default-a', 100)).status).toBe(201);
      const second = await mk('default-b', 200);
      expect(second.status).toBe(403);
      expect(second.json.message).toBe(
        'priorityclasses.scheduling.orch.io "default-b" is forbidden: PriorityClass default-a is already marked as default. Only one default can exist',
      );
      const dflt = await s2.req('POST', podsIn(ns), pod('b'));
      expect(dflt.json.spec).toMatchObject({ priorityClassName: 'default-a', priority: 100 });
    } finally {
      await s2.close();
    }
  });
});

describe('RuntimeClass', () => {
  const RCS = '/apis/node.orch.io/v1/runtimeclasses';
  it('fills overhead and scheduling from the class; refuses a pod overhead without one and an unknown class', async () => {
    const ns = await namespace();
    const rc = uniqueName('rc');
    const c = await ts.req('POST', RCS, {
      apiVersion: 'node.orch.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: rc },
      handler: 'kata',
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: {
        nodeSelector: { sandbox: 'yes' },
        tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }],
      },
    });
    expect(c.status, c.text).toBe(201);
    const ok = await ts.req('POST', podsIn(ns), pod('a', { runtimeClassName: rc }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.spec.overhead).toEqual({ cpu: '250m', memory: '120Mi' });
    expect(ok.json.spec.nodeSelector).toEqual({ sandbox: 'yes' });
    expect(ok.json.spec.tolerations).toContainEqual({
      key: 'sandbox',
      operator: 'Exists',
      effect: 'NoSchedule',
    });
    const conflict = await ts.req(
      'POST',
      podsIn(ns),
      pod('b', { runtimeClassName: rc, nodeSelector: { sandbox: 'no' } }),
    );
    expect(conflict.status).toBe(403);
    expect(conflict.json.message).toContain(
      'conflict: runtimeClass.scheduling.nodeSelector[sandbox] = yes; pod.spec.nodeSelector[sandbox] = no',
    );
    const own = await ts.req('POST', podsIn(ns), pod('c', { overhead: { cpu: '1' } }));
    expect(own.status).toBe(403);
    expect(own.json.message).toBe(
      'pods "c" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
    );
    const differs = await ts.req(
      'POST',
      podsIn(ns),
      pod('d', { runtimeClassName: rc, overhead: { cpu: '1' } }),
    );
    expect(differs.json.message).toContain(
      "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
    );
    const missing = await ts.req('POST', podsIn(ns), pod('e', { runtimeClassName: 'nope' }));
    expect(missing.status).toBe(403);
    expect(missing.json.message).toContain('pod rejected: RuntimeClass "nope" not found');
  });
});

describe('LimitRanger', () => {
  it('applies default requests and limits to containers, and enforces min, max and ratio', async () => {
    const ns = await namespace();
    const lr = await ts.req('POST', `/api/v1/namespaces/${ns}/limitranges`, {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'lr' },
      spec: {
        limits: [
          {
            type: 'Container',
            default: { cpu: '500m' },
            defaultRequest: { cpu: '100m' },
            max: { cpu: '1' },
            min: { memory: '16Mi' },
            maxLimitRequestRatio: { cpu: '10' },
          },
          { type: 'PersistentVolumeClaim', max: { storage: '2Gi' } },
        ],
      },
    });
    expect(lr.status, lr.text).toBe(201);
    const ok = await ts.req(
      'POST',
      podsIn(ns),
      pod('a', {}, [{ name: 'app', image: 'nginx:1.25', resources: { requests: { memory: '32Mi' } } }]),
    );
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.spec.containers[0].resources).toEqual({
      limits: { cpu: '500m' },
      requests: { cpu: '100m', memory: '32Mi' },
    });
    expect(ok.json.metadata.annotations['orch.io/limit-ranger']).toBe(
      'LimitRanger plugin set: cpu limit for container app; cpu request for container app',
    );
    const big = await ts.req(
      'POST',
      podsIn(ns),
      pod('b', {}, [
        {
          name: 'app',
          image: 'nginx:1.25',
          resources: { limits: { cpu: '2' }, requests: { memory: '32Mi' } },
        },
      ]),
    );
    expect(big.status).toBe(403);
    expect(big.json.message).toContain('maximum cpu usage per Container is 1, but limit is 2');
    const small = await ts.req(
      'POST',
      podsIn(ns),
      pod('c', {}, [{ name: 'app', image: 'nginx:1.25', resources: { requests: { memory: '8Mi' } } }]),
    );
    expect(small.json.message).toContain('minimum memory usage per Container is 16Mi, but request is 8Mi');
    const ratio = await ts.req(
      'POST',
      podsIn(ns),
      pod('d', {}, [
        {
          name: 'app',
          image: 'nginx:1.25',
          resources: { limits: { cpu: '1' }, requests: { cpu: '50m', memory: '32Mi' } },
        },
      ]),
    );
    expect(ratio.json.message).toContain(
      'cpu max limit to request ratio per Container is 10, but provided ratio is 20.000000',
    );
    const pvc = await ts.req('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'big' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: '',
        resources: { requests: { storage: '5Gi' } },
      },
    });
    expect(pvc.status).toBe(403);
    expect(pvc.json.message).toBe(
      'persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi',
    );
  });
});

describe('ResourceQuota', () => {
  it('records usage in status.used and refuses creations over quota with exceeded quota: ...', async () => {
    const ns = await namespace();
    const q = await ts.req('POST', `/api/v1/namespaces/${ns}/resourcequotas`, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { pods: '2', 'requests.cpu': '1', configmaps: '1' } },
    });
    expect(q.status, q.text).toBe(201);
    expect(q.json.status).toEqual({
      hard: { pods: '2', 'requests.cpu': '1', configmaps: '1' },
      used: { pods: '0', 'requests.cpu': '0', configmaps: '0' },
    });
    const withCpu = (name: string, cpu: string) =>
      pod(name, {}, [{ name: 'app', image: 'nginx:1.25', resources: { requests: { cpu } } }]);
    const noCpu = await ts.req('POST', podsIn(ns), pod('x'));
    expect(noCpu.status).toBe(403);
    expect(noCpu.json.message).toBe(
      'pods "x" is forbidden: failed quota: q: must specify requests.cpu for: app',
    );
    expect((await ts.req('POST', podsIn(ns), withCpu('a', '600m'))).status).toBe(201);
    const used = await ts.req('GET', `/api/v1/namespaces/${ns}/resourcequotas/q`);
    expect(used.json.status.used).toEqual({ pods: '1', 'requests.cpu': '600m', configmaps: '0' });
    const over = await ts.req('POST', podsIn(ns), withCpu('b', '500m'));
    expect(over.status).toBe(403);
    expect(over.json.reason).toBe('Forbidden');
    expect(over.json.message).toBe(
      'pods "b" is forbidden: exceeded quota: q, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1',
    );
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    expect((await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, cm('one'))).status).toBe(201);
    const two = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, cm('two'));
    expect(two.json.message).toBe(
      'configmaps "two" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=1, limited: configmaps=1',
    );
    // a deletion gives the usage back
    expect((await ts.req('DELETE', `/api/v1/namespaces/${ns}/configmaps/one`)).status).toBe(200);
    expect(
      (await ts.req('GET', `/api/v1/namespaces/${ns}/resourcequotas/q`)).json.status.used.configmaps,
    ).toBe('0');
    expect((await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, cm('two'))).status).toBe(201);
  });

  it('a scoped quota counts only the pods in its scope', async () => {
    const ns = await namespace();
    await ts.req('POST', `/api/v1/namespaces/${ns}/resourcequotas`, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'best-effort' },
      spec: { hard: { pods: '1' }, scopes: ['BestEffort'] },
    });
    expect((await ts.req('POST', podsIn(ns), pod('a'))).status).toBe(201);
    expect((await ts.req('POST', podsIn(ns), pod('b'))).status).toBe(403);
    const sized = pod('c', {}, [
      { name: 'app', image: 'nginx:1.25', resources: { requests: { cpu: '10m' } } },
    ]);
    expect((await ts.req('POST', podsIn(ns), sized)).status).toBe(201);
  });

  it('the CrossNamespacePodAffinity scope counts the pods whose affinity terms name or select namespaces', async () => {
    const ns = await namespace();
    const q = await ts.req('POST', `/api/v1/namespaces/${ns}/resourcequotas`, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'cross' },
      spec: {
        hard: { pods: '1' },
        scopeSelector: { matchExpressions: [{ scopeName: 'CrossNamespacePodAffinity', operator: 'Exists' }] },
      },
    });
    expect(q.status, q.text).toBe(201);
    const term = (extra: Record<string, unknown>) => ({
      labelSelector: { matchLabels: { app: 'x' } },
      topologyKey: 'zone',
      ...extra,
    });
    const withAffinity = (name: string, affinity: Record<string, unknown>) => ({
      ...pod(name),
      spec: { ...(pod(name).spec as object), affinity },
    });
    // within its own namespace only: not in scope
    const local = withAffinity('local', {
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({})] },
    });
    expect((await ts.req('POST', podsIn(ns), local)).status).toBe(201);
    expect((await ts.req('POST', podsIn(ns), pod('plain'))).status).toBe(201);
    const named = withAffinity('named', {
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ namespaces: ['other'] })] },
    });
    expect((await ts.req('POST', podsIn(ns), named)).status).toBe(201);
    // a preferred anti-affinity term selecting namespaces is in scope too: over the quota
    const selected = withAffinity('selected', {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 1, podAffinityTerm: term({ namespaceSelector: {} }) },
        ],
      },
    });
    const over = await ts.req('POST', podsIn(ns), selected);
    expect(over.status).toBe(403);
    expect(over.json.message).toBe(
      'pods "selected" is forbidden: exceeded quota: cross, requested: pods=1, used: pods=1, limited: pods=1',
    );
  });
});

describe('DefaultIngressClass and DefaultStorageClass', () => {
  it('fill the default class into new objects naming none; two defaults refuse such creations', async () => {
    const s2 = await startServer();
    try {
      const ns = uniqueName('p');
      await s2.req('POST', '/api/v1/namespaces', { metadata: { name: ns } });
      const ICS = '/apis/networking.orch.io/v1/ingressclasses';
      const SCS = '/apis/storage.orch.io/v1/storageclasses';
      const ic = (name: string) => ({
        metadata: { name, annotations: { 'ingressclass.orch.io/is-default-class': 'true' } },
        spec: { controller: 'example.com/ingress' },
      });
      const sc = (name: string) => ({
        metadata: { name, annotations: { 'storageclass.orch.io/is-default-class': 'true' } },
        provisioner: 'example.com/disk',
      });
      const ing = (name: string) => ({
        metadata: { name },
        spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
      });
      const claim = (name: string, extra: Record<string, unknown> = {}) => ({
        metadata: { name },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...extra },
      });
      const INGS = `/apis/networking.orch.io/v1/namespaces/${ns}/ingresses`;
      const PVCS = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
      expect((await s2.req('POST', INGS, ing('none'))).json.spec.ingressClassName).toBeUndefined();
      expect((await s2.req('POST', ICS, ic('one'))).status).toBe(201);
      expect((await s2.req('POST', SCS, sc('fast'))).status).toBe(201);
      expect((await s2.req('POST', INGS, ing('a'))).json.spec.ingressClassName).toBe('one');
      expect((await s2.req('POST', PVCS, claim('a'))).json.spec.storageClassName).toBe('fast');
      expect(
        (await s2.req('POST', PVCS, claim('empty', { storageClassName: '' }))).json.spec.storageClassName,
      ).toBe('');
      await s2.req('POST', ICS, ic('two'));
      await s2.req('POST', SCS, sc('slow'));
      const ing2 = await s2.req('POST', INGS, ing('b'));
      expect(ing2.status).toBe(403);
      expect(ing2.json.message).toBe(
        'ingresses.networking.orch.io "b" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed',
      );
      const named = await s2.req('POST', INGS, {
        ...ing('c'),
        spec: { ...ing('c').spec, ingressClassName: 'two' },
      });
      expect(named.status).toBe(201);
      const pvc2 = await s2.req('POST', PVCS, claim('b'));
      expect(pvc2.status).toBe(403);
      expect(pvc2.json.message).toBe(
        'persistentvolumeclaims "b" is forbidden: Internal error occurred: 2 default StorageClasses were found',
      );
    } finally {
      await s2.close();
    }
  });
});

describe('PersistentVolumeClaimResize and StorageObjectInUseProtection', () => {
  it('a bound claim grows only when its class allows expansion', async () => {
    const ns = await namespace();
    const SCS = '/apis/storage.orch.io/v1/storageclasses';
    const grow = uniqueName('grow');
    const fixed = uniqueName('fixed');
    await ts.req('POST', SCS, {
      metadata: { name: grow },
      provisioner: 'example.com/disk',
      allowVolumeExpansion: true,
    });
    await ts.req('POST', SCS, { metadata: { name: fixed }, provisioner: 'example.com/disk' });
    const PVCS = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
    const bound = async (name: string, cls: string) => {
      const c = await ts.req('POST', PVCS, {
        metadata: { name },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: cls,
          resources: { requests: { storage: '1Gi' } },
        },
      });
      expect(c.status, c.text).toBe(201);
      const s = await ts.req('PUT', `${PVCS}/${name}/status`, {
        ...c.json,
        status: { phase: 'Bound', capacity: { storage: '1Gi' } },
      });
      expect(s.status, s.text).toBe(200);
      return s.json;
    };
    const resize = (o: any) =>
      ts.req('PUT', `${PVCS}/${o.metadata.name}`, {
        ...o,
        spec: { ...o.spec, resources: { requests: { storage: '2Gi' } } },
      });
    const ok = await resize(await bound('a', grow));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.spec.resources.requests.storage).toBe('2Gi');
    const no = await resize(await bound('b', fixed));
    expect(no.status).toBe(403);
    expect(no.json.message).toBe(
      'persistentvolumeclaims "b" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
  });

  it('new claims and volumes get protection finalizers; a claim in use stays until its pod is gone', async () => {
    const ns = await namespace();
    const PVCS = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
    const c = await ts.req('POST', PVCS, {
      metadata: { name: 'data' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: '',
        resources: { requests: { storage: '1Gi' } },
      },
    });
    expect(c.json.metadata.finalizers).toEqual(['orch.io/pvc-protection']);
    const pv = await ts.req('POST', '/api/v1/persistentvolumes', {
      metadata: { name: uniqueName('pv') },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
    });
    expect(pv.json.metadata.finalizers).toEqual(['orch.io/pv-protection']);
    const user = pod('user', { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] }, [
      { name: 'app', image: 'nginx:1.25', volumeMounts: [{ name: 'd', mountPath: '/d' }] },
    ]);
    expect((await ts.req('POST', podsIn(ns), user)).status).toBe(201);
    const del = await ts.req('DELETE', `${PVCS}/data`);
    expect(del.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const still = await ts.req('GET', `${PVCS}/data`);
    expect(still.status).toBe(200);
    expect(still.json.metadata.deletionTimestamp).toBeDefined();
    await ts.req('DELETE', `${podsIn(ns)}/user?gracePeriodSeconds=0`);
    let gone = 0;
    for (let i = 0; i < 50 && gone !== 404; i++) {
      await new Promise((r) => setTimeout(r, 50));
      gone = (await ts.req('GET', `${PVCS}/data`)).status;
    }
    expect(gone).toBe(404);
    // an unbound volume goes at once
    expect((await ts.req('DELETE', `/api/v1/persistentvolumes/${pv.json.metadata.name}`)).status).toBe(200);
    let pvGone = 0;
    for (let i = 0; i < 50 && pvGone !== 404; i++) {
      await new Promise((r) => setTimeout(r, 50));
      pvGone = (await ts.req('GET', `/api/v1/persistentvolumes/${pv.json.metadata.name}`)).status;
    }
    expect(pvGone).toBe(404);
  });
});
