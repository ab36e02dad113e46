// Health checks come from the parts that know: the `etcd` check reports the durable store's
// failed state (a failed fdatasync stops the log), `shutdown` turns readiness off while the
// server closes, and a check added by a component appears under its endpoints.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from 'undici';
import { parseServeArgs } from '../src/cli.ts';
import { configMap, scratchDir, startServer, type TestServer } from './helpers.ts';

const fsFault = vi.hoisted(() => ({ failSync: false }));
vi.mock('node:fs', async (importOriginal) =>
  (await import('./fs-fault.ts')).withFailingSync(await importOriginal<typeof import('node:fs')>(), fsFault),
);

describe('health checks', () => {
  let ts: TestServer;
  const dataDir = scratchDir('orch-health-');

  beforeAll(async () => {
    ts = await startServer({ inMemory: false, dataDir, fsync: true });
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
    ts.server.health.add({
      name: 'test-check',
      readyz: true,
      livez: false,
      check: () => (broken ? 'broken on purpose' : undefined),
    });
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

  it("the etcd check goes red once the store's log has failed, and stays red", async () => {
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

describe('the store probe', () => {
  it('a data directory removed under the server fails the etcd check and the log: later writes are refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-health-gone-'));
    const ts = await startServer({ inMemory: false, dataDir: dir, fsync: true });
    const errSpy = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect((await ts.req('GET', '/readyz/etcd')).status).toBe(200);
      expect(
        (await ts.req('POST', '/api/v1/namespaces/default/configmaps', configMap('before'))).status,
      ).toBe(201);
      rmSync(dir, { recursive: true, force: true });
      const etcd = await ts.req('GET', '/livez/etcd');
      expect(etcd.status).toBe(500);
      expect(etcd.text).toContain('the data directory is not usable');
      // nothing written now would survive a restart: nothing more is acknowledged
      expect((await ts.req('POST', '/api/v1/namespaces/default/configmaps', configMap('after'))).status).toBe(
        500,
      );
      expect((await ts.req('GET', '/readyz/etcd-readiness')).status).toBe(500);
    } finally {
      errSpy.mockRestore();
      await ts.close();
    }
  });

  it('an in-memory server has nothing to probe: etcd stays green', async () => {
    const ts = await startServer();
    try {
      expect((await ts.req('GET', '/livez/etcd')).status).toBe(200);
    } finally {
      await ts.close();
    }
  });
});

describe('checks under Kubernetes 1.28 names and order', () => {
  it('readyz: ping, log, etcd, etcd-readiness, informer-sync, the post-start hooks, shutdown; livez without the readiness-only ones', async () => {
    const ts = await startServer();
    try {
      const names = (t: string) => t.split('\n').flatMap((l) => /^\[\+\](\S+) ok$/.exec(l)?.[1] ?? []);
      const ready = names((await ts.req('GET', '/readyz?verbose')).text);
      expect(ready.slice(0, 5)).toEqual(['ping', 'log', 'etcd', 'etcd-readiness', 'informer-sync']);
      expect(ready.at(-1)).toBe('shutdown');
      expect(ready).toContain('poststarthook/crd-informer-synced');
      expect(ready).toContain('poststarthook/rbac/bootstrap-roles');
      const live = names((await ts.req('GET', '/livez?verbose')).text);
      expect(live).toEqual(ready.filter((n) => !['etcd-readiness', 'informer-sync', 'shutdown'].includes(n)));
    } finally {
      await ts.close();
    }
  });
});

describe('--livez-grace-period', () => {
  it('a post-start hook still running is passing on /livez during the grace period (never on /readyz), failing after it', async () => {
    const graced = await startServer({ livezGracePeriodMs: 60_000 });
    const strict = await startServer();
    try {
      for (const ts of [graced, strict])
        ts.server.health.add({
          name: 'poststarthook/test-slow-hook',
          postStartHook: true,
          check: () => 'not finished',
        });
      expect((await graced.req('GET', '/livez')).status).toBe(200);
      expect((await graced.req('GET', '/livez/poststarthook/test-slow-hook')).status).toBe(200);
      expect((await graced.req('GET', '/readyz')).status).toBe(500);
      expect((await strict.req('GET', '/livez')).status).toBe(500);
      // a check that is not a post-start hook is never graced
      graced.server.health.add({ name: 'test-broken', readyz: false, check: () => 'broken' });
      expect((await graced.req('GET', '/livez')).status).toBe(500);
    } finally {
      await graced.close();
      await strict.close();
    }
  });

  it('flags: Go durations; anything else is a usage error', () => {
    const c = parseServeArgs(['--livez-grace-period', '1m30s', '--shutdown-delay-duration=5s'])!;
    expect([c.options.livezGracePeriodMs, c.options.shutdownDelayMs]).toEqual([90_000, 5_000]);
    expect(() => parseServeArgs(['--shutdown-delay-duration', '5'])).toThrow(/is not a duration/);
    expect(() => parseServeArgs(['--livez-grace-period=-1s'])).toThrow(/is not a duration/);
  });
});

describe('graceful shutdown', () => {
  it('readyz fails at once, requests are served through the delay, then each watch ends (a last BOOKMARK where asked for) and the server closes', async () => {
    const ts = await startServer({ shutdownDelayMs: 600 });
    const watchText = async (path: string) => {
      const r = await request(`${ts.url}${path}`, { headers: { authorization: `Bearer ${ts.token}` } });
      expect(r.statusCode).toBe(200);
      return r.body.text();
    };
    const bookmarked = watchText('/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true');
    const plain = watchText('/api/v1/namespaces/default/configmaps?watch=true');
    await new Promise((r) => setTimeout(r, 100));
    const made = await ts.req('POST', '/api/v1/namespaces/default/configmaps', configMap('seen'));
    const rv = made.json.metadata.resourceVersion;
    const started = Date.now();
    const done = ts.server.shutdown();
    expect((await ts.req('GET', '/readyz')).status).toBe(500);
    expect((await ts.req('GET', '/readyz?verbose')).text).toContain('[-]shutdown failed');
    expect((await ts.req('GET', '/livez')).status).toBe(200);
    expect((await ts.req('GET', '/api/v1/namespaces/default/configmaps/seen')).status).toBe(200);
    const events = (t: string) =>
      t
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    const b = events(await bookmarked);
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    expect(b.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(Number(b[1].object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rv));
    expect(events(await plain).map((e) => e.type)).toEqual(['ADDED']);
    await done;
    await expect(request(`${ts.url}/readyz`)).rejects.toThrow();
  });
});
