// A vitest reporter for the conformance run (suites/vitest.config.ts, with ORCH_REPORT_DIR):
// keeps what vitest's JSON and JUnit reports drop, the reason a case gave when it skipped
// itself (`skip(reason)` in a case) and how often a case was retried (a `flaky`
// expectation), and writes them to case-notes.json for the summary, the matrix and Allure.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Reporter, TestCase } from 'vitest/node';
import { caseIdOf } from './outcomes.ts';

export interface CaseNotes {
  /** Case id -> the reason it skipped itself. */
  skips: Record<string, string>;
  /** Case id -> retries before its final result. */
  retries: Record<string, number>;
}

export default class CaseNotesReporter implements Reporter {
  private notes: CaseNotes = { skips: {}, retries: {} };

  constructor(private readonly options: { outputFile: string }) {}

  onTestCaseResult(test: TestCase): void {
    const id = caseIdOf(test.name);
    const r = test.result();
    if (r.state === 'skipped' && r.note) this.notes.skips[id] = r.note;
    const retries = test.diagnostic()?.retryCount ?? 0;
    if (retries > 0) this.notes.retries[id] = retries;
  }

  onTestRunEnd(): void {
    mkdirSync(dirname(this.options.outputFile), { recursive: true });
    writeFileSync(this.options.outputFile, `${JSON.stringify(this.notes, null, 2)}\n`);
  }
}
