// vitest configuration for the conformance suites. The runner (scripts/run.ts) sets the
// target in the environment (ORCH_*) and, with ORCH_REPORT_DIR, the report outputs.
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

const reportDir = process.env.ORCH_REPORT_DIR;

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['suites/**/*.test.ts'],
    setupFiles: reportDir ? ['allure-vitest/setup'] : [],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'threads',
    // test files share their worker's modules (the harness, yaml, the HTTP client are loaded
    // once a worker, not once a file): the suites keep no state in shared modules that is not
    // the target's own, and the embedded run took 73 s with a fresh module graph per file, 45 s
    // without. ORCH_ISOLATE=1 gives each file its own again.
    isolate: process.env.ORCH_ISOLATE === '1',
    fileParallelism: true,
    // files side by side: most of a case's time is waiting on the target, so more files than
    // cores (vitest's default is one less than the cores: one file at a time on two)
    maxWorkers: Number(process.env.ORCH_WORKERS) || 4,
    reporters: reportDir
      ? [
          'default',
          ['junit', { outputFile: join(reportDir, 'junit.xml') }],
          ['json', { outputFile: join(reportDir, 'results.json') }],
          ['allure-vitest/reporter', { resultsDir: join(reportDir, 'allure-results') }],
          ['./reports/case-notes-reporter.ts', { outputFile: join(reportDir, 'case-notes.json') }],
        ]
      : ['default'],
  },
});
