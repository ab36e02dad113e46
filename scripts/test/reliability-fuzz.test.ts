// The fuzzer's CI run: a small fixed-seed count against the reference on each storage backend
// (real child processes, as the full run: npm run reliability:fuzz). Expects no violation:
// no answer of 500 or more (but doc1's 504), every error a Status, every 2xx parsing, the
// server alive and ready, the canary unchanged.
import { afterAll, describe, expect, it } from 'vitest';
import { ETCD_MISSING, etcdBinary } from '../../reference/src/etcd-process.ts';
import { pidAlive } from '../reliability/fuzz/health.ts';
import { runFuzz } from '../reliability/fuzz/run.ts';
import { type Backend, type BackendKind, startBackend } from '../reliability/server.ts';

const REQUESTS = Number(process.env.FUZZ_CI_REQUESTS ?? 1500);
const SEED = 20261125;

const started: Backend[] = [];
afterAll(async () => {
  for (const b of started) await b.stop();
});

describe('fuzz (CI count)', () => {
  for (const kind of ['wal', 'etcd'] as BackendKind[])
    it(`${REQUESTS} requests on the ${kind} backend: no violation`, async () => {
      if (kind === 'etcd') expect(etcdBinary(), ETCD_MISSING).toBeDefined();
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
    }, 110_000);
});
