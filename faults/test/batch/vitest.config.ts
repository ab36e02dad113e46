// vitest configuration for a batch of suite runs in one process (faults/test/batch/runs.ts):
// ORCH_BATCH names a directory holding the batch's test files, one per run and suite file
// (`runs/<run>/<suite file>`), each entering its run's environment and then loading its suite
// file as a module of its own (harness/src/run-env.ts). One process and one project for many
// runs: vitest starts once, and each worker loads vitest, the harness and its libraries once
// for all the runs it takes, where a project per run paid for all of that on every run.
import { defineConfig } from 'vitest/config';

const ROOT = new URL('../../..', import.meta.url).pathname;
const dir = process.env.ORCH_BATCH;
if (!dir) throw new Error('ORCH_BATCH names the directory of the batch runs');

export default defineConfig({
  test: {
    // the repository is the root (its lockfile keys the module cache below); the files are the batch's
    root: ROOT,
    dir,
    include: ['runs/**/*.test.ts'],
    // the transformed suite and harness modules are kept on disk and shared by every batch
    experimental: {
      fsModuleCache: true,
      fsModuleCachePath: `${ROOT}node_modules/.experimental-vitest-cache`,
    },
    reporters: [[new URL('./reporter.ts', import.meta.url).pathname, { outputFile: `${dir}/results.json` }]],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'threads',
    // the files of a worker share its modules (the harness's, the libraries'); each suite file
    // is a module of its own per run. ORCH_BATCH_ISOLATE=1: fresh modules for each file.
    isolate: process.env.ORCH_BATCH_ISOLATE === '1',
  },
});
