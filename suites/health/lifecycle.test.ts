// doc3 § Endpoints, Health, over a server's life: a graceful shutdown is observed through
// /readyz (`--shutdown-delay-duration`: readiness fails at once while requests are still
// served), and a server whose store is gone is not healthy. Each case starts a server process
// of its own (harness/src/server-process.ts) from the command the run declares.
import { describe } from 'vitest';
import { check, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { rmSync } from 'node:fs';
import { type ServerProcess, startServerProcess } from '../../harness/src/server-process.ts';
import type { NamedTarget } from '../../harness/src/targets.ts';
import { FLAGS_RULE, parseListing, SECTION, STATUS_RULE } from './support.ts';

const needs = { serverProcess: true as const };
const DELAY_S = 3;

/** Polls `f` every 100 ms until it returns true, for at most `ms`; the last value otherwise. */
async function until<T>(ms: number, f: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function withServer(target: NamedTarget, delayS: number, body: (s: ServerProcess) => Promise<void>): Promise<void> {
  const s = await startServerProcess(target.declared.serverCommand!, { shutdownDelaySeconds: delayS });
  try {
    await body(s);
  } finally {
    await s.stop();
  }
}

describe('health: a server process of the harness', () => {
  conformance(
    {
      id: 'health/shutdown/readyz-fails-while-serving',
      title: `On SIGTERM with --shutdown-delay-duration=${DELAY_S}s, /readyz stops answering 200 at once while other requests are still served`,
      doc: 3,
      section: SECTION,
      place: FLAGS_RULE,
      level: 'MUST',
    },
    async ({ target }) => {
      await withServer(target, DELAY_S, async (s) => {
        const before = await s.get('/readyz');
        check(before.status === 200, '200 from /readyz before the signal', `${before.status}: ${show(before.text)}`, 'a started server is ready');
        const signalled = Date.now();
        s.child.kill('SIGTERM');
        const ready = await until(1500, () => s.get('/readyz?verbose'), (r) => r.status !== 200);
        check(
          ready.status !== 200 && ready.status !== 0,
          'an answer other than 200 from /readyz within 1.5 s of SIGTERM (the server still answers)',
          `${ready.status}: ${show(ready.text.slice(0, 400))}`,
          'readiness fails as soon as the shutdown starts',
        );
        // still inside the delay: the server goes on serving
        check(Date.now() - signalled < DELAY_S * 1000, `the check made within the ${DELAY_S} s delay`, `${Date.now() - signalled} ms`, 'timing of the case');
        const version = await s.get('/version');
        const live = await s.get('/livez');
        check(
          version.status === 200 && live.status === 200 && Date.now() - signalled < DELAY_S * 1000,
          `/version and /livez still 200 during the ${DELAY_S} s delay`,
          `/version ${version.status}, /livez ${live.status} at ${Date.now() - signalled} ms`,
          'requests are served through the shutdown delay',
        );
      });
    },
    { needs, timeout: 60_000 },
  );

  conformance(
    {
      id: 'health/shutdown/exits-zero',
      title: 'After the shutdown delay the server stops accepting requests and exits with status 0',
      doc: 3,
      section: SECTION,
      place: `${FLAGS_RULE} (the end of a graceful shutdown: not shown; Kubernetes 1.28 exits 0)`,
      level: 'BEYOND',
    },
    async ({ target }) => {
      await withServer(target, 1, async (s) => {
        s.child.kill('SIGTERM');
        const code = await Promise.race([s.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000))]);
        check(code === 0, 'exit status 0 within 30 s of SIGTERM', `${code}; output: ${show(s.output().slice(-600))}`, 'a graceful shutdown ends well');
        const after = await s.get('/readyz', 2000);
        check(after.status === 0, 'no answer once the server is gone', `${after.status}`, 'the server stopped accepting');
      });
    },
    { needs, timeout: 60_000 },
  );

  conformance(
    {
      id: 'health/store/gone',
      title: 'A server whose data directory is removed stops answering 200 on /readyz and /livez',
      doc: 3,
      section: SECTION,
      place: `${STATUS_RULE} (a store that can no longer keep writes is not healthy; how the store is checked: not shown)`,
      level: 'SHOULD',
    },
    async ({ target }) => {
      await withServer(target, 0, async (s) => {
        const before = await s.get('/readyz');
        check(before.status === 200, '200 from /readyz before the data directory is removed', `${before.status}`, 'a started server is ready');
        rmSync(s.dataDir, { recursive: true, force: true });
        for (const endpoint of ['readyz', 'livez']) {
          const r = await until(10_000, () => s.get(`/${endpoint}?verbose`), (x) => x.status !== 200);
          check(
            r.status !== 200 && r.status !== 0,
            `an answer other than 200 from /${endpoint} within 10 s`,
            `${r.status}: ${show(r.text.slice(0, 400))}`,
            'the store can no longer keep what the server acknowledges',
          );
        }
      });
    },
    { needs, timeout: 60_000 },
  );

  conformance(
    {
      id: 'health/store/etcd-check-named',
      title: 'The failing store is named by the etcd check: [-]etcd failed in /readyz?verbose',
      doc: 3,
      section: SECTION,
      place: `${STATUS_RULE} (check names: not shown; Kubernetes 1.28 names the store's check "etcd")`,
      level: 'BEYOND',
    },
    async ({ target }) => {
      await withServer(target, 0, async (s) => {
        rmSync(s.dataDir, { recursive: true, force: true });
        const r = await until(10_000, () => s.get('/readyz?verbose'), (x) => x.status !== 200);
        const l = parseListing(r.status, r.text);
        check(l.failed.includes('etcd'), 'a "[-]etcd failed" line', show(l.lines), 'the store check names itself');
      });
    },
    { needs, timeout: 60_000 },
  );
});
