// The soak: N watchers over steady writes for M minutes on each backend; 0 lost, duplicated or
// reordered events, and server memory flat (RSS of the last quarter against the second quarter).
// Writes a JSON result and an HTML page (RSS over time, rates, counts) to the output directory;
// exits 1 when a check fails.
//
//   npm run reliability:soak -- [--backend wal|etcd|both] [--minutes 10] [--watchers 100]
//     [--rate 50] [--servers 1|2] [--out out/soak] [--seconds S] [--watch-timeout 60-300]
//     [--sample 5] [--progress 15] [--settle 60] [--max-growth-pct 25] [--max-growth-mb 50]
//     [--namespaces 4] [--objects 40] [--seed 1] [--bookmark-interval S (the servers' flag)]
//     [--server-flag=--FLAG=VALUE ...] (more `serve` flags, e.g. --server-flag=--etcd-compaction-interval=1m)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { BackendKind } from './server.ts';
import { renderPage } from './soak/page.ts';
import { type SoakResult, soak } from './soak/run.ts';

const { values: a } = parseArgs({
  options: {
    backend: { type: 'string', default: 'both' },
    minutes: { type: 'string', default: '10' },
    seconds: { type: 'string' },
    watchers: { type: 'string', default: '100' },
    rate: { type: 'string', default: '50' },
    servers: { type: 'string', default: '1' },
    out: { type: 'string', default: 'out/soak' },
    'watch-timeout': { type: 'string', default: '60-300' },
    sample: { type: 'string', default: '5' },
    progress: { type: 'string', default: '15' },
    settle: { type: 'string', default: '60' },
    'max-growth-pct': { type: 'string', default: '25' },
    'max-growth-mb': { type: 'string', default: '50' },
    namespaces: { type: 'string', default: '4' },
    objects: { type: 'string', default: '40' },
    seed: { type: 'string', default: '1' },
    'bookmark-interval': { type: 'string' },
    'server-flag': { type: 'string', multiple: true, default: [] },
    help: { type: 'boolean', short: 'h' },
  },
});

if (a.help) {
  process.stdout.write(
    'npm run reliability:soak -- [--backend wal|etcd|both] [--minutes 10 | --seconds S] [--watchers 100]\n' +
      '  [--rate 50] [--servers 1|2 (etcd)] [--out out/soak] [--watch-timeout 60-300] [--sample 5]\n' +
      '  [--progress 15] [--settle 60] [--max-growth-pct 25] [--max-growth-mb 50] [--namespaces 4]\n' +
      "  [--objects 40] [--seed 1] [--bookmark-interval S (the servers' flag)]\n",
  );
  process.exit(0);
}

function num(name: string, v: string | undefined, min: number): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) {
    process.stderr.write(`--${name}: a number of at least ${min} (got ${v})\n`);
    process.exit(2);
  }
  return n;
}

const backends: BackendKind[] =
  a.backend === 'both' ? ['wal', 'etcd'] : a.backend === 'wal' || a.backend === 'etcd' ? [a.backend] : [];
if (!backends.length) {
  process.stderr.write(`--backend: wal, etcd or both (got ${a.backend})\n`);
  process.exit(2);
}
const servers = num('servers', a.servers, 1);
if (servers > 2) {
  process.stderr.write('--servers: 1 or 2\n');
  process.exit(2);
}
const range = /^(\d+)(?:-(\d+))?$/.exec(a['watch-timeout']!);
if (!range) {
  process.stderr.write(`--watch-timeout: SECONDS or MIN-MAX (got ${a['watch-timeout']})\n`);
  process.exit(2);
}
const watchTimeout: [number, number] = [Number(range[1]), Number(range[2] ?? range[1])];
const seconds = a.seconds !== undefined ? num('seconds', a.seconds, 1) : num('minutes', a.minutes, 0.05) * 60;
const out = resolve(a.out!);
mkdirSync(out, { recursive: true });

const results: SoakResult[] = [];
for (const backend of backends) {
  const n = backend === 'wal' ? 1 : servers;
  const r = await soak({
    backend,
    servers: n,
    seconds,
    watchers: num('watchers', a.watchers, 1),
    rate: num('rate', a.rate, 1),
    namespaces: num('namespaces', a.namespaces, 1),
    objectsPerNamespace: num('objects', a.objects, 1),
    watchTimeout,
    sampleSeconds: num('sample', a.sample, 0.2),
    progressSeconds: num('progress', a.progress, 1),
    settleSeconds: num('settle', a.settle, 1),
    historySeconds: 300,
    limits: {
      maxPct: num('max-growth-pct', a['max-growth-pct'], 0),
      maxBytes: num('max-growth-mb', a['max-growth-mb'], 0) * 1024 * 1024,
    },
    seed: num('seed', a.seed, 0),
    serverFlags: [
      ...(a['bookmark-interval'] !== undefined
        ? ['--bookmark-interval-seconds', String(num('bookmark-interval', a['bookmark-interval'], 1))]
        : []),
      // an etcd flag is for the etcd backend only
      ...(a['server-flag'] ?? []).filter((f) => backend === 'etcd' || !f.startsWith('--etcd-')),
    ],
    log: (l) => process.stdout.write(`${l}\n`),
  });
  results.push(r);
  const e = r.events;
  process.stdout.write(
    `[${backend}] ${r.pass ? 'PASS' : 'FAIL'}: ${r.writes.acknowledged} writes, ${e.delivered} of ${e.expected} events ` +
      `delivered, lost ${e.lost}, duplicated ${e.duplicated}, reordered ${e.reordered}, unexpected ${e.unexpected}; ` +
      r.memory.servers
        .map(
          (m, i) =>
            `server ${i + 1} RSS ${(m.rss.early / 1048576).toFixed(0)} -> ${(m.rss.late / 1048576).toFixed(0)} MB ` +
            `(${m.rss.growthPct >= 0 ? '+' : ''}${m.rss.growthPct.toFixed(1)}%; second half ` +
            `${((m.rss.slopePerSample * 60) / r.sampleSeconds / 1048576).toFixed(2)} MB/min)`,
        )
        .join(', ') +
      (r.reasons.length ? `\n  ${r.reasons.join('\n  ')}` : '') +
      '\n',
  );
}

writeFileSync(join(out, 'soak.json'), `${JSON.stringify(results, null, 2)}\n`);
const page = join(out, 'index.html');
writeFileSync(page, renderPage(results));
process.stdout.write(`result: ${join(out, 'soak.json')}\npage: ${page}\n`);
process.exit(results.every((r) => r.pass) ? 0 : 1);
