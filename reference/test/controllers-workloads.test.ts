// The replicaset and deployment controllers (`--controllers` replicaset, deployment, on by
// default). The expected values are those a real Kubernetes 1.28 cluster showed
// (kube-apiserver and kube-controller-manager v1.28.0 from shared/kubernetes-1.28, started by
// harness/src/control-plane with `--controllers=*,tokencleaner,bootstrapsigner`, no nodes,
// 2026-11-28; tmp scripts rs-probe.sh and d-probe.sh run with kubectl against it and then
// against this server, the outputs equal but for the hashes, which 1.28 computes from its Go
// structures, and `creationTimestamp: null` in templates). Pods never become ready there
// (no node runs them), nor here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MERGE = { 'content-type': 'application/merge-patch+json' };
const NOT_AVAILABLE = {
  type: 'Available',
  status: 'False',
  reason: 'MinimumReplicasUnavailable',
  message: 'Deployment does not have minimum availability.',
};

let s: TestServer;
let ns: string;
beforeAll(async () => {
  s = await startServer({ controllers: ['*'] });
  ns = uniqueName('wl');
  expect((await s.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
});
afterAll(() => s.close());

const apps = (plural: string, name = '') =>
  `/apis/apps/v1/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
const template = (app: string, image = 'registry.example/app:1') => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'app', image }] },
});
const workload = (kind: string, name: string, replicas: number, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: template(name), ...extra },
});
async function get(path: string) {
  const r = await s.req('GET', path);
  return r.status === 200 ? r.json : undefined;
}
/** Polls `f` until `ok` holds (or 4 s pass) and returns the last value. */
async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 4000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v) || Date.now() > end) return v;
    await sleep(25);
  }
}
const podsOf = async (app: string) =>
  (await s.req('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`)).json.items as any[];
/** Conditions without their times (checked apart). */
const conds = (o: any) =>
  (o?.status?.conditions ?? []).map(({ lastTransitionTime: _t, lastUpdateTime: _u, ...c }: any) => c);
/** The ReplicaSets a Deployment owns, oldest first. */
const replicaSetsOf = async (d: string) =>
  ((await s.req('GET', apps('replicasets'))).json.items as any[])
    .filter((rs) => rs.metadata.ownerReferences?.[0]?.name === d)
    .sort(
      (a, b) =>
        Number(a.metadata.annotations['deployment.orch.io/revision']) -
        Number(b.metadata.annotations['deployment.orch.io/revision']),
    );

describe('replicaset controller', () => {
  it('makes the pods, owned by it as controller, and writes status', async () => {
    expect((await s.req('POST', apps('replicasets'), workload('ReplicaSet', 'r2', 2))).status).toBe(201);
    const rs = await until(
      () => get(apps('replicasets', 'r2')),
      (o) => o?.status?.replicas === 2,
    );
    expect(rs.status).toEqual({ fullyLabeledReplicas: 2, observedGeneration: 1, replicas: 2 });
    const pods = await podsOf('r2');
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(p.metadata.generateName).toBe('r2-');
      expect(p.metadata.name).toMatch(/^r2-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(p.metadata.labels).toEqual({ app: 'r2' });
      expect(p.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'r2',
          uid: rs.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(p.status.phase).toBe('Pending');
      // made through admission, as any client's pod
      expect(p.spec.serviceAccountName).toBe('default');
    }
  });

  it('scales down, and a ReplicaSet of 0 has replicas 0 in status', async () => {
    const r = await s.req('PATCH', apps('replicasets', 'r2'), { spec: { replicas: 1 } }, MERGE);
    expect(r.status).toBe(200);
    const rs = await until(
      () => get(apps('replicasets', 'r2')),
      (o) => o?.status?.observedGeneration === 2,
    );
    expect(rs.status).toEqual({ fullyLabeledReplicas: 1, observedGeneration: 2, replicas: 1 });
    expect(
      await until(
        () => podsOf('r2'),
        (p) => p.length === 1,
      ),
    ).toHaveLength(1);
    expect((await s.req('POST', apps('replicasets'), workload('ReplicaSet', 'r0', 0))).status).toBe(201);
    const zero = await until(
      () => get(apps('replicasets', 'r0')),
      (o) => o?.status?.observedGeneration === 1,
    );
    expect(zero.status).toEqual({ observedGeneration: 1, replicas: 0 });
  });

  it('adopts an orphan pod its selector matches (and deletes it when it has one too many)', async () => {
    const bare = await s.req('POST', `/api/v1/namespaces/${ns}/pods`, {
      metadata: { name: 'bare', labels: { app: 'r0' } },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    expect(bare.status).toBe(201);
    const gone = await until(
      () => get(`/api/v1/namespaces/${ns}/pods/bare`),
      (p) => p === undefined,
    );
    expect(gone).toBeUndefined();
  });

  it('releases a pod its selector no longer matches, and makes another', async () => {
    const [pod] = await podsOf('r2');
    const r = await s.req(
      'PATCH',
      `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`,
      { metadata: { labels: { app: 'other' } } },
      MERGE,
    );
    expect(r.status).toBe(200);
    const released = await until(
      () => get(`/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`),
      (p) => p?.metadata.ownerReferences === undefined,
    );
    expect(released.metadata.ownerReferences).toBeUndefined();
    const pods = await until(
      () => podsOf('r2'),
      (p) => p.length === 1,
    );
    expect(pods.map((p) => p.metadata.name)).not.toContain(pod.metadata.name);
  });

  it('a pod that admission refuses: a ReplicaFailure condition with the refusal', async () => {
    const nsr = uniqueName('wlr');
    const made = await s.req('POST', '/api/v1/namespaces', {
      metadata: { name: nsr, labels: { 'pod-security.orch.io/enforce': 'restricted' } },
    });
    expect(made.status).toBe(201);
    const path = `/apis/apps/v1/namespaces/${nsr}/replicasets`;
    expect((await s.req('POST', path, workload('ReplicaSet', 'rf', 1))).status).toBe(201);
    const rs = await until(
      () => get(`${path}/rf`),
      (o) => !!o?.status?.conditions,
    );
    expect(rs.status.replicas).toBe(0);
    expect(rs.status.observedGeneration).toBe(1);
    const [c] = rs.status.conditions;
    expect(c).toMatchObject({ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate' });
    expect(c.message).toMatch(
      /^pods "rf-[a-z0-9]{5}" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false/,
    );
    expect(c.lastTransitionTime).toBeDefined();
  });
});

describe('deployment controller', () => {
  it('makes a ReplicaSet <name>-<hash> of revision 1 and writes status and the revision', async () => {
    expect((await s.req('POST', apps('deployments'), workload('Deployment', 'a', 2))).status).toBe(201);
    const d = await until(
      () => get(apps('deployments', 'a')),
      (o) => o?.status?.replicas === 2 && conds(o)[1]?.reason === 'ReplicaSetUpdated',
    );
    const [rs] = await replicaSetsOf('a');
    const hash = rs.metadata.labels['pod-template-hash'];
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(rs.metadata.name).toBe(`a-${hash}`);
    expect(rs.metadata.labels).toEqual({ app: 'a', 'pod-template-hash': hash });
    expect(rs.metadata.annotations).toEqual({
      'deployment.orch.io/desired-replicas': '2',
      'deployment.orch.io/max-replicas': '3',
      'deployment.orch.io/revision': '1',
    });
    expect(rs.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'a',
        uid: d.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(rs.spec.replicas).toBe(2);
    expect(rs.spec.selector).toEqual({ matchLabels: { app: 'a', 'pod-template-hash': hash } });
    expect(rs.spec.template.metadata.labels).toEqual({ app: 'a', 'pod-template-hash': hash });
    expect(d.metadata.generation).toBe(1);
    expect(d.metadata.annotations).toEqual({ 'deployment.orch.io/revision': '1' });
    expect(d.status).toMatchObject({
      observedGeneration: 1,
      replicas: 2,
      unavailableReplicas: 2,
      updatedReplicas: 2,
    });
    expect(Object.keys(d.status).sort()).toEqual([
      'conditions',
      'observedGeneration',
      'replicas',
      'unavailableReplicas',
      'updatedReplicas',
    ]);
    expect(conds(d)).toEqual([
      NOT_AVAILABLE,
      {
        type: 'Progressing',
        status: 'True',
        reason: 'ReplicaSetUpdated',
        message: `ReplicaSet "a-${hash}" is progressing.`,
      },
    ]);
    // the revision is written through the status subresource: no new generation
    const managers = d.metadata.managedFields.map((m: any) => [m.manager, m.subresource ?? '']);
    expect(managers).toContainEqual(['orch-controller-manager', 'status']);
  });

  it('a change of replicas scales the ReplicaSet and its annotations', async () => {
    expect((await s.req('PATCH', apps('deployments', 'a'), { spec: { replicas: 3 } }, MERGE)).status).toBe(
      200,
    );
    const d = await until(
      () => get(apps('deployments', 'a')),
      (o) => o?.status?.replicas === 3,
    );
    expect(d.metadata.generation).toBe(2);
    expect(d.status).toMatchObject({
      observedGeneration: 2,
      replicas: 3,
      unavailableReplicas: 3,
      updatedReplicas: 3,
    });
    const rss = await replicaSetsOf('a');
    expect(rss).toHaveLength(1);
    expect(rss[0].spec.replicas).toBe(3);
    expect(rss[0].metadata.annotations).toMatchObject({
      'deployment.orch.io/desired-replicas': '3',
      'deployment.orch.io/max-replicas': '4',
    });
  });

  it('a new template: a ReplicaSet of revision 2, grown within maxSurge while nothing is available', async () => {
    const r = await s.req(
      'PATCH',
      apps('deployments', 'a'),
      { spec: { template: template('a', 'registry.example/app:2') } },
      MERGE,
    );
    expect(r.status).toBe(200);
    const d = await until(
      () => get(apps('deployments', 'a')),
      (o) => o?.status?.observedGeneration === 3 && o?.status?.replicas === 4,
    );
    expect(d.metadata.annotations).toEqual({ 'deployment.orch.io/revision': '2' });
    expect(d.status).toMatchObject({
      observedGeneration: 3,
      replicas: 4,
      unavailableReplicas: 4,
      updatedReplicas: 1,
    });
    const [old, next] = await replicaSetsOf('a');
    expect(old.spec.replicas).toBe(3);
    expect(next.spec.replicas).toBe(1);
    expect(next.metadata.annotations).toEqual({
      'deployment.orch.io/desired-replicas': '3',
      'deployment.orch.io/max-replicas': '4',
      'deployment.orch.io/revision': '2',
    });
    expect(conds(d)[1]).toEqual({
      type: 'Progressing',
      status: 'True',
      reason: 'ReplicaSetUpdated',
      message: `ReplicaSet "${next.metadata.name}" is progressing.`,
    });
  });

  it('a Deployment of 0 replicas is complete and available at once', async () => {
    expect((await s.req('POST', apps('deployments'), workload('Deployment', 'z', 0))).status).toBe(201);
    const d = await until(
      () => get(apps('deployments', 'z')),
      (o) => conds(o)[1]?.reason === 'NewReplicaSetAvailable',
    );
    const [rs] = await replicaSetsOf('z');
    expect(d.status.observedGeneration).toBe(1);
    expect(Object.keys(d.status).sort()).toEqual(['conditions', 'observedGeneration']);
    expect(conds(d)).toEqual([
      {
        type: 'Available',
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      },
      {
        type: 'Progressing',
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        message: `ReplicaSet "${rs.metadata.name}" has successfully progressed.`,
      },
    ]);
    expect(rs.metadata.annotations).toMatchObject({
      'deployment.orch.io/desired-replicas': '0',
      'deployment.orch.io/max-replicas': '0',
    });
  });

  it('Recreate: the old ReplicaSet goes to 0 before the new one grows', async () => {
    expect(
      (
        await s.req(
          'POST',
          apps('deployments'),
          workload('Deployment', 'r', 1, { strategy: { type: 'Recreate' } }),
        )
      ).status,
    ).toBe(201);
    await until(
      () => replicaSetsOf('r'),
      (l) => l.length === 1,
    );
    expect(
      (
        await s.req(
          'PATCH',
          apps('deployments', 'r'),
          { spec: { template: template('r', 'registry.example/app:2') } },
          MERGE,
        )
      ).status,
    ).toBe(200);
    const rss = await until(
      () => replicaSetsOf('r'),
      (l) => l.length === 2 && l[1].spec.replicas === 1 && l[0].status.replicas === 0,
    );
    expect(
      rss.map((rs) => [
        rs.spec.replicas,
        rs.metadata.annotations['deployment.orch.io/revision'],
        rs.metadata.annotations['deployment.orch.io/max-replicas'],
      ]),
    ).toEqual([
      [0, '1', '1'],
      [1, '2', '1'],
    ]);
    const d = await until(
      () => get(apps('deployments', 'r')),
      (o) => o?.status?.updatedReplicas === 1 && o?.status?.replicas === 1,
    );
    expect(d.metadata.annotations).toEqual({ 'deployment.orch.io/revision': '2' });
  });

  it('paused and resumed: Progressing Unknown with DeploymentPaused, then DeploymentResumed', async () => {
    expect((await s.req('POST', apps('deployments'), workload('Deployment', 'p', 1))).status).toBe(201);
    await until(
      () => get(apps('deployments', 'p')),
      (o) => o?.status?.replicas === 1,
    );
    expect((await s.req('PATCH', apps('deployments', 'p'), { spec: { paused: true } }, MERGE)).status).toBe(
      200,
    );
    const paused = await until(
      () => get(apps('deployments', 'p')),
      (o) => conds(o)[1]?.reason === 'DeploymentPaused',
    );
    expect(conds(paused)).toEqual([
      NOT_AVAILABLE,
      { type: 'Progressing', status: 'Unknown', reason: 'DeploymentPaused', message: 'Deployment is paused' },
    ]);
    expect((await s.req('PATCH', apps('deployments', 'p'), { spec: { paused: null } }, MERGE)).status).toBe(
      200,
    );
    const resumed = await until(
      () => get(apps('deployments', 'p')),
      (o) => conds(o)[1]?.reason === 'DeploymentResumed',
    );
    expect(conds(resumed)[1]).toEqual({
      type: 'Progressing',
      status: 'Unknown',
      reason: 'DeploymentResumed',
      message: 'Deployment is resumed',
    });
  });

  it('deleting a Deployment takes its ReplicaSets and their pods (garbage collection)', async () => {
    expect((await s.req('DELETE', apps('deployments', 'a'))).status).toBe(200);
    expect(
      await until(
        () => replicaSetsOf('a'),
        (l) => l.length === 0,
      ),
    ).toEqual([]);
    expect(
      await until(
        () => podsOf('a'),
        (l) => l.length === 0,
      ),
    ).toEqual([]);
  });
});
