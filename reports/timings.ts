// Where a run's time went: every test file's wall time and every case's, slowest first, from
// vitest's JSON report. Written as timings.json into the report directory; the run's summary
// names the slowest files and cases, so a slow run says why without a profiler.
import { relative } from 'node:path';
import { caseIdOf, type VitestJson } from './outcomes.ts';

export interface FileTiming {
  file: string;
  seconds: number;
  cases: number;
}

export interface CaseTiming {
  id: string;
  file: string;
  seconds: number;
}

export interface Timings {
  /** How many test files ran. */
  fileCount: number;
  /** Sum of the files' wall times (files run side by side, so this may exceed the run's wall time). */
  fileSeconds: number;
  files: FileTiming[];
  cases: CaseTiming[];
}

const secs = (ms: number) => Math.round(ms) / 1000;

/** Every file and case of the run, slowest first (paths relative to `root`). */
export function timingsOf(results: VitestJson, root: string): Timings {
  const files: FileTiming[] = [];
  const cases: CaseTiming[] = [];
  for (const f of results.testResults) {
    const file = relative(root, f.name);
    const ms = f.startTime !== undefined && f.endTime !== undefined ? f.endTime - f.startTime : 0;
    files.push({ file, seconds: secs(ms), cases: f.assertionResults.length });
    for (const a of f.assertionResults)
      if (a.duration) cases.push({ id: caseIdOf(a.title), file, seconds: secs(a.duration) });
  }
  files.sort((a, b) => b.seconds - a.seconds);
  cases.sort((a, b) => b.seconds - a.seconds);
  return {
    fileCount: files.length,
    fileSeconds: secs(files.reduce((n, f) => n + f.seconds * 1000, 0)),
    files,
    cases,
  };
}

/** The slowest `n` files and cases, as lines for the terminal. */
export function slowestText(t: Timings, n = 5): string[] {
  const lines = [`Slowest files (of ${t.fileCount}, ${t.fileSeconds.toFixed(0)} s in all):`];
  for (const f of t.files.slice(0, n))
    lines.push(`  ${f.seconds.toFixed(1).padStart(6)} s  ${f.file} (${f.cases} cases)`);
  lines.push('Slowest cases:');
  for (const c of t.cases.slice(0, n)) lines.push(`  ${c.seconds.toFixed(1).padStart(6)} s  ${c.id}`);
  return lines;
}
