// The root-CA publisher (`--controllers` root-ca-cert-publisher, on by default). The expected
// values are those a real Kubernetes 1.28 cluster showed (kube-apiserver and
// kube-controller-manager v1.28.0 from shared/kubernetes-1.28, started by
// harness/src/control-plane, `--controllers=*,tokencleaner,bootstrapsigner`, 2026-11-28, read
// with kubectl): `kube-root-ca.crt` in default, kube-system, kube-public, kube-node-lease and a
// new namespace within a second; one data key `ca.crt` equal to the serving CA; no labels; the
// annotation `kubernetes.io/description`; an added data key removed at once while an added
// label, annotation and binaryData stay; a changed `ca.crt` and a removed description set
// back; a deleted one made again (a new uid); in a terminating namespace, deleted with its
// content and not made again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const CM = 'orch-root-ca.crt';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the orch-apiserver when using internal endpoints such as the internal service IP or orch.default.svc. No other usage is guaranteed across distributions of orch clusters.';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(f: () => Promise<T | undefined>, ms = 2000): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined || Date.now() > end) return v;
    await sleep(20);
  }
}

describe('root-CA publisher (HTTPS server)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ tls: true, controllers: ['*'] });
  });
  afterAll(() => s.close());

  const path = (ns: string) => `/api/v1/namespaces/${ns}/configmaps/${CM}`;
  const read = (ns: string) => s.req('GET', path(ns)).then((r) => (r.status === 200 ? r.json : undefined));
  const namespace = async () => {
    const ns = uniqueName('rootca');
    expect((await s.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    return ns;
  };

  it('publishes the serving CA in every namespace, the system ones included', async () => {
    for (const ns of ['default', 'orch-system', 'orch-public', 'orch-node-lease']) {
      const cm = await until(() => read(ns));
      expect(cm?.data, ns).toEqual({ 'ca.crt': s.server.caPem });
    }
  });

  it('in a new namespace: one key ca.crt, the description annotation, no labels', async () => {
    const ns = await namespace();
    const cm = await until(() => read(ns));
    expect(cm.data).toEqual({ 'ca.crt': s.server.caPem });
    expect(cm.data['ca.crt']).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(cm.metadata.annotations).toEqual({ 'orch.io/description': DESCRIPTION });
    expect(cm.metadata.labels).toBeUndefined();
    expect(cm.binaryData).toBeUndefined();
    // written by the controller manager, as an Update
    expect(
      cm.metadata.managedFields.map((m: { manager: string; operation: string }) => [m.manager, m.operation]),
    ).toEqual([['orch-controller-manager', 'Update']]);
  });

  it('an added key goes, an added label, annotation and binaryData stay', async () => {
    const ns = await namespace();
    await until(() => read(ns));
    const r = await s.req(
      'PATCH',
      path(ns),
      {
        data: { extra: 'x' },
        binaryData: { b: 'AAAA' },
        metadata: { labels: { l: 'v' }, annotations: { a: 'b' } },
      },
      MERGE,
    );
    expect(r.status, r.text).toBe(200);
    const cm = await until(async () => {
      const c = await read(ns);
      return c && !('extra' in c.data) ? c : undefined;
    });
    expect(cm?.data).toEqual({ 'ca.crt': s.server.caPem });
    expect(cm?.metadata.labels).toEqual({ l: 'v' });
    expect(cm?.metadata.annotations).toEqual({ a: 'b', 'orch.io/description': DESCRIPTION });
    expect(cm?.binaryData).toEqual({ b: 'AAAA' });
  });

  it('a changed ca.crt and a removed description are set back', async () => {
    const ns = await namespace();
    await until(() => read(ns));
    expect((await s.req('PATCH', path(ns), { data: { 'ca.crt': 'bogus' } }, MERGE)).status).toBe(200);
    expect(
      (await until(async () => ((await read(ns))?.data['ca.crt'] === s.server.caPem ? true : undefined))) ??
        false,
    ).toBe(true);
    const off = await s.req(
      'PATCH',
      path(ns),
      { metadata: { annotations: { 'orch.io/description': null } } },
      MERGE,
    );
    expect(off.status).toBe(200);
    const back = await until(async () => {
      const c = await read(ns);
      return c?.metadata.annotations?.['orch.io/description'] ? c : undefined;
    });
    expect(back?.metadata.annotations['orch.io/description']).toBe(DESCRIPTION);
  });

  it('a deleted one is made again (a new object)', async () => {
    const ns = await namespace();
    const first = await until(() => read(ns));
    expect((await s.req('DELETE', path(ns))).status).toBe(200);
    const again = await until(async () => {
      const c = await read(ns);
      return c && c.metadata.uid !== first.metadata.uid ? c : undefined;
    });
    expect(again?.data).toEqual({ 'ca.crt': s.server.caPem });
  });

  it('a terminating namespace loses it with its content and gets no new one', {
    timeout: 15_000,
  }, async () => {
    const ns = await namespace();
    await until(() => read(ns));
    // a finalizer keeps the namespace terminating
    const held = await s.req('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    expect(held.status).toBe(201);
    expect((await s.req('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    // the namespace controller begins 5 s after the deletion (1.28's grace period)
    const gone = await until(async () => ((await read(ns)) ? undefined : true), 8000);
    expect(gone).toBe(true);
    await sleep(300);
    expect(await read(ns)).toBeUndefined();
    const release = await s.req(
      'PATCH',
      `/api/v1/namespaces/${ns}/configmaps/held`,
      { metadata: { finalizers: null } },
      MERGE,
    );
    expect(release.status).toBe(200);
  });
});

describe('root-CA publisher (plain HTTP server)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ tls: false, controllers: ['*'] });
  });
  afterAll(() => s.close());

  // no run shows this (a 1.28 API server serves HTTPS only): 1.28's startRootCACertPublisher
  // publishes the CA data of the controller manager's connection, which plain HTTP lacks
  it('publishes an empty ca.crt: the server has no CA to hand out', async () => {
    const cm = await until(() =>
      s
        .req('GET', `/api/v1/namespaces/default/configmaps/${CM}`)
        .then((r) => (r.status === 200 ? r.json : undefined)),
    );
    expect(cm?.data).toEqual({ 'ca.crt': '' });
  });
});

describe('--controllers=-root-ca-cert-publisher', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ tls: true, controllers: ['*', '-root-ca-cert-publisher'] });
  });
  afterAll(() => s.close());

  it('publishes nothing', async () => {
    await sleep(200);
    expect((await s.req('GET', `/api/v1/namespaces/default/configmaps/${CM}`)).status).toBe(404);
  });
});
