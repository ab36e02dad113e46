// Standard functions of the language that the evaluator lacks (found by the conformance data):
// ordering of bytes, int() and string() of timestamps, string() of durations, the identity
// conversions duration(duration) and timestamp(timestamp), and the global form of matches.
import type { Environment } from '@marcbachmann/cel-js';
import type { Duration } from '@marcbachmann/cel-js/evaluator';
import { compileRegex } from './regex.ts';
import { formatDuration, formatTimestamp } from './timefmt.ts';
import { DURATION, TIMESTAMP } from './types.ts';

export function registerStandardGaps(env: Environment): void {
  const cmp = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b);
  env.registerOperator('bytes < bytes', (a: Uint8Array, b: Uint8Array) => cmp(a, b) < 0);
  env.registerOperator('bytes <= bytes', (a: Uint8Array, b: Uint8Array) => cmp(a, b) <= 0);
  env.registerOperator('bytes > bytes', (a: Uint8Array, b: Uint8Array) => cmp(a, b) > 0);
  env.registerOperator('bytes >= bytes', (a: Uint8Array, b: Uint8Array) => cmp(a, b) >= 0);
  env.registerFunction(`int(${TIMESTAMP}): int`, (t: Date) => BigInt(Math.floor(t.getTime() / 1000)));
  env.registerFunction(`string(${TIMESTAMP}): string`, (t: Date) => formatTimestamp(t));
  env.registerFunction(`string(${DURATION}): string`, (d: Duration) => formatDuration(d));
  env.registerFunction(`duration(${DURATION}): ${DURATION}`, (d: Duration) => d);
  env.registerFunction(`timestamp(${TIMESTAMP}): ${TIMESTAMP}`, (t: Date) => t);
  env.registerFunction('matches(string, string): bool', (s: string, p: string) => {
    const re = compileRegex(p);
    re.lastIndex = 0;
    try {
      return re.test(s);
    } finally {
      re.lastIndex = 0;
    }
  });
}
