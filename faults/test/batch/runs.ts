// Runs suite areas, many runs in one vitest process (vitest.config.ts here): each run has its
// own run environment (the target, what is declared about it, the commands the suites
// start), entered by the test files written for it, so the fault meta tests
// (faults/test/meta.test.ts, faults/test/node-config-meta.test.ts) pay vitest's start once per
// batch, and the harness's loading once per worker, instead of once per fault. Each run goes
// through its files (the whole area when it names none), as a run of its own would: the
// verdicts need every case that failed, not only the catchers.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ownedTempDir, removeOwnedDir, startOwned } from '../../../lifeline/owned.ts';
import type { BatchResult } from './reporter.ts';

export type { BatchResult };

/** One run of a batch: a name, the area's folder under suites/, its environment. */
export interface BatchRun {
  name: string;
  area: string;
  env: Record<string, string>;
  /** Only these test files (paths from the repository root); the whole area when absent. */
  files?: string[];
}

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const VITEST = join(ROOT, 'node_modules', '.bin', 'vitest');
const CONFIG = join(ROOT, 'faults', 'test', 'batch', 'vitest.config.ts');
const ENTER = join(ROOT, 'faults', 'test', 'batch', 'enter-run.ts');

/** The test files of a suite area (paths from the repository's root). */
function areaFiles(area: string): string[] {
  const dir = join(ROOT, 'suites', area);
  return (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => relative(ROOT, join(dir, f)))
    .sort();
}

/**
 * Writes the batch's test files: `runs/<i>/<suite file>` enters run i's environment and loads
 * the suite file as a module of run i's own (the query makes it one), whose cases register as
 * the written file's. Returns the run names by index.
 */
function writeRunFiles(dir: string, runs: BatchRun[]): string[] {
  runs.forEach((r, i) => {
    for (const f of r.files?.length ? r.files : areaFiles(r.area)) {
      const file = join(dir, 'runs', String(i), f);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(
        file,
        [
          `import { enterRun } from ${JSON.stringify(ENTER)};`,
          `enterRun(${JSON.stringify(r.env)});`,
          `await import(${JSON.stringify(`${join(ROOT, f)}?run=${i}`)});`,
          '',
        ].join('\n'),
      );
    }
  });
  return runs.map((r) => r.name);
}

/** How a batch went: each run's result by name, errors outside any file, the whole output. */
export interface Batch {
  code: number;
  runs: Map<string, BatchResult>;
  /** Errors vitest caught outside any case (an unhandled rejection), with the file they came from. */
  unhandled: string[];
  out: string;
  ms: number;
}

/**
 * Runs the batch in one vitest process with at most `maxWorkers` test files at once; `env`
 * is the process environment shared by every run (ORCH_RUNS, ...). A run the process gave no
 * result for (it did not start, it crashed) is answered with a failure naming why.
 */
export function runBatch(runs: BatchRun[], env: Record<string, string>, maxWorkers = 2): Promise<Batch> {
  const dir = ownedTempDir('suite-batch-');
  const names = writeRunFiles(dir, runs);
  const started = Date.now();
  return new Promise((res) => {
    const args = ['run', '--config', CONFIG, `--maxWorkers=${maxWorkers}`];
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ORCH_REPORT_DIR: '',
      CI: '1',
      ...env,
      ORCH_BATCH: dir,
    };
    // the batch ends with the meta test however it ends (lifeline/owned.ts)
    let out = '';
    const child = startOwned(VITEST, args, {
      cwd: ROOT,
      env: childEnv,
      onLine: (line) => (out += `${line}\n`),
    });
    void child.exited.then(({ code: c }) => {
      const results = new Map<string, BatchResult>();
      let unhandled: string[] = [];
      let missing = 'no results';
      try {
        const r = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
        for (const [i, v] of Object.entries(r.runs)) results.set(names[Number(i)]!, v as BatchResult);
        unhandled = r.unhandled;
        missing = 'no test file ran';
      } catch (e) {
        missing = `no results (${(e as Error).message})`;
      }
      for (const r of runs)
        if (!results.has(r.name))
          results.set(r.name, { failed: { [missing]: out.slice(-2000) }, passed: 0, skipped: [], files: {} });
      removeOwnedDir(dir);
      res({ code: c ?? 1, runs: results, unhandled, out, ms: Date.now() - started });
    });
  });
}
