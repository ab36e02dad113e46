// vitest reporter of a batch of suite runs (faults/test/batch/vitest.config.ts): writes, per
// run (by its index: the test file `runs/<i>/<suite file>`), the cases that failed (by case id,
// with their messages), the number that passed, and the test files that failed outside any
// case, as JSON to `outputFile`.
import { writeFileSync } from 'node:fs';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/** What one run of a batch gave. */
export interface BatchResult {
  /** Failed case id -> its failure messages. */
  failed: Record<string, string>;
  passed: number;
  /** The case ids that skipped (a case that found its precondition missing, e.g. a version still retained). */
  skipped: string[];
  /** Each suite file's duration (ms), by its path from the repository's root. */
  files: Record<string, number>;
  /** The cases that took SLOW_MS or longer (case id -> ms): where a run's time went. */
  slow?: Record<string, number>;
}

/** A case this long or longer is named in a run's `slow`. */
const SLOW_MS = 2000;

/** A test name is `<case id>: <title>` (harness/src/case.ts); anything else is named as it is. */
export const caseIdOf = (title: string) => /^([a-z0-9-]+(?:\/[a-z0-9.-]+)+): /.exec(title)?.[1] ?? title;

const message = (errors: ReadonlyArray<{ message?: string; stack?: string }> | undefined) =>
  (errors ?? []).map((e) => e.stack || e.message || String(e)).join('\n');

export default class BatchReporter implements Reporter {
  constructor(private readonly options: { outputFile: string }) {}

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    const runs: Record<string, BatchResult> = {};
    for (const m of modules) {
      // the last `/runs/<i>/` before the suite file: a folder above the batch may be named so too
      const [, index = '?', suiteFile = m.relativeModuleId] =
        /^.*\/runs\/(\d+)\/(suites\/.*)$/.exec(m.moduleId) ?? [];
      const run = (runs[index] ??= { failed: {}, passed: 0, skipped: [], files: {} });
      run.files[suiteFile] = Math.round(m.diagnostic().duration);
      let caseFailed = false;
      for (const t of m.children.allTests()) {
        const r = t.result();
        const ms = t.diagnostic()?.duration ?? 0;
        if (ms >= SLOW_MS) (run.slow ??= {})[caseIdOf(t.name)] = Math.round(ms);
        if (r.state === 'failed') {
          run.failed[caseIdOf(t.name)] = message(r.errors);
          caseFailed = true;
        } else if (r.state === 'passed') run.passed++;
        else if (r.state === 'skipped') run.skipped.push(caseIdOf(t.name));
      }
      // a file that failed outside any case (it did not load, a hook threw)
      if (m.state() === 'failed' && !caseFailed)
        run.failed[`file ${suiteFile}: ${message(m.errors()).slice(0, 200)}`] = message(m.errors());
    }
    const errors = unhandled.map(
      (e) => `${e.name ?? 'Error'}: ${e.message} (${String((e as any).VITEST_TEST_PATH ?? '')})`,
    );
    writeFileSync(this.options.outputFile, JSON.stringify({ runs, unhandled: errors }));
  }
}
