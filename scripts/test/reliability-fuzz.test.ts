// The fuzzer's CI run: a small fixed-seed count against the reference on each storage backend
// (real child processes, as the full run: npm run reliability:fuzz). Expects no violation:
// no answer of 500 or more (but doc1's 504), every error a Status, every 2xx parsing, the
// server alive and ready, the canary unchanged.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidAlive } from '../reliability/fuzz/health.ts';
import { runFuzz } from '../reliability/fuzz/run.ts';
import { type Backend, type BackendKind, startBackend } from '../reliability/server.ts';

const REQUESTS = Number(process.env.FUZZ_CI_REQUESTS ?? 1500);
const SEED = 20261125;

/** The etcd backend is built when the server reads `--etcd-servers`. */
function etcdBuilt(): boolean {
  const dir = join(import.meta.dirname, '../../reference/src');
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.includes('storage/etcd/process.ts'))
    .some((f) => readFileSync(join(dir, f), 'utf8').includes('etcd-servers'));
}

const started: Backend[] = [];
afterAll(async () => {
  for (const b of started) await b.stop();
});

describe('fuzz (CI count)', () => {
  const cases: [BackendKind, boolean][] = [
    ['wal', true],
    ['etcd', etcdBuilt()],
  ];
  for (const [kind, runs] of cases)
    it.skipIf(!runs)(
      `${REQUESTS} requests on the ${kind} backend: no violation${runs ? '' : ' (skipped: this build has no --etcd-servers)'}`,
      async () => {
        const b = await startBackend(kind);
        started.push(b);
        const s = b.servers[0]!;
        const r = await runFuzz(
          { url: s.url, token: s.token, alive: () => pidAlive(s.pid()), rss: s.rss },
          { seed: SEED, requests: REQUESTS, concurrency: 8, checkEvery: 500 },
        );
        expect(r.violations, JSON.stringify(r.violations, null, 2)).toEqual([]);
        expect(r.violationCount).toBe(0);
        expect(r.requests).toBe(REQUESTS);
        expect(r.healthChecks).toBeGreaterThanOrEqual(Math.floor(REQUESTS / 500));
        // the mix reached the server: successes and refusals both
        expect(r.byClass['2xx']).toBeGreaterThan(REQUESTS / 20);
        expect(r.byClass['4xx']).toBeGreaterThan(REQUESTS / 4);
        await b.stop();
        started.splice(started.indexOf(b), 1);
      },
      110_000,
    );
});
