// What happened to each case of a run, read from vitest's JSON report and judged against
// the expectations file: passed, failed, expected failure, unexpected pass, skipped or not
// selected. The run's summary (summary.json) and its verdict come from these outcomes.
import { existsSync, readFileSync } from 'node:fs';
import { type ExpectationFile, expectationFor } from '../harness/src/expectations.ts';
import { inProfile, type Profile } from '../harness/src/profile.ts';
import type { CaseDef, Level } from '../harness/src/spec.ts';

/** How much of a failure's message a result keeps: the requirement, Expected, Actual and a hint. */
const MESSAGE_LINES = 4;
const MESSAGE_LINE_CHARS = 400;

export type CaseOutcome =
  | 'passed'
  | 'failed'
  | 'expected-fail'
  | 'unexpected-pass'
  | 'skipped'
  | 'not-selected';

export interface VitestAssertion {
  title: string;
  fullName?: string;
  ancestorTitles?: string[];
  status: string;
  duration?: number | null;
  failureMessages?: string[] | null;
}

export interface VitestFileResult {
  name: string;
  status: string;
  message?: string;
  startTime?: number;
  endTime?: number;
  assertionResults: VitestAssertion[];
}

/** vitest's `json` reporter output (results.json), the fields used here. */
export interface VitestJson {
  numTotalTestSuites: number;
  numPassedTestSuites: number;
  numFailedTestSuites: number;
  numPendingTestSuites: number;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  startTime: number;
  success: boolean;
  testResults: VitestFileResult[];
  [k: string]: unknown;
}

/** Which cases a run selected (`--area`, `--case`, `--level`, `--shard`). */
export interface Selection {
  areas: string[];
  /** Id prefixes; empty: every case. */
  cases: string[];
  /** The levels checked (`--level`; absent in reports written before profiles: all). */
  level?: Profile;
  shard: string | null;
}

export interface CaseResult {
  id: string;
  title: string;
  file: string;
  outcome: CaseOutcome;
  /** The expectation's note, for expected failures, unexpected passes and expected skips. */
  note?: string;
  /** First failure message, for failures. */
  message?: string;
  /** Retries before the final result (a `flaky` expectation). */
  retries?: number;
}

/** What vitest's JSON drops, kept by reports/case-notes-reporter.ts (case-notes.json). */
export interface CaseNotesFile {
  skips: Record<string, string>;
  retries: Record<string, number>;
}

export function readCaseNotes(path: string): CaseNotesFile {
  if (!existsSync(path)) return { skips: {}, retries: {} };
  const n = JSON.parse(readFileSync(path, 'utf8')) as Partial<CaseNotesFile>;
  return { skips: n.skips ?? {}, retries: n.retries ?? {} };
}

export interface RunCounts {
  /** Cases that ran: passed + failed + expectedFailures + unexpectedPasses. */
  executed: number;
  passed: number;
  /** Unexpected failures. */
  failed: number;
  expectedFailures: number;
  unexpectedPasses: number;
  /** Selected but not run (an expectation says skip, or the case skipped itself with a reason). */
  skipped: number;
  /** Collected but left out by `--case`. */
  notSelected: number;
}

export interface Verdict {
  ok: boolean;
  reasons: string[];
}

export function readVitestJson(path: string): VitestJson | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as VitestJson;
}

/** Reads cases.jsonl (one declared case a line, written by `conformance()`), without duplicates. */
export function readCases(path: string): CaseDef[] {
  if (!existsSync(path)) return [];
  const seen = new Map<string, CaseDef>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const e = JSON.parse(line) as CaseDef;
    seen.set(e.id, e);
  }
  return [...seen.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A conformance test is named `<id>: <title>` (plus ` [skip: note]` when an expectation skips it). */
export function caseIdOf(testTitle: string): string {
  const i = testTitle.indexOf(': ');
  return i > 0 ? testTitle.slice(0, i) : testTitle;
}

export function selects(selection: Pick<Selection, 'cases' | 'level'>, id: string, level?: Level): boolean {
  if (level && !inProfile(level, selection.level ?? 'all')) return false;
  return selection.cases.length === 0 || selection.cases.some((p) => id.startsWith(p));
}

const UNEXPECTED_PASS = 'Expect test to fail';

/**
 * The outcome of each conformance case of the run. Only the declared cases count (`declared`:
 * the ids of cases.jsonl); anything else vitest ran under suites/ is not a case: see strays().
 */
export function classify(
  results: VitestJson,
  expectations: ExpectationFile,
  selection: Selection,
  notes: CaseNotesFile = { skips: {}, retries: {} },
  /** The level of each declared case (cases.jsonl). */
  declared?: ReadonlyMap<string, Level>,
): CaseResult[] {
  const out: CaseResult[] = [];
  for (const f of results.testResults) {
    for (const a of f.assertionResults) {
      const id = caseIdOf(a.title);
      if (declared && !declared.has(id)) continue;
      const title = a.title.slice(id.length + 2).replace(/ \[skip: [^\]]*\]$/, '');
      const exp = expectationFor(expectations, id);
      const message = a.failureMessages?.[0];
      let outcome: CaseOutcome;
      if (a.status === 'passed') outcome = exp?.expect === 'fail' ? 'expected-fail' : 'passed';
      else if (a.status === 'failed')
        // with `test.fails` a pass is reported as a failure whose message says so
        outcome =
          exp?.expect === 'fail' && (message ?? '').includes(UNEXPECTED_PASS) ? 'unexpected-pass' : 'failed';
      else outcome = selects(selection, id, declared?.get(id)) ? 'skipped' : 'not-selected';
      const r: CaseResult = { id, title, file: f.name, outcome };
      // the note says why: the expectation met or broken, or the reason a case skipped itself
      const note =
        outcome === 'expected-fail' ||
        outcome === 'unexpected-pass' ||
        (outcome === 'skipped' && exp?.expect === 'skip')
          ? exp?.note
          : outcome === 'skipped'
            ? notes.skips[id]
            : undefined;
      if (note) r.note = note;
      if (outcome === 'failed' && message) r.message = headOf(message);
      if (notes.retries[id]) r.retries = notes.retries[id];
      out.push(r);
    }
  }
  return out;
}

export function countOutcomes(results: CaseResult[]): RunCounts {
  const n = (o: CaseOutcome) => results.filter((r) => r.outcome === o).length;
  const c = {
    passed: n('passed'),
    failed: n('failed'),
    expectedFailures: n('expected-fail'),
    unexpectedPasses: n('unexpected-pass'),
    skipped: n('skipped'),
    notSelected: n('not-selected'),
  };
  return { executed: c.passed + c.failed + c.expectedFailures + c.unexpectedPasses, ...c };
}

/**
 * Tests the run executed that are not declared conformance cases (a self-test left under
 * suites/): they must not count as cases, nor pass unnoticed. "file > title" each.
 */
export function strays(results: VitestJson, declared: { has(id: string): boolean }): string[] {
  const out: string[] = [];
  for (const f of results.testResults)
    for (const a of f.assertionResults)
      if (!declared.has(caseIdOf(a.title)))
        out.push(`${f.name.replace(/^.*\/suites\//, 'suites/')} > ${a.title}`);
  return out;
}

/** Files that failed as a whole (an import error, a failing beforeAll): vitest puts the error on the file. */
/** A failure's requirement with its Expected and Actual lines (harness/src/assert.ts), without the stack. */
function headOf(message: string): string {
  const lines = message.split('\n');
  const end = lines.findIndex((l, i) => i > 0 && /^\s+(at |❯ )/.test(l));
  return lines
    .slice(0, end < 0 ? MESSAGE_LINES : Math.min(end, MESSAGE_LINES))
    .map((l) => (l.length > MESSAGE_LINE_CHARS ? `${l.slice(0, MESSAGE_LINE_CHARS)}…` : l))
    .join('\n')
    .trimEnd();
}

export function fileErrors(results: VitestJson): { file: string; message: string }[] {
  return results.testResults
    .filter((f) => f.status === 'failed' && f.message)
    .map((f) => ({ file: f.name, message: f.message!.split('\n')[0]! }));
}

/**
 * The run fails on an unexpected failure, an unexpected pass, a file that failed to load,
 * vitest failing for a reason of its own (unhandled errors), a test under suites/ that is
 * not a conformance case, or when no case ran.
 */
export function verdict(
  counts: RunCounts,
  errors: { file: string }[],
  vitestExitCodes: (number | null)[],
  notCases: string[] = [],
): Verdict {
  const reasons: string[] = [];
  if (notCases.length)
    reasons.push(
      `${notCases.length} test${notCases.length === 1 ? '' : 's'} under suites/ ${notCases.length === 1 ? 'is' : 'are'} not a conformance case (self-tests belong in harness/test): ${notCases.slice(0, 3).join('; ')}${notCases.length > 3 ? '; ...' : ''}`,
    );
  if (counts.failed) reasons.push(`${counts.failed} unexpected failure${counts.failed === 1 ? '' : 's'}`);
  if (counts.unexpectedPasses)
    reasons.push(`${counts.unexpectedPasses} unexpected pass${counts.unexpectedPasses === 1 ? '' : 'es'}`);
  if (errors.length)
    reasons.push(`${errors.length} test file${errors.length === 1 ? '' : 's'} failed to run`);
  if (counts.executed === 0) reasons.push('no case was executed');
  const bad = vitestExitCodes.filter((c) => c !== 0);
  if (bad.length && reasons.length === 0)
    reasons.push(`vitest exited with code ${bad.join(', ')} (unhandled errors: see its output)`);
  return { ok: reasons.length === 0, reasons };
}

/** Merges vitest JSON reports of several shards: counts summed, file results concatenated. */
export function mergeVitestJson(parts: VitestJson[]): VitestJson {
  const sum = (k: keyof VitestJson) => parts.reduce((n, p) => n + ((p[k] as number) ?? 0), 0);
  const merged: VitestJson = {
    ...parts[0],
    numTotalTestSuites: sum('numTotalTestSuites'),
    numPassedTestSuites: sum('numPassedTestSuites'),
    numFailedTestSuites: sum('numFailedTestSuites'),
    numPendingTestSuites: sum('numPendingTestSuites'),
    numTotalTests: sum('numTotalTests'),
    numPassedTests: sum('numPassedTests'),
    numFailedTests: sum('numFailedTests'),
    numPendingTests: sum('numPendingTests'),
    numTodoTests: sum('numTodoTests'),
    startTime: Math.min(...parts.map((p) => p.startTime)),
    success: parts.every((p) => p.success),
    testResults: parts.flatMap((p) => p.testResults),
  };
  return merged;
}
