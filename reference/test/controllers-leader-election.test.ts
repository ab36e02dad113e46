// Leader election among servers sharing one store (the reference's own design, after
// Kubernetes' controller manager: a Lease `orch-controller-manager` in orch-system, 15 s,
// renewed every 2 s): two controller managers on one registry, only the holder runs its
// controllers; when it stops renewing, the other takes over once the lease has expired.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControllers } from '../src/controllers/manager.ts';
import { startServer, type TestServer } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE = '/apis/coordination.orch.io/v1/namespaces/orch-system/leases/orch-controller-manager';
const CM = '/api/v1/namespaces/default/configmaps/orch-root-ca.crt';

describe('leader election (a shared store)', () => {
  let s: TestServer;
  // a clock the test moves on
  let skew = 0;
  const now = () => Date.now() + skew;
  beforeAll(async () => {
    s = await startServer({ controllers: [] });
  });
  afterAll(() => s.close());

  it('only the Lease holder runs the controllers; another takes over once the lease expires', async () => {
    const env = { registry: s.server.registry, now };
    const a = startControllers(env, {
      controllers: ['root-ca-cert-publisher'],
      caBundle: 'A',
      leaderElect: true,
    });
    await sleep(300);
    const b = startControllers(env, {
      controllers: ['root-ca-cert-publisher'],
      caBundle: 'B',
      leaderElect: true,
    });
    try {
      await sleep(300);
      const lease = (await s.req('GET', LEASE)).json;
      expect(lease.spec).toMatchObject({ leaseDurationSeconds: 15, leaseTransitions: 0 });
      expect(lease.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect((await s.req('GET', CM)).json.data).toEqual({ 'ca.crt': 'A' });
      a.stop();
      skew = 16_000;
      const end = Date.now() + 5000;
      let data: unknown;
      while (Date.now() < end) {
        data = (await s.req('GET', CM)).json.data;
        if ((data as Record<string, string>)['ca.crt'] === 'B') break;
        await sleep(100);
      }
      expect(data).toEqual({ 'ca.crt': 'B' });
      const taken = (await s.req('GET', LEASE)).json;
      expect(taken.spec.leaseTransitions).toBe(1);
      expect(taken.spec.holderIdentity).not.toBe(lease.spec.holderIdentity);
    } finally {
      a.stop();
      b.stop();
    }
  });
});
