// History across runs (`run --history DIR`): each run appends one line to DIR/runs.jsonl (its
// counts and the ids of its failing cases), and its report gets the trend: the pass counts of
// the runs so far, the cases that fail now and passed in the run before, those fixed since,
// and for each failing case the run its failing streak started in. A CI job keeps DIR between
// runs (a cache, or the published site); Allure keeps its own history beside it
// (DIR/allure-history.jsonl) for the per-case history of the HTML report.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { esc } from './html.ts';
import type { CaseResult, RunCounts } from './outcomes.ts';

export const RUNS_FILE = 'runs.jsonl';
export const ALLURE_HISTORY_FILE = 'allure-history.jsonl';
/** A run's label (a CI run number and commit), else `run <n>`. */
export const RUN_LABEL_ENV = 'ORCH_RUN_LABEL';
/** How many runs the trend page and summary show (the file keeps every run). */
const SHOWN = 50;

export interface HistoryRun {
  /** 1 for the first run recorded in the directory. */
  run: number;
  label: string;
  startedAt: string;
  profile: string;
  ok: boolean;
  counts: Pick<
    RunCounts,
    'executed' | 'passed' | 'failed' | 'expectedFailures' | 'unexpectedPasses' | 'skipped'
  >;
  /** Ids of the cases that failed unexpectedly or passed unexpectedly, sorted. */
  failing: string[];
}

export interface Trend {
  /** The recorded runs, this one last (the last 50). */
  runs: HistoryRun[];
  /** Failing now, not failing in the run before (empty on a first run). */
  newlyFailing: { id: string; title: string }[];
  /** Failing in the run before, not failing now. */
  fixed: string[];
  /** Each failing case and the run its unbroken failing streak started in. */
  failingSince: { id: string; run: number; label: string }[];
}

export function readHistory(dir: string): HistoryRun[] {
  const file = join(dir, RUNS_FILE);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return JSON.parse(l) as HistoryRun;
      } catch {
        throw new Error(`${file}:${i + 1}: not a JSON line (the history file is written by the runs alone)`);
      }
    });
}

/** Appends this run to the history in `dir` and returns the trend it makes. */
export function recordRun(
  dir: string,
  run: { startedAt: string; profile: string; ok: boolean; counts: RunCounts; results: CaseResult[] },
  env: NodeJS.ProcessEnv = process.env,
): Trend {
  mkdirSync(dir, { recursive: true });
  const before = readHistory(dir);
  const n = (before.at(-1)?.run ?? 0) + 1;
  const failingResults = run.results.filter((r) => r.outcome === 'failed' || r.outcome === 'unexpected-pass');
  const c = run.counts;
  const entry: HistoryRun = {
    run: n,
    label: env[RUN_LABEL_ENV]?.trim() || `run ${n}`,
    startedAt: run.startedAt,
    profile: run.profile,
    ok: run.ok,
    counts: {
      executed: c.executed,
      passed: c.passed,
      failed: c.failed,
      expectedFailures: c.expectedFailures,
      unexpectedPasses: c.unexpectedPasses,
      skipped: c.skipped,
    },
    failing: failingResults.map((r) => r.id).sort(),
  };
  appendFileSync(join(dir, RUNS_FILE), `${JSON.stringify(entry)}\n`);
  return trendOf([...before, entry], failingResults);
}

export function trendOf(runs: HistoryRun[], failingNow: { id: string; title: string }[]): Trend {
  const last = runs.at(-1)!;
  const previous = runs.at(-2);
  const was = new Set(previous?.failing ?? []);
  const now = new Set(last.failing);
  const failingSince = last.failing.map((id) => {
    let k = runs.length - 1;
    while (k > 0 && runs[k - 1]!.failing.includes(id)) k--;
    return { id, run: runs[k]!.run, label: runs[k]!.label };
  });
  return {
    runs: runs.slice(-SHOWN),
    newlyFailing: previous
      ? failingNow.filter((f) => !was.has(f.id)).map(({ id, title }) => ({ id, title }))
      : [],
    fixed: [...was].filter((id) => !now.has(id)).sort(),
    failingSince,
  };
}

/** The trend in a few lines for the end of a run. */
export function trendText(t: Trend): string[] {
  const last = t.runs.at(-1)!;
  const prev = t.runs.at(-2);
  const delta = (a: number, b: number | undefined) =>
    b === undefined ? '' : ` (${a - b >= 0 ? '+' : ''}${a - b} since ${prev!.label})`;
  const lines = [
    `History:       ${last.label}, run ${last.run} of the history: ${last.counts.passed} passed${delta(last.counts.passed, prev?.counts.passed)}, ${last.failing.length} failing${delta(last.failing.length, prev?.failing.length)}`,
  ];
  for (const f of t.newlyFailing) lines.push(`  NEWLY FAILING ${f.id}: ${f.title}`);
  for (const id of t.fixed) lines.push(`  fixed    ${id}`);
  for (const s of t.failingSince)
    if (s.run !== last.run) lines.push(`  failing  ${s.id} since ${s.label} (run ${s.run})`);
  return lines;
}

/** trend.html: a chart of the pass and failure counts per run, the runs, and what changed. */
export function trendHtml(t: Trend, title: string): string {
  const w = 720;
  const h = 200;
  const pad = 30;
  const max = Math.max(1, ...t.runs.map((r) => r.counts.executed));
  const x = (i: number) =>
    pad + (t.runs.length === 1 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (t.runs.length - 1));
  const y = (v: number) => h - pad - (v * (h - 2 * pad)) / max;
  const line = (pick: (r: HistoryRun) => number, cls: string) =>
    `<polyline class="${cls}" fill="none" points="${t.runs.map((r, i) => `${x(i).toFixed(1)},${y(pick(r)).toFixed(1)}`).join(' ')}"/>` +
    t.runs
      .map(
        (r, i) =>
          `<circle class="${cls}" cx="${x(i).toFixed(1)}" cy="${y(pick(r)).toFixed(1)}" r="3"><title>${esc(r.label)}: ${pick(r)}</title></circle>`,
      )
      .join('');
  const chart = `<svg id="chart" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="passed and failing cases per run">
<line x1="${pad}" y1="${h - pad}" x2="${w - pad}" y2="${h - pad}" stroke="#999"/><text x="${pad}" y="${pad - 10}">${max} cases</text>
${line((r) => r.counts.passed, 'passed')}${line((r) => r.failing.length, 'failing')}</svg>`;
  const since = new Map(t.failingSince.map((s) => [s.id, s]));
  const rows = [...t.runs]
    .reverse()
    .map(
      (r) =>
        `<tr class="${r.ok ? 'ok' : 'not-ok'}"><td>${r.run}</td><td>${esc(r.label)}</td><td>${esc(r.startedAt)}</td><td>${esc(r.profile)}</td><td class="n">${r.counts.executed}</td><td class="n">${r.counts.passed}</td><td class="n">${r.failing.length}</td><td class="n">${r.counts.expectedFailures}</td><td class="n">${r.counts.skipped}</td></tr>`,
    )
    .join('');
  const list = (id: string, items: string[], empty: string) =>
    `<ul id="${id}">${items.length ? items.join('') : `<li class="none">${empty}</li>`}</ul>`;
  const last = t.runs.at(-1)!;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin-bottom:2em}
td,th{border:1px solid #ccc;padding:.3em .5em;text-align:left}.n{text-align:right}tr.not-ok td:first-child{background:#f8d7da}
polyline.passed{stroke:#28a745;stroke-width:2}circle.passed{fill:#28a745}polyline.failing{stroke:#c00;stroke-width:2}circle.failing{fill:#c00}
li.none{color:#777}</style></head><body><h1>${esc(title)}</h1>
<p id="latest">${esc(last.label)} (run ${last.run} of this history): ${last.counts.passed} passed, ${last.failing.length} failing, ${last.counts.expectedFailures} expected failures, ${last.counts.skipped} skipped</p>
${chart}<p><span style="color:#28a745">■</span> passed <span style="color:#c00">■</span> failing (unexpected failures and passes)</p>
<h2>Newly failing (passed or did not fail in the run before)</h2>${list(
    'newly-failing',
    t.newlyFailing.map((f) => `<li><code>${esc(f.id)}</code> ${esc(f.title)}</li>`),
    'none',
  )}
<h2>Fixed since the run before</h2>${list(
    'fixed',
    t.fixed.map((id) => `<li><code>${esc(id)}</code></li>`),
    'none',
  )}
<h2>Failing, and since when</h2>${list(
    'failing-since',
    last.failing.map((id) => {
      const s = since.get(id)!;
      return `<li><code>${esc(id)}</code> failing since ${esc(s.label)} (run ${s.run})</li>`;
    }),
    'none',
  )}
<h2>Runs</h2><table id="runs"><thead><tr><th>#</th><th>Run</th><th>Started</th><th>Profile</th><th>Executed</th><th>Passed</th><th>Failing</th><th>Expected failures</th><th>Skipped</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>
`;
}
