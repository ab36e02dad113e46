// The counts of a run are conformance cases only: a test under suites/ that declares no case
// (a self-test left there) is neither counted nor allowed to pass unnoticed.
import { describe, expect, it } from 'vitest';
import { classify, countOutcomes, strays, type VitestJson, verdict } from '../../reports/outcomes.ts';

const results = (tests: { title: string; status: string }[]): VitestJson => ({
  numTotalTestSuites: 1,
  numPassedTestSuites: 1,
  numFailedTestSuites: 0,
  numPendingTestSuites: 0,
  numTotalTests: tests.length,
  numPassedTests: 0,
  numFailedTests: 0,
  numPendingTests: 0,
  numTodoTests: 0,
  startTime: 0,
  success: true,
  testResults: [
    {
      name: '/repo/suites/content-types/x.test.ts',
      status: 'passed',
      assertionResults: tests.map((t) => ({ ...t, failureMessages: [] })),
    },
  ],
});

describe('run outcomes', () => {
  const r = results([
    { title: 'content-types/json/default: JSON by default', status: 'passed' },
    { title: 'content-types/json/other: another', status: 'skipped' },
    { title: 'the prefix round-trips', status: 'passed' },
  ]);
  const declared = new Map([
    ['content-types/json/default', 'MUST'],
    ['content-types/json/other', 'MUST'],
  ] as const);
  const sel = { areas: [], cases: [], shard: null };

  it('counts the declared cases only', () => {
    const c = countOutcomes(classify(r, { cases: {} }, sel, undefined, declared));
    expect(c).toMatchObject({ executed: 1, passed: 1, skipped: 1 });
  });

  it('a test that declares no case fails the run, named', () => {
    const s = strays(r, declared);
    expect(s).toEqual(['suites/content-types/x.test.ts > the prefix round-trips']);
    const counts = countOutcomes(classify(r, { cases: {} }, sel, undefined, declared));
    const v = verdict(counts, [], [0], s);
    expect(v.ok).toBe(false);
    expect(v.reasons[0]).toMatch(
      /^1 test under suites\/ is not a conformance case \(self-tests belong in harness\/test\)/,
    );
    expect(verdict(counts, [], [0], []).ok).toBe(true);
  });

  it('no declared case executed: the run fails', () => {
    const none = countOutcomes(classify(r, { cases: {} }, sel, undefined, new Map()));
    expect(none.executed).toBe(0);
    expect(verdict(none, [], [0]).reasons).toContain('no case was executed');
  });
});
