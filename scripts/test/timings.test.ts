import { describe, expect, it } from 'vitest';
import type { VitestJson } from '../../reports/outcomes.ts';
import { slowestText, timingsOf } from '../../reports/timings.ts';

const file = (name: string, start: number, end: number, durations: [string, number][]) => ({
  name: `/repo/${name}`,
  status: 'passed',
  startTime: start,
  endTime: end,
  assertionResults: durations.map(([title, duration]) => ({ title, status: 'passed', duration })),
});

const results = {
  testResults: [
    file('suites/a/fast.test.ts', 1000, 1500, [['a/one: first', 120]]),
    file('suites/b/slow.test.ts', 1000, 9250, [
      ['b/wait: waits out a window', 6000],
      ['b/quick: answers at once', 15],
    ]),
  ],
} as unknown as VitestJson;

describe('run timings', () => {
  it('orders files and cases slowest first, with ids and paths relative to the root', () => {
    const t = timingsOf(results, '/repo');
    expect(t.fileSeconds).toBe(8.75);
    expect(t.files).toEqual([
      { file: 'suites/b/slow.test.ts', seconds: 8.25, cases: 2 },
      { file: 'suites/a/fast.test.ts', seconds: 0.5, cases: 1 },
    ]);
    expect(t.cases.map((c) => [c.id, c.seconds])).toEqual([
      ['b/wait', 6],
      ['a/one', 0.12],
      ['b/quick', 0.015],
    ]);
  });

  it('prints the slowest of each', () => {
    const text = slowestText(timingsOf(results, '/repo'), 1).join('\n');
    expect(text).toContain('Slowest files (of 2, 9 s in all)');
    expect(text).toContain('8.3 s  suites/b/slow.test.ts (2 cases)');
    expect(text).toContain('6.0 s  b/wait');
    expect(text).not.toContain('a/one');
  });
});
