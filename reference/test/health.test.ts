// Health checks come from the parts that know: the `etcd` check reports the durable store's
// failed state (a failed fdatasync stops the log), `shutdown` turns readiness off while the
// server closes, and a check added by a component appears under its endpoints.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { configMap, startServer, type TestServer } from './helpers.ts';

const fsFault = vi.hoisted(() => ({ failSync: false }));
vi.mock('node:fs', async (importOriginal) =>
  (await import('./fs-fault.ts')).withFailingSync(await importOriginal<typeof import('node:fs')>(), fsFault),
);

describe('health checks', () => {
  let ts: TestServer;

  beforeAll(async () => {
    ts = await startServer({ inMemory: false, dataDir: mkdtempSync(join(tmpdir(), 'orch-health-')), fsync: true });
  });
  afterAll(() => ts?.close());

  it('all green on a working server, with the checks Kubernetes 1.28 names', async () => {
    const r = await ts.req('GET', '/readyz?verbose');
    expect(r.status).toBe(200);
    for (const c of ['ping', 'log', 'etcd', 'poststarthook/crd-informer-synced', 'shutdown'])
      expect(r.text).toContain(`[+]${c} ok`);
    expect((await ts.req('GET', '/livez?verbose')).text).not.toContain('shutdown');
  });

  it('a component may add a check; a failing one fails its endpoint and names itself', async () => {
    let broken = false;
    ts.server.health.add({ name: 'test-check', readyz: true, livez: false, check: () => (broken ? 'broken on purpose' : undefined) });
    expect((await ts.req('GET', '/readyz/test-check')).status).toBe(200);
    broken = true;
    const one = await ts.req('GET', '/readyz/test-check');
    expect(one.status).toBe(500);
    expect(one.text).toContain('broken on purpose');
    const all = await ts.req('GET', '/readyz');
    expect(all.status).toBe(500);
    expect(all.text).toContain('[-]test-check failed: reason withheld');
    expect((await ts.req('GET', '/livez')).status).toBe(200);
    broken = false;
  });

  it('the etcd check goes red once the store\'s log has failed, and stays red', async () => {
    expect((await ts.req('GET', '/livez/etcd')).status).toBe(200);
    const errSpy = vi.spyOn(console, 'error').mockImplementation(() => {});
    fsFault.failSync = true;
    try {
      const w = await ts.req('POST', '/api/v1/namespaces/default/configmaps', configMap('doomed'));
      expect(w.status).toBe(500);
    } finally {
      fsFault.failSync = false;
    }
    const etcd = await ts.req('GET', '/livez/etcd');
    expect(etcd.status).toBe(500);
    expect(etcd.text).toContain('fdatasync');
    const ready = await ts.req('GET', '/readyz?verbose');
    expect(ready.status).toBe(500);
    expect(ready.text).toContain('[-]etcd failed');
    // later writes are refused too, and the check stays red
    const w2 = await ts.req('POST', '/api/v1/namespaces/default/configmaps', configMap('after'));
    expect(w2.status).toBe(500);
    expect((await ts.req('GET', '/healthz')).status).toBe(500);
    errSpy.mockRestore();
  });
});
