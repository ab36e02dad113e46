// The crash measurement over the backends: rounds of kill -9 of the server on each backend;
// on etcd also rounds of kill -9 of etcd, and rounds with two servers on one etcd where one of
// them is killed. Collects the rounds and sums them up per backend and phase.

import { seeded } from '../seeded.ts';
import { type Backend, type BackendKind, startBackend } from '../server.ts';
import { type CrashContext, ensureNamespace, type Phase, type RoundResult, runRound } from './round.ts';
import type { FindingKind } from './verify.ts';

export interface CrashOptions {
  backends: BackendKind[];
  /** server-kill rounds per backend. */
  rounds: number;
  writers: number;
  watchers?: number;
  /** etcd-kill rounds (etcd backend). */
  etcdRounds?: number;
  /** peer-kill rounds with two servers on one etcd (etcd backend). */
  peerRounds?: number;
  seed?: number;
  etcdDownMs?: number;
  timeoutMs?: number;
  recoverWithinMs?: number;
  /** More `serve` flags for every server (those of etcd only on etcd). */
  serverFlags?: string[];
  log?: (line: string) => void;
}

export interface PhaseSummary {
  backend: BackendKind;
  phase: Phase;
  rounds: number;
  acked: number;
  uncertain: number;
  /** Of those, how many left their data in the final list. */
  unackedApplied: number;
  lost: number;
  regressions: number;
  /** Findings other than lost writes and version regressions, by kind. */
  other: Partial<Record<FindingKind, number>>;
  resumed: number;
  gone: number;
  maxRecoveryMs: number;
  /** Answers to writes that were not acknowledged, with counts. */
  failures: Record<string, number>;
}

export interface CrashReport {
  seed: number;
  options: Omit<CrashOptions, 'log'>;
  started: string;
  seconds: number;
  rounds: (RoundResult & { backend: BackendKind })[];
  summary: PhaseSummary[];
  /** Whether nothing was found (no loss, no regression, no other finding). */
  ok: boolean;
}

export function summarize(rounds: (RoundResult & { backend: BackendKind })[]): PhaseSummary[] {
  const out = new Map<string, PhaseSummary>();
  for (const r of rounds) {
    const key = `${r.backend}/${r.phase}`;
    let s = out.get(key);
    if (!s) {
      s = {
        backend: r.backend,
        phase: r.phase,
        rounds: 0,
        acked: 0,
        uncertain: 0,
        unackedApplied: 0,
        lost: 0,
        regressions: 0,
        other: {},
        resumed: 0,
        gone: 0,
        maxRecoveryMs: 0,
        failures: {},
      };
      out.set(key, s);
    }
    s.rounds++;
    s.acked += r.acked;
    s.uncertain += r.uncertain;
    s.unackedApplied += r.unackedApplied;
    s.resumed += r.resumed;
    s.gone += r.gone;
    s.maxRecoveryMs = Math.max(s.maxRecoveryMs, r.recoveryMs);
    for (const f of r.findings) {
      if (f.kind === 'lost') s.lost++;
      else if (f.kind === 'rv-regression') s.regressions++;
      else s.other[f.kind] = (s.other[f.kind] ?? 0) + 1;
    }
    for (const [k, n] of Object.entries(r.failures)) s.failures[k] = (s.failures[k] ?? 0) + n;
  }
  return [...out.values()];
}

export async function runCrash(opts: CrashOptions): Promise<CrashReport> {
  const log = opts.log ?? (() => {});
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const random = seeded(seed);
  const started = new Date();
  const rounds: (RoundResult & { backend: BackendKind })[] = [];
  const { log: _, ...options } = opts;
  log(`crash: seed ${seed}`);
  const ctxOf = (backend: Backend): CrashContext => ({
    backend,
    writers: opts.writers,
    watchers: opts.watchers ?? 3,
    random,
    seq: 0,
    timeoutMs: opts.timeoutMs ?? 30_000,
    recoverWithinMs: opts.recoverWithinMs ?? 30_000,
    etcdDownMs: opts.etcdDownMs ?? 3_000,
  });
  const play = async (kind: BackendKind, ctx: CrashContext, phase: Phase, n: number) => {
    for (let i = 1; i <= n; i++) {
      const r = await runRound(ctx, phase, i);
      rounds.push({ backend: kind, ...r });
      const bad = r.findings.length
        ? ` FINDINGS ${r.findings.length}: ${r.findings
            .slice(0, 3)
            .map((f) => `${f.kind} ${f.name ?? ''} ${f.detail}`)
            .join(' | ')}`
        : '';
      log(
        `${kind} ${phase} ${i}/${n}: fault after ${r.delayMs} ms, ${r.acked} acked, ${r.uncertain} uncertain ` +
          `(${r.unackedApplied} of them applied), ` +
          `watch ${r.resumed} resumed / ${r.gone} gone, recovered in ${r.recoveryMs} ms${bad}`,
      );
    }
  };
  for (const kind of opts.backends) {
    const flags = (opts.serverFlags ?? []).filter((f) => kind === 'etcd' || !f.startsWith('--etcd-'));
    const backend = await startBackend(kind, { flags });
    try {
      await ensureNamespace(backend.servers[0]!);
      const ctx = ctxOf(backend);
      await play(kind, ctx, 'server-kill', opts.rounds);
      if (kind === 'etcd') await play(kind, ctx, 'etcd-kill', opts.etcdRounds ?? 3);
    } finally {
      await backend.stop();
    }
    if (kind === 'etcd' && (opts.peerRounds ?? 3) > 0) {
      const two = await startBackend('etcd', { servers: 2 });
      try {
        await ensureNamespace(two.servers[0]!);
        await play(kind, ctxOf(two), 'peer-kill', opts.peerRounds ?? 3);
      } finally {
        await two.stop();
      }
    }
  }
  return {
    seed,
    options,
    started: started.toISOString(),
    seconds: Math.round((Date.now() - started.getTime()) / 1000),
    rounds,
    summary: summarize(rounds),
    ok: rounds.every((r) => r.findings.length === 0),
  };
}

/** The summary as a text table. */
export function table(summary: PhaseSummary[]): string {
  const head = [
    'backend',
    'phase',
    'rounds',
    'acked writes',
    'lost',
    'rv regressions',
    'watch resumed',
    '410 Gone',
    'max recovery ms',
    'other findings',
  ];
  const rows = summary.map((s) => [
    s.backend,
    s.phase,
    String(s.rounds),
    String(s.acked),
    String(s.lost),
    String(s.regressions),
    String(s.resumed),
    String(s.gone),
    String(s.maxRecoveryMs),
    Object.entries(s.other)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || '0',
  ]);
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(width[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), line(width.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
