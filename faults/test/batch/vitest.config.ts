// vitest configuration for a batch of suite runs in one process (faults/test/batch/runs.ts):
// ORCH_BATCH names a JSON file listing the runs, each a vitest project of its own that runs
// one suite area with its own run environment, handed to the suites through vitest's provide
// (read by harness/src/run-env.ts) as the `suites` project of `npm test` hands them the
// embedded servers. One process for many runs: vitest starts, and loads its workers, once.
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/** One run of a batch: a project name, the area's folder under suites/, its environment. */
export interface BatchRun {
  name: string;
  area: string;
  env: Record<string, string>;
  /** Only these test files (paths from the repository root); the whole area when absent. */
  files?: string[];
}

const ROOT = new URL('../../..', import.meta.url).pathname;
const file = process.env.ORCH_BATCH;
if (!file) throw new Error('ORCH_BATCH names the JSON file of the batch runs');
const runs: BatchRun[] = JSON.parse(readFileSync(file, 'utf8'));

export default defineConfig({
  test: {
    root: ROOT,
    // each run is a project with a transform pipeline of its own: the transformed suite and
    // harness modules are kept on disk and shared by all of them (and by the next batch)
    experimental: { fsModuleCache: true },
    reporters: [[new URL('./reporter.ts', import.meta.url).pathname, { outputFile: `${file}.results.json` }]],
    projects: runs.map((r) => ({
      test: {
        name: r.name,
        root: ROOT,
        include: r.files?.length ? r.files : [`suites/${r.area}/**/*.test.ts`],
        provide: { orchEnv: r.env },
        testTimeout: 30_000,
        hookTimeout: 30_000,
        pool: 'threads' as const,
        // a run's test files share its workers (module state carries from file to file within
        // the run, as in one process); runs never share one (vitest reuses a worker only
        // within its project). ORCH_BATCH_ISOLATE=1: a fresh module state for each file.
        isolate: process.env.ORCH_BATCH_ISOLATE === '1',
      },
    })),
  },
});
