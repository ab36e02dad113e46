// Runs suite areas, many runs in one vitest process: each run is a project of its own
// (vitest.config.ts here) with its own run environment (the target, what is declared about
// it, the commands the suites start), so the fault meta tests (faults/test/meta.test.ts,
// faults/test/node-config-meta.test.ts) pay vitest's start once per batch instead of once
// per fault. Each run goes through the whole area, as a run of its own would: the verdicts
// need every case that failed, not only the catchers.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ownedTempDir, removeOwnedDir, startOwned } from '../../../lifeline/owned.ts';
import type { BatchResult } from './reporter.ts';
import type { BatchRun } from './vitest.config.ts';

export type { BatchResult, BatchRun };

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const VITEST = join(ROOT, 'node_modules', '.bin', 'vitest');
const CONFIG = join(ROOT, 'faults', 'test', 'batch', 'vitest.config.ts');

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
  const file = join(dir, 'runs.json');
  writeFileSync(file, JSON.stringify(runs));
  const started = Date.now();
  return new Promise((res) => {
    const args = ['run', '--config', CONFIG, `--maxWorkers=${maxWorkers}`];
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ORCH_REPORT_DIR: '',
      CI: '1',
      ...env,
      ORCH_BATCH: file,
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
        const r = JSON.parse(readFileSync(`${file}.results.json`, 'utf8'));
        for (const [name, v] of Object.entries(r.runs)) results.set(name, v as BatchResult);
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
