// The bootstrap signer (`--controllers=*,bootstrapsigner`, off by default). The expected values
// are those a real Kubernetes 1.28 cluster showed (kube-apiserver and kube-controller-manager
// v1.28.0 from shared/kubernetes-1.28, started by harness/src/control-plane with
// `--controllers=*,tokencleaner,bootstrapsigner`, 2026-11-28, with kubectl): cluster-info in
// kube-public holding `kubeconfig: "apiVersion: v1\nkind: Config\nclusters: []\n"` got
// `jws-kubeconfig-abcdef` below for the token abcdef.0123456789abcdef with
// usage-bootstrap-signing "true", none for a token without that usage; the key went when the
// token was deleted; an expired signing token got none; an added jws-kubeconfig-aaaaaa key was
// removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.ts';

const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters: []\n';
const SIGNED_ABCDEF = 'eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9..6noRUKYc6IcJatsCC4tJjBE6Jx8UClLwzsstr66SXaM';
const CM = '/api/v1/namespaces/orch-public/configmaps';
const SECRETS = '/api/v1/namespaces/orch-system/secrets';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const token = (id: string, data: Record<string, string>) => ({
  metadata: { name: `bootstrap-token-${id}` },
  type: 'bootstrap.orch.io/token',
  stringData: { 'token-id': id, 'token-secret': '0123456789abcdef', ...data },
});

describe('bootstrap signer', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ controllers: ['*', 'bootstrapsigner'] });
  });
  afterAll(() => s.close());

  const data = async () => (await s.req('GET', `${CM}/cluster-info`)).json.data as Record<string, string>;
  async function until(ok: (d: Record<string, string>) => boolean): Promise<Record<string, string>> {
    const end = Date.now() + 3000;
    for (;;) {
      const d = await data();
      if (ok(d) || Date.now() > end) return d;
      await sleep(20);
    }
  }

  it('signs cluster-info for each token that may sign, and only for those', async () => {
    expect(
      (await s.req('POST', SECRETS, token('abcdef', { 'usage-bootstrap-signing': 'true' }))).status,
    ).toBe(201);
    expect(
      (await s.req('POST', SECRETS, token('zzzzzz', { 'usage-bootstrap-authentication': 'true' }))).status,
    ).toBe(201);
    expect(
      (await s.req('POST', CM, { metadata: { name: 'cluster-info' }, data: { kubeconfig: KUBECONFIG } }))
        .status,
    ).toBe(201);
    const d = await until((x) => 'jws-kubeconfig-abcdef' in x);
    expect(d).toEqual({ kubeconfig: KUBECONFIG, 'jws-kubeconfig-abcdef': SIGNED_ABCDEF });
  });

  it('an expired token signs nothing; a stray signature goes; a deleted token takes its signature', async () => {
    expect(
      (
        await s.req(
          'POST',
          SECRETS,
          token('qqqqqq', { 'usage-bootstrap-signing': 'true', expiration: '2000-01-01T00:00:00Z' }),
        )
      ).status,
    ).toBe(201);
    const stray = await s.req(
      'PATCH',
      `${CM}/cluster-info`,
      { data: { 'jws-kubeconfig-aaaaaa': 'x' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(stray.status).toBe(200);
    expect(await until((x) => !('jws-kubeconfig-aaaaaa' in x))).toEqual({
      kubeconfig: KUBECONFIG,
      'jws-kubeconfig-abcdef': SIGNED_ABCDEF,
    });
    expect((await s.req('DELETE', `${SECRETS}/bootstrap-token-abcdef`)).status).toBe(200);
    expect(await until((x) => !('jws-kubeconfig-abcdef' in x))).toEqual({ kubeconfig: KUBECONFIG });
  });
});
