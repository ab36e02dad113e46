// After the suites ran (or after shards were merged): judge the outcomes, then write the
// matrix page, summary.json and the Allure HTML report into the report directory.
//
// A report directory holds:
//   junit.xml         JUnit XML (vitest)            results.json  vitest's JSON report
//   allure-results/   Allure results (allure-vitest, completed by reports/allure.ts)
//   html/             the Allure HTML report (`allure generate`; serve it over http)
//   cases.jsonl       every collected case with its spec place (one JSON object a line)
//   matrix.html/json  spec sections x cases x outcomes (the page ends with coverage by rule)
//   rules.json        every rule of the documents, the cases naming it, the counts
//   summary.json      counts, verdict, unexpected results, skips, target and selection
//   case-notes.json   skip reasons and retries (reports/case-notes-reporter.ts)
//   timings.json      every file's and case's time, slowest first (reports/timings.ts)
//   trend.html        with --history: the runs so far and what changed (reports/history.ts)
//   index.html        the verdict and a link to each page (reports/index-page.ts)
//   repro/            a reproducer of each failed case, <case id>.sh (harness/src/repro/),
//                     attached to its <testcase> in junit.xml and to its Allure result
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Expectation, ExpectationFile } from '../harness/src/expectations.ts';
import { describeProfile } from '../harness/src/profile.ts';
import { completeAllureResults, generateAllure } from './allure.ts';
import { ALLURE_HISTORY_FILE, recordRun, type Trend, trendHtml, trendText } from './history.ts';
import { esc } from './html.ts';
import { indexHtml } from './index-page.ts';
import { attachReproducers } from './junit.ts';
import { type LevelVerdict, levelVerdicts, levelVerdictsHtml, levelVerdictText } from './levels.ts';
import { buildMatrix, matrixHtml, notesOf, outcomesOf, unplacedCases } from './matrix.ts';
import {
  type CaseResult,
  classify,
  countOutcomes,
  fileErrors,
  type RunCounts,
  readCaseNotes,
  readCases,
  readVitestJson,
  type Selection,
  strays,
  verdict,
} from './outcomes.ts';
import { ruleCoverage } from './rule-coverage.ts';
import { slowestText, type Timings, timingsOf } from './timings.ts';

/** What the processes of a control plane the run started wrote (`run --kubernetes-assets`). */
export const CONTROL_PLANE_LOG = 'control-plane.log';

export const REPORT_FILES = [
  'allure-results',
  'html',
  'junit.xml',
  'results.json',
  'cases.jsonl',
  'matrix.html',
  'matrix.json',
  'rules.json',
  'summary.json',
  'case-notes.json',
  'timings.json',
  'repro',
  CONTROL_PLANE_LOG,
  'trend.html',
  'index.html',
];

/** The reproducers the cases wrote under `dir`/repro: case id -> path. */
export function reproducers(dir: string): Map<string, string> {
  const root = join(dir, 'repro');
  const out = new Map<string, string>();
  if (!existsSync(root)) return out;
  for (const f of readdirSync(root, { recursive: true, encoding: 'utf8' }))
    if (f.endsWith('.sh')) out.set(relative(root, join(root, f)).slice(0, -3), join(root, f));
  return out;
}

export interface ExpectationsInfo {
  path: string | null;
  implementation?: string;
  cases: Record<string, Expectation>;
}

export interface ShardInfo {
  dir: string;
  shard: string | null;
  seconds: number;
  vitestExitCode: number | null;
}

export interface RunMeta {
  /** The endpoints in words (several joined with ", "). */
  endpoint?: string;
  /** Every endpoint the requests went to (several: they alternated between them). */
  endpoints?: string[];
  dialect: string;
  expectations: ExpectationsInfo | null;
  selection: Selection;
  /** Wall time of the suites (for merged shards: the longest shard). */
  seconds: number;
  vitestExitCodes: (number | null)[];
  startedAt: string;
  shards?: ShardInfo[];
  /** The history directory (`--history`): this run is appended and the report gets the trend. */
  history?: string;
}

export interface Summary extends RunCounts {
  ok: boolean;
  /** Why the run failed (empty when ok). */
  reasons: string[];
  seconds: number;
  casesPerSecond: number;
  unexpected: {
    failures: { id: string; title: string; file: string; message?: string }[];
    passes: { id: string; title: string; file: string; note?: string }[];
  };
  /** Selected cases that did not run, with the reason (expectation note or the case's own). */
  skips: { id: string; title: string; note?: string }[];
  /** Cases retried before their final result (`flaky` expectations). */
  retried: { id: string; retries: number; outcome: string }[];
  fileErrors: { file: string; message: string }[];
  endpoint: string | null;
  /** Every endpoint of the run; with several, the requests alternated between them. */
  endpoints: string[];
  dialect: string;
  implementation: string | null;
  expectations: ExpectationsInfo | null;
  selection: Selection;
  vitestExitCodes: (number | null)[];
  startedAt: string;
  shards?: ShardInfo[];
  /** The profile in words (`--level`): which levels of requirement the run checked. */
  profile: string;
  /** Per document and level of the profile: selected, passed, ... and whether all passed. */
  levels: LevelVerdict[];
  /** With `--history`: the runs so far and what changed since the run before (trend.html). */
  trend?: Trend;
  /** The slowest files and cases (all of them in timings.json). */
  slowest?: Timings;
}

export function expectationsInfo(path: string | null, file: ExpectationFile): ExpectationsInfo | null {
  if (!path && Object.keys(file.cases).length === 0) return null;
  return { path, ...(file.implementation ? { implementation: file.implementation } : {}), cases: file.cases };
}

export interface FinishOptions {
  /** Complete allure-vitest's results with expectations (false for merged shards: already done). */
  completeAllure: boolean;
  /** Skip `allure generate` (tests that only need the JSON). */
  html?: boolean;
}

export async function finishReport(
  root: string,
  dir: string,
  meta: RunMeta,
  opts: FinishOptions,
): Promise<Summary> {
  const results = readVitestJson(join(dir, 'results.json'));
  const cases = readCases(join(dir, 'cases.jsonl'));
  const exp: ExpectationFile = { cases: meta.expectations?.cases ?? {} };
  const notes = readCaseNotes(join(dir, 'case-notes.json'));
  // the conformance cases only: a test that declared no case (cases.jsonl) is not counted
  const declared = new Map(cases.map((c) => [c.id, c.level]));
  const caseResults: CaseResult[] = results ? classify(results, exp, meta.selection, notes, declared) : [];
  const counts = countOutcomes(caseResults);
  const errors = results ? fileErrors(results) : [];
  const v = verdict(counts, errors, meta.vitestExitCodes, results ? strays(results, declared) : []);

  const rows = buildMatrix(root, cases, outcomesOf(caseResults), notesOf(caseResults));
  const trend = meta.history
    ? recordRun(meta.history, {
        startedAt: meta.startedAt,
        profile: describeProfile(meta.selection.level ?? 'all'),
        ok: v.ok,
        counts,
        results: caseResults,
      })
    : undefined;
  const rules = ruleCoverage(root, cases, outcomesOf(caseResults));
  const implementation = meta.expectations?.implementation ?? null;
  const profile = describeProfile(meta.selection.level ?? 'all');
  const levels = levelVerdicts(caseResults, cases, meta.selection.level ?? 'all');
  const subtitle = [
    `profile ${profile}`,
    (meta.endpoints?.length ?? 0) > 1
      ? `endpoints ${meta.endpoints!.join(', ')} (requests alternated)`
      : `endpoint ${meta.endpoint ?? '(none)'}`,
    `dialect ${meta.dialect}`,
    meta.expectations?.path ? `expectations ${meta.expectations.path}` : 'no expectations file',
    meta.selection.areas.length ? `areas ${meta.selection.areas.join(', ')}` : '',
    meta.selection.cases.length ? `cases ${meta.selection.cases.join(', ')}` : '',
    meta.shards
      ? `${meta.shards.length} shards merged`
      : meta.selection.shard
        ? `shard ${meta.selection.shard}`
        : '',
  ]
    .filter(Boolean)
    .join(' · ');
  writeFileSync(
    join(dir, 'matrix.html'),
    matrixHtml(rows, {
      title: `orch conformance matrix${implementation ? ` — ${implementation}` : ''}`,
      subtitle,
      unplaced: unplacedCases(root, cases),
      levels: levelVerdictsHtml(levels, profile),
      rules,
    }),
  );
  writeFileSync(join(dir, 'matrix.json'), `${JSON.stringify(rows, null, 2)}\n`);
  writeFileSync(join(dir, 'rules.json'), `${JSON.stringify(rules, null, 2)}\n`);

  const junit = join(dir, 'junit.xml');
  const repro = reproducers(dir);
  if (repro.size && existsSync(junit))
    writeFileSync(junit, attachReproducers(readFileSync(junit, 'utf8'), repro));

  const allureDir = join(dir, 'allure-results');
  if (opts.completeAllure && results)
    completeAllureResults(allureDir, caseResults, cases, {
      endpoint: meta.endpoint,
      dialect: meta.dialect,
      implementation: implementation ?? undefined,
      profile,
    });
  nameJunit(join(dir, 'junit.xml'), `orch conformance — profile ${profile}`);
  if (
    opts.html !== false &&
    existsSync(allureDir) &&
    readdirSync(allureDir).some((f) => f.endsWith('-result.json'))
  ) {
    const name = `orch conformance${implementation ? ` — ${implementation}` : ''} — profile ${profile}`;
    const code = await generateAllure(
      allureDir,
      join(dir, 'html'),
      name,
      dir,
      meta.history ? resolve(meta.history, ALLURE_HISTORY_FILE) : undefined,
    );
    if (code !== 0) process.stderr.write(`allure generate exited with code ${code}\n`);
  }

  const timings = results ? timingsOf(results, root) : undefined;
  if (timings) writeFileSync(join(dir, 'timings.json'), `${JSON.stringify(timings, null, 1)}\n`);

  const summary: Summary = {
    ok: v.ok,
    reasons: v.reasons,
    ...counts,
    seconds: round(meta.seconds),
    casesPerSecond: meta.seconds > 0 ? round(counts.executed / meta.seconds) : 0,
    unexpected: {
      failures: caseResults
        .filter((r) => r.outcome === 'failed')
        .map((r) => ({ id: r.id, title: r.title, file: r.file, message: r.message })),
      passes: caseResults
        .filter((r) => r.outcome === 'unexpected-pass')
        .map((r) => ({ id: r.id, title: r.title, file: r.file, note: r.note })),
    },
    skips: caseResults
      .filter((r) => r.outcome === 'skipped')
      .map((r) => ({ id: r.id, title: r.title, note: r.note })),
    retried: caseResults
      .filter((r) => r.retries)
      .map((r) => ({ id: r.id, retries: r.retries!, outcome: r.outcome })),
    fileErrors: errors,
    endpoint: meta.endpoint ?? null,
    endpoints: meta.endpoints ?? (meta.endpoint ? [meta.endpoint] : []),
    dialect: meta.dialect,
    implementation,
    expectations: meta.expectations,
    selection: meta.selection,
    vitestExitCodes: meta.vitestExitCodes,
    startedAt: meta.startedAt,
    profile,
    levels,
    ...(trend ? { trend } : {}),
    ...(meta.shards ? { shards: meta.shards } : {}),
    ...(timings
      ? {
          slowest: {
            fileCount: timings.fileCount,
            fileSeconds: timings.fileSeconds,
            files: timings.files.slice(0, 10),
            cases: timings.cases.slice(0, 10),
          },
        }
      : {}),
  };
  writeFileSync(join(dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  if (trend)
    writeFileSync(
      join(dir, 'trend.html'),
      trendHtml(trend, `orch conformance trend${implementation ? ` — ${implementation}` : ''}`),
    );
  writeFileSync(
    join(dir, 'index.html'),
    indexHtml(dir, summary, `orch conformance${implementation ? ` — ${implementation}` : ''}`),
  );
  return summary;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** The JUnit document's root is named with the profile, so a CI page shows which one ran. */
function nameJunit(path: string, name: string): void {
  if (!existsSync(path)) return;
  const xml = readFileSync(path, 'utf8');
  const named = xml.replace(/<testsuites\b(?:\s+name="[^"]*")?/, `<testsuites name="${esc(name)}"`);
  if (named !== xml) writeFileSync(path, named);
}

/** The end of a run on the terminal: counts, speed, what went wrong, where the reports are. */
export function summaryText(s: Summary, dir: string, wallSeconds: number): string {
  const lines: string[] = [''];
  lines.push(
    `${s.executed} cases run in ${s.seconds.toFixed(1)} s (${s.casesPerSecond.toFixed(1)} cases/s): ` +
      `${s.passed} passed, ${s.failed} failed, ${s.expectedFailures} expected failures, ${s.unexpectedPasses} unexpected passes; ` +
      `${s.skipped} skipped, ${s.notSelected} not selected`,
  );
  for (const f of s.unexpected.failures)
    lines.push(
      `  FAILED   ${f.id}: ${f.title}${f.message ? `\n           ${f.message.replaceAll('\n', '\n           ')}` : ''}`,
    );
  for (const p of s.unexpected.passes)
    lines.push(
      `  UNEXPECTED PASS ${p.id}: ${p.title}\n           expected to fail (${p.note ?? ''}): remove the expectation`,
    );
  for (const e of s.fileErrors) lines.push(`  FILE ERROR ${e.file}: ${e.message}`);
  lines.push(`Profile ${s.profile}: ${s.levels.map(levelVerdictText).join('; ') || 'no case ran'}`);
  for (const k of s.skips) lines.push(`  skipped  ${k.id}: ${k.note ?? '(no reason given)'}`);
  for (const r of s.retried)
    lines.push(`  retried  ${r.id}: ${r.retries} time${r.retries === 1 ? '' : 's'}, then ${r.outcome}`);
  if (s.slowest?.files.length) lines.push(...slowestText(s.slowest));
  if (s.trend) lines.push(...trendText(s.trend));
  if (existsSync(join(dir, 'html', 'index.html')))
    lines.push(`Allure report: ${join(dir, 'html', 'index.html')} (serve over http)`);
  if (s.endpoints.length > 1)
    lines.push(`Endpoints:     ${s.endpoints.join(', ')} (requests alternated between them)`);
  lines.push(`Matrix:        ${join(dir, 'matrix.html')}`);
  if (s.trend) lines.push(`Trend:         ${join(dir, 'trend.html')}`);
  if (existsSync(join(dir, 'junit.xml'))) lines.push(`JUnit:         ${join(dir, 'junit.xml')}`);
  lines.push(`Summary:       ${join(dir, 'summary.json')}`);
  if (existsSync(join(dir, 'timings.json'))) lines.push(`Timings:       ${join(dir, 'timings.json')}`);
  lines.push(`Wall time ${wallSeconds.toFixed(1)} s. ${s.ok ? 'PASS' : `FAIL: ${s.reasons.join('; ')}`}`);
  return `${lines.join('\n')}\n`;
}
