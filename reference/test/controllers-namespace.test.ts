// The namespace controller (`--controllers` namespace, on by default). The expected values are
// those a real Kubernetes 1.28 cluster showed (kube-apiserver and kube-controller-manager
// v1.28.0 from shared/kubernetes-1.28, started by harness/src/control-plane with
// `--controllers=*,tokencleaner,bootstrapsigner`, 2026-11-28, tmp script ns-probe.sh and kubectl):
// 3 s after the delete the namespace was Terminating with no conditions and all its content
// still there (1.28 waits 5 s); then everything without finalizers was gone (pods,
// deployments, replica sets, the root CA config map, the default service account) and the
// status held five conditions in this order, the remaining ones counted by resource
// (`configmaps.` for the core group) and by finalizer, sorted; once the finalizers were
// removed the namespace went.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe('namespace controller', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ controllers: ['*'] });
  });
  afterAll(() => s.close());

  it('deletes the content 5 s after the delete, reports what finalizers hold, and the namespace goes once it is empty', {
    timeout: 30_000,
  }, async () => {
    const ns = uniqueName('nsc');
    const base = `/api/v1/namespaces/${ns}`;
    expect((await s.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    expect(
      (
        await s.req('POST', `${base}/configmaps`, {
          metadata: { name: 'held', finalizers: ['example.com/hold'] },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await s.req('POST', `${base}/secrets`, {
          metadata: { name: 'held2', finalizers: ['example.com/hold', 'example.com/b'] },
        })
      ).status,
    ).toBe(201);
    expect((await s.req('POST', `${base}/configmaps`, { metadata: { name: 'plain' } })).status).toBe(201);
    await sleep(200);
    expect((await s.req('DELETE', base)).status).toBe(200);
    await sleep(3000);
    const early = (await s.req('GET', base)).json;
    expect(early.status).toEqual({ phase: 'Terminating' });
    expect((await s.req('GET', `${base}/configmaps/plain`)).status).toBe(200);
    // after the grace period
    let ns1: any;
    for (const end = Date.now() + 6000; Date.now() < end; await sleep(100)) {
      ns1 = (await s.req('GET', base)).json;
      if (ns1.status.conditions) break;
    }
    const conds = ns1.status.conditions.map(({ lastTransitionTime, ...c }: any) => {
      expect(lastTransitionTime).toMatch(/Z$/);
      return c;
    });
    expect(conds).toEqual([
      {
        type: 'NamespaceDeletionDiscoveryFailure',
        status: 'False',
        reason: 'ResourcesDiscovered',
        message: 'All resources successfully discovered',
      },
      {
        type: 'NamespaceDeletionGroupVersionParsingFailure',
        status: 'False',
        reason: 'ParsedGroupVersions',
        message: 'All legacy kube types successfully parsed',
      },
      {
        type: 'NamespaceDeletionContentFailure',
        status: 'False',
        reason: 'ContentDeleted',
        message: 'All content successfully deleted, may be waiting on finalization',
      },
      {
        type: 'NamespaceContentRemaining',
        status: 'True',
        reason: 'SomeResourcesRemain',
        message:
          'Some resources are remaining: configmaps. has 1 resource instances, secrets. has 1 resource instances',
      },
      {
        type: 'NamespaceFinalizersRemaining',
        status: 'True',
        reason: 'SomeFinalizersRemain',
        message:
          'Some content in the namespace has finalizers remaining: example.com/b in 1 resource instances, example.com/hold in 2 resource instances',
      },
    ]);
    expect(ns1.status.phase).toBe('Terminating');
    expect((await s.req('GET', `${base}/configmaps/plain`)).status).toBe(404);
    expect((await s.req('GET', `${base}/serviceaccounts/default`)).status).toBe(404);
    expect(
      (await s.req('PATCH', `${base}/configmaps/held`, { metadata: { finalizers: null } }, MERGE)).status,
    ).toBe(200);
    expect(
      (await s.req('PATCH', `${base}/secrets/held2`, { metadata: { finalizers: null } }, MERGE)).status,
    ).toBe(200);
    let status = 0;
    for (const end = Date.now() + 8000; Date.now() < end; await sleep(100)) {
      status = (await s.req('GET', base)).status;
      if (status === 404) break;
    }
    expect(status).toBe(404);
  });

  it('--controllers=*,-namespace: a deleted namespace stays Terminating with its content', async () => {
    const t = await startServer({ controllers: ['*', '-namespace'] });
    try {
      const ns = uniqueName('nsoff');
      expect((await t.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
      expect((await t.req('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
      await sleep(300);
      const r = await t.req('GET', `/api/v1/namespaces/${ns}`);
      expect(r.json.status).toEqual({ phase: 'Terminating' });
    } finally {
      await t.close();
    }
  });
});
