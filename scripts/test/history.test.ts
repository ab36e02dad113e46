// The history of runs (reports/history.ts): each run appended, and the trend read from it:
// newly failing against the run before, fixed since, and the run each failing streak began.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHistory, recordRun, trendHtml } from '../../reports/history.ts';
import type { CaseResult, RunCounts } from '../../reports/outcomes.ts';
import { cleanupTempDirs, tempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

const counts = (failed: number): RunCounts => ({
  executed: 3,
  passed: 3 - failed,
  failed,
  expectedFailures: 0,
  unexpectedPasses: 0,
  skipped: 0,
  notSelected: 0,
});

function run(dir: string, failing: string[], label: string) {
  const results: CaseResult[] = ['a/x/one', 'a/x/two', 'a/x/three'].map((id) => ({
    id,
    title: `case ${id}`,
    file: 'suites/a/x.test.ts',
    outcome: failing.includes(id) ? 'failed' : 'passed',
  }));
  return recordRun(
    dir,
    {
      startedAt: '2026-11-30T00:00:00Z',
      profile: 'all',
      ok: failing.length === 0,
      counts: counts(failing.length),
      results,
    },
    { ORCH_RUN_LABEL: label },
  );
}

describe('history of runs', () => {
  it('finds the newly failing, the fixed, and the run each failing streak began', () => {
    const dir = tempDir('history');
    const t1 = run(dir, ['a/x/one'], '#1');
    expect(t1.newlyFailing, 'nothing is new on a first run').toEqual([]);
    const t2 = run(dir, ['a/x/one', 'a/x/two'], '#2');
    expect(t2.newlyFailing).toEqual([{ id: 'a/x/two', title: 'case a/x/two' }]);
    const t3 = run(dir, ['a/x/one'], '#3');
    expect(t3.fixed).toEqual(['a/x/two']);
    expect(t3.newlyFailing).toEqual([]);
    const t4 = run(dir, ['a/x/one', 'a/x/two'], '');
    expect(t4.failingSince).toEqual([
      { id: 'a/x/one', run: 1, label: '#1' },
      { id: 'a/x/two', run: 4, label: 'run 4' },
    ]);
    expect(readHistory(dir).map((r) => [r.run, r.failing.length])).toEqual([
      [1, 1],
      [2, 2],
      [3, 1],
      [4, 2],
    ]);
    const page = trendHtml(t4, 'trend');
    expect(page).toContain('<code>a/x/one</code> failing since #1 (run 1)');
    expect(page.match(/<circle class="passed"/g)).toHaveLength(4);
  });

  it('refuses a history file that is not JSON lines', () => {
    const dir = tempDir('history-bad');
    run(dir, [], '#1');
    const file = join(dir, 'runs.jsonl');
    writeFileSync(file, `${readFileSync(file, 'utf8')}not json\n`);
    expect(() => readHistory(dir)).toThrow(/runs\.jsonl:2: not a JSON line/);
  });
});
