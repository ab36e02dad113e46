// Go's time.Duration String form (formatGoDuration) against examples of Go's own output, and as
// the inverse of the parser (parseDuration) for every duration.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { formatGoDuration, goDurationError, parseDuration } from '../src/util/duration.ts';

describe('formatGoDuration', () => {
  it("writes what Go's time.Duration.String writes", () => {
    const go: [bigint, string][] = [
      [0n, '0s'],
      [1n, '1ns'],
      [850n, '850ns'],
      [1_000n, '1µs'],
      [12_500n, '12.5µs'],
      [1_234_567n, '1.234567ms'],
      [100_000_000n, '100ms'],
      [2_500_000_000n, '2.5s'],
      [90_000_000_000n, '1m30s'],
      [3_723_500_000_000n, '1h2m3.5s'],
      [3_600_000_000_000n, '1h0m0s'],
      [-1_500_000n, '-1.5ms'],
    ];
    for (const [ns, want] of go) expect(formatGoDuration(ns), String(ns)).toBe(want);
  });

  test.prop([fc.bigInt({ min: -(2n ** 63n) + 1n, max: 2n ** 63n - 1n })])(
    'parses back to the same nanoseconds',
    (ns) => {
      expect(parseDuration(formatGoDuration(ns))).toBe(ns);
    },
  );
});

describe('goDurationError', () => {
  it("words a text that is not a duration as Go's time.ParseDuration does", () => {
    const go: [string, string | undefined][] = [
      ['10s', undefined],
      ['1h2m3.5s', undefined],
      ['abc', 'time: invalid duration "abc"'],
      ['-', 'time: invalid duration "-"'],
      ['.s', 'time: invalid duration ".s"'],
      ['1', 'time: missing unit in duration "1"'],
      ['5m3', 'time: missing unit in duration "5m3"'],
      ['1x', 'time: unknown unit "x" in duration "1x"'],
      ['1sx', 'time: unknown unit "sx" in duration "1sx"'],
    ];
    for (const [text, want] of go) expect(goDurationError(text), text).toBe(want);
  });
});
