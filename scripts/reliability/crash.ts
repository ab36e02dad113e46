// `npm run reliability:crash`: kill -9 of the reference server during concurrent writes,
// repeated, on each backend; on etcd also kill -9 of etcd under load and of one of two servers
// on one etcd. Checks after each fault that no acknowledged write is lost, that resource
// versions never go back, and that watchers resume from their last version or get 410 Gone.
//
//   tsx scripts/reliability/crash.ts [--backend wal|etcd|both] [--rounds 20] [--writers 16]
//       [--watchers 3] [--etcd-rounds 3] [--peer-rounds 3] [--seed N] [--report FILE]
//       [--server-flag=--FLAG=VALUE ...] (more `serve` flags, e.g. --server-flag=--compact-bytes=262144)
//
// Prints each round and a table per backend; exits 1 on any finding.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runCrash, table } from './crash/run.ts';
import type { BackendKind } from './server.ts';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'both' },
    rounds: { type: 'string', default: '20' },
    writers: { type: 'string', default: '16' },
    watchers: { type: 'string', default: '3' },
    'etcd-rounds': { type: 'string', default: '3' },
    'peer-rounds': { type: 'string', default: '3' },
    seed: { type: 'string' },
    report: { type: 'string' },
    'server-flag': { type: 'string', multiple: true, default: [] },
  },
});

const int = (name: string, v: string | undefined, min: number): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer >= ${min}, got ${v}`);
    process.exit(2);
  }
  return n;
};
const backend = values.backend!;
if (!['wal', 'etcd', 'both'].includes(backend)) {
  console.error(`--backend must be wal, etcd or both, got ${backend}`);
  process.exit(2);
}
const backends: BackendKind[] = backend === 'both' ? ['wal', 'etcd'] : [backend as BackendKind];

const report = await runCrash({
  backends,
  rounds: int('rounds', values.rounds, 1),
  writers: int('writers', values.writers, 1),
  watchers: int('watchers', values.watchers, 1),
  etcdRounds: int('etcd-rounds', values['etcd-rounds'], 0),
  peerRounds: int('peer-rounds', values['peer-rounds'], 0),
  seed: values.seed === undefined ? undefined : int('seed', values.seed, 0),
  serverFlags: values['server-flag'],
  log: (line) => console.log(line),
});

console.log(`\n${table(report.summary)}\n`);
for (const s of report.summary) {
  const failures = Object.entries(s.failures).sort((a, b) => b[1] - a[1]);
  if (!failures.length) continue;
  console.log(`${s.backend} ${s.phase}: answers to writes that were not acknowledged`);
  for (const [what, n] of failures) console.log(`  ${String(n).padStart(6)}  ${what}`);
}
console.log(
  `seed ${report.seed}, ${report.seconds} s: ${report.ok ? 'nothing lost, no version went back' : 'FINDINGS (see above)'}`,
);
if (values.report) writeFileSync(values.report, JSON.stringify(report, null, 2));
process.exit(report.ok ? 0 : 1);
