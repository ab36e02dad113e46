// The garbage collector (`--controllers` garbagecollector, on by default) and the finalizers a
// delete request leaves for it. The expected values are those a real Kubernetes 1.28 cluster
// showed (kube-apiserver and kube-controller-manager v1.28.0 from shared/kubernetes-1.28,
// started by harness/src/control-plane with `--controllers=*,tokencleaner,bootstrapsigner`,
// 2026-11-28, tmp scripts gc-probe.sh and gc-probe2.sh run with kubectl against it and then
// against this server, with the same output): a background delete takes the dependents; a
// foreground delete leaves the owner with deletionTimestamp and `foregroundDeletion` until its
// blocking dependents are gone (a chain goes grandchild first, the child held with
// `foregroundDeletion` too), not waiting for a non-blocking one; an orphan delete removes the
// owner reference (the field goes) and leaves the dependent; a reference to no object, or to
// an object of that name with another uid, has the dependent deleted; a dependent with one
// standing owner keeps it and loses the reference to the absent one; a core/v1
// ReplicationController and a batch/v1 Job orphan by default (the Job's delete warns), a
// Deployment does not; an Event gets no finalizer from a foreground delete; a Deployment marked
// for deletion goes from generation 1 to 2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MERGE = { 'content-type': 'application/merge-patch+json' };

let s: TestServer;
let ns: string;
beforeAll(async () => {
  s = await startServer({ controllers: ['*'] });
  ns = uniqueName('gc');
  expect((await s.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
});
afterAll(() => s.close());

const cms = () => `/api/v1/namespaces/${ns}/configmaps`;
interface Ref {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
  controller?: boolean;
}
async function cm(name: string, owners: Ref[] = [], finalizers?: string[]): Promise<Ref> {
  const r = await s.req('POST', cms(), {
    metadata: {
      name,
      ...(owners.length ? { ownerReferences: owners } : {}),
      ...(finalizers ? { finalizers } : {}),
    },
  });
  expect(r.status, r.text).toBe(201);
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid: r.json.metadata.uid };
}
const get = async (name: string) => {
  const r = await s.req('GET', `${cms()}/${name}`);
  return r.status === 200 ? r.json : undefined;
};
const del = (name: string, policy?: string) =>
  s.req('DELETE', `${cms()}/${name}`, policy ? { propagationPolicy: policy } : undefined);
const release = (name: string) =>
  s.req('PATCH', `${cms()}/${name}`, { metadata: { finalizers: null } }, MERGE);
/** Waits until `f` holds (or the time is up) and says whether it does. */
async function eventually(f: () => Promise<boolean>, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await f()) return true;
    if (Date.now() > end) return false;
    await sleep(20);
  }
}
const gone = (name: string) => eventually(async () => (await get(name)) === undefined);

describe('garbage collector', () => {
  it('a background delete (the default) takes the dependents', async () => {
    const o = await cm('bg-o');
    await cm('bg-d', [{ ...o, blockOwnerDeletion: true }]);
    expect((await del('bg-o')).status).toBe(200);
    expect(await gone('bg-d')).toBe(true);
  });

  it('a foreground delete: the owner waits, marked, for its blocking dependents', async () => {
    const o = await cm('fg-o');
    await cm('fg-d', [{ ...o, blockOwnerDeletion: true }], ['example.com/x']);
    expect((await del('fg-o', 'Foreground')).status).toBe(200);
    expect(await eventually(async () => !!(await get('fg-d'))?.metadata.deletionTimestamp)).toBe(true);
    const owner = await get('fg-o');
    expect(owner.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(owner.metadata.deletionTimestamp).toBeDefined();
    await sleep(200);
    expect(await get('fg-o')).toBeDefined();
    expect((await release('fg-d')).status).toBe(200);
    expect(await gone('fg-d')).toBe(true);
    expect(await gone('fg-o')).toBe(true);
  });

  it('a foreground delete does not wait for a dependent without blockOwnerDeletion', async () => {
    const o = await cm('nb-o');
    await cm('nb-d', [{ ...o, blockOwnerDeletion: false }], ['example.com/x']);
    expect((await del('nb-o', 'Foreground')).status).toBe(200);
    expect(await gone('nb-o')).toBe(true);
    const d = await get('nb-d');
    expect(d.metadata.deletionTimestamp).toBeDefined();
    expect(d.metadata.finalizers).toEqual(['example.com/x']);
    await release('nb-d');
  });

  it('a foreground chain goes from the last dependent up', async () => {
    const o = await cm('ch-o');
    const c = await cm('ch-c', [{ ...o, blockOwnerDeletion: true }]);
    await cm('ch-g', [{ ...c, blockOwnerDeletion: true }], ['example.com/x']);
    expect((await del('ch-o', 'Foreground')).status).toBe(200);
    expect(await eventually(async () => !!(await get('ch-g'))?.metadata.deletionTimestamp)).toBe(true);
    expect((await get('ch-c'))?.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect((await get('ch-o'))?.metadata.finalizers).toEqual(['foregroundDeletion']);
    await release('ch-g');
    for (const n of ['ch-g', 'ch-c', 'ch-o']) expect(await gone(n), n).toBe(true);
  });

  it('an orphan delete removes the owner reference and leaves the dependent', async () => {
    const o = await cm('or-o');
    await cm('or-d', [{ ...o, controller: true, blockOwnerDeletion: true }]);
    expect((await del('or-o', 'Orphan')).status).toBe(200);
    expect(await gone('or-o')).toBe(true);
    await sleep(100);
    const d = await get('or-d');
    expect(d).toBeDefined();
    expect(d.metadata.ownerReferences).toBeUndefined();
    expect(d.metadata.deletionTimestamp).toBeUndefined();
  });

  it('the orphan finalizer of an object without dependents is removed too', async () => {
    await cm('or9', [], ['example.com/x']);
    expect((await del('or9', 'Orphan')).status).toBe(200);
    expect(await eventually(async () => !(await get('or9'))?.metadata.finalizers.includes('orphan'))).toBe(
      true,
    );
    expect((await get('or9')).metadata.finalizers).toEqual(['example.com/x']);
    await release('or9');
  });

  it('a reference to no object, or to another object of that name, has the dependent deleted', async () => {
    await cm('dg-d', [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '6f1b7c4e-0000-4000-8000-000000000001' },
    ]);
    await cm('dg-o');
    await cm('dg-d2', [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'dg-o', uid: '6f1b7c4e-0000-4000-8000-000000000003' },
    ]);
    expect(await gone('dg-d')).toBe(true);
    expect(await gone('dg-d2')).toBe(true);
    expect(await get('dg-o')).toBeDefined();
  });

  it('a standing owner keeps its dependent, whose reference to an absent owner goes', async () => {
    const o = await cm('st-o');
    await cm('st-d', [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '6f1b7c4e-0000-4000-8000-000000000002' },
      o,
    ]);
    expect(await eventually(async () => (await get('st-d'))?.metadata.ownerReferences?.length === 1)).toBe(
      true,
    );
    expect((await get('st-d')).metadata.ownerReferences).toEqual([o]);
  });

  it('a reference to a kind the server does not serve is left alone', async () => {
    await cm('uk-d', [
      {
        apiVersion: 'example.com/v1',
        kind: 'Nothing',
        name: 'n',
        uid: '6f1b7c4e-0000-4000-8000-000000000004',
      },
    ]);
    await sleep(300);
    expect(await get('uk-d')).toBeDefined();
  });
});

describe('the finalizers a delete leaves for the garbage collector', () => {
  const owned = async (
    name: string,
    owner: { apiVersion: string; kind: string; name: string; uid: string },
  ) => cm(name, [owner]);

  it('a core/v1 ReplicationController orphans its dependents by default', async () => {
    const rc = await s.req('POST', `/api/v1/namespaces/${ns}/replicationcontrollers`, {
      metadata: { name: 'rc' },
      spec: {
        replicas: 0,
        selector: { a: 'b' },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    });
    expect(rc.status, rc.text).toBe(201);
    await owned('rc-d', {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      name: 'rc',
      uid: rc.json.metadata.uid,
    });
    expect((await s.req('DELETE', `/api/v1/namespaces/${ns}/replicationcontrollers/rc`)).status).toBe(200);
    expect(await eventually(async () => (await get('rc-d'))?.metadata.ownerReferences === undefined)).toBe(
      true,
    );
  });

  it('a batch/v1 Job orphans its dependents by default, and the delete warns', async () => {
    const job = await s.req('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, {
      metadata: { name: 'j' },
      spec: {
        suspend: true,
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } },
      },
    });
    expect(job.status, job.text).toBe(201);
    await owned('j-d', { apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: job.json.metadata.uid });
    const r = await s.req('DELETE', `/apis/batch/v1/namespaces/${ns}/jobs/j`);
    expect(r.status).toBe(200);
    expect(r.headers.warning).toBe(
      '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"',
    );
    expect(r.json.metadata.finalizers).toEqual(['orphan']);
    expect(await eventually(async () => (await get('j-d'))?.metadata.ownerReferences === undefined)).toBe(
      true,
    );
  });

  const deployment = (name: string, finalizers?: string[]) =>
    s.req('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      metadata: { name, ...(finalizers ? { finalizers } : {}) },
      spec: {
        replicas: 0,
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    });

  it('a Deployment takes its dependents by default', async () => {
    const d = await deployment('d');
    expect(d.status, d.text).toBe(201);
    await owned('d-d', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: d.json.metadata.uid });
    expect((await s.req('DELETE', `/apis/apps/v1/namespaces/${ns}/deployments/d`)).status).toBe(200);
    expect(await gone('d-d')).toBe(true);
  });

  it('a deletion mark counts as a change of generation', async () => {
    const d = await deployment('dg', ['example.com/x']);
    expect(d.status, d.text).toBe(201);
    const r = await s.req('DELETE', `/apis/apps/v1/namespaces/${ns}/deployments/dg`);
    expect(r.status).toBe(200);
    expect(r.json.metadata.generation).toBe(d.json.metadata.generation + 1);
    expect(r.json.metadata.finalizers).toEqual(['example.com/x']);
    await s.req(
      'PATCH',
      `/apis/apps/v1/namespaces/${ns}/deployments/dg`,
      { metadata: { finalizers: null } },
      MERGE,
    );
  });

  it('an Event gets no finalizer from a foreground delete', async () => {
    const ev = await s.req('POST', `/api/v1/namespaces/${ns}/events`, {
      metadata: { name: 'ev', finalizers: ['example.com/x'] },
      involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
      reason: 'R',
      message: 'm',
      type: 'Normal',
    });
    expect(ev.status, ev.text).toBe(201);
    const r = await s.req('DELETE', `/api/v1/namespaces/${ns}/events/ev`, {
      propagationPolicy: 'Foreground',
    });
    expect(r.status).toBe(200);
    expect(r.json.metadata.finalizers).toEqual(['example.com/x']);
    await s.req('PATCH', `/api/v1/namespaces/${ns}/events/ev`, { metadata: { finalizers: null } }, MERGE);
  });
});
