// The fuzzing measurement: a seeded stream of random and malformed requests against the
// reference server on each storage backend (real child processes), every answer checked
// (fuzz/check.ts), the health and a canary object checked as it goes (fuzz/run.ts).
//
//   npm run reliability:fuzz -- [--backend wal|etcd|both] [--requests N] [--seed S]
//                               [--concurrency C] [--report FILE] [--replay I[,J...]]
//
// The seed is printed; the same seed builds the same requests (request i from the seed and i
// alone), so a violation's index replays it: `--seed S --replay I` sends just that request to a
// fresh server and prints the answer. Exit code 1 on any violation.
import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { describeRequest } from './fuzz/check.ts';
import { pidAlive } from './fuzz/health.ts';
import { generateRequest } from './fuzz/request.ts';
import { type FuzzResult, prepare, runFuzz } from './fuzz/run.ts';
import { send } from './fuzz/send.ts';
import { summaryTable } from './fuzz/summary.ts';
import { BACKENDS, type BackendKind, startBackend } from './server.ts';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'both' },
    requests: { type: 'string', default: '100000' },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
    report: { type: 'string' },
    replay: { type: 'string' },
    'check-every': { type: 'string', default: '2000' },
  },
});

const backends: BackendKind[] =
  values.backend === 'both'
    ? BACKENDS
    : BACKENDS.includes(values.backend as BackendKind)
      ? [values.backend as BackendKind]
      : [];
if (!backends.length) {
  console.error(`--backend must be wal, etcd or both (got ${values.backend})`);
  process.exit(2);
}
const seed = values.seed !== undefined ? Number(values.seed) >>> 0 : randomInt(2 ** 31);
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
console.log(
  `fuzz: seed ${seed}, ${requests} requests per backend, concurrency ${concurrency}, backends ${backends.join(', ')}`,
);

if (values.replay !== undefined) {
  const indexes = values.replay.split(',').map(Number);
  for (const kind of backends) {
    const b = await startBackend(kind);
    try {
      const s = b.servers[0]!;
      const { ctx } = await prepare({
        url: s.url,
        token: s.token,
        alive: () => pidAlive(s.pid()),
        rss: s.rss,
      });
      for (const i of indexes) {
        const r = generateRequest(seed, i, ctx);
        const a = await send(s.url, r);
        console.log(
          `[${kind}] #${i} ${describeRequest(r)}\n  -> ${a.status} ${a.headers['content-type'] ?? ''} ${a.body.subarray(0, 600).toString('utf8')}`,
        );
      }
    } finally {
      await b.stop();
    }
  }
  process.exit(0);
}

const results: { backend: BackendKind; result: FuzzResult }[] = [];
for (const kind of backends) {
  const b = await startBackend(kind);
  try {
    const s = b.servers[0]!;
    const result = await runFuzz(
      { url: s.url, token: s.token, alive: () => pidAlive(s.pid()), rss: s.rss },
      {
        seed,
        requests,
        concurrency,
        checkEvery: Number(values['check-every']),
        onViolation: (v) =>
          console.log(
            `[${kind}] VIOLATION #${v.index}: ${v.problem}\n    ${v.request}\n    -> ${v.status} ${v.answer.slice(0, 200)}`,
          ),
        onProgress: (p) =>
          console.log(
            `[${kind}] ${p.done}/${p.total} ${p.perSecond.toFixed(0)} req/s  ${Object.entries(p.byStatus)
              .sort()
              .map(([k, n]) => `${k}:${n}`)
              .join(' ')}  violations ${p.violations}`,
          ),
      },
    );
    results.push({ backend: kind, result });
    if (result.violationCount > 0) console.log(`[${kind}] server stderr (tail):\n${s.stderr().slice(-2000)}`);
  } finally {
    await b.stop();
  }
}

console.log(`\n${summaryTable(results)}`);
console.log(`seed ${seed} (replay a request: --seed ${seed} --replay <index>)`);
if (values.report) {
  writeFileSync(values.report, `${JSON.stringify({ seed, requests, concurrency, results }, null, 2)}\n`);
  console.log(`report: ${values.report}`);
}
process.exit(results.some((r) => r.result.violationCount > 0) ? 1 : 0);
