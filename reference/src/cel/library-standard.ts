// Standard functions of the language that the evaluator lacks (found by the conformance data):
// ordering of bytes, int() and string() of timestamps, string() of durations, and the identity
// conversions duration(duration) and timestamp(timestamp).
import type { Environment } from '@marcbachmann/cel-js';
import type { Duration } from '@marcbachmann/cel-js/evaluator';
import { DURATION, TIMESTAMP } from './types.ts';

/** A duration as the language prints it: seconds with up to 9 fractional digits, then `s`. */
export function formatDuration(d: Duration): string {
  const total = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  const neg = total < 0n;
  const abs = neg ? -total : total;
  const secs = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${secs}${frac ? `.${frac}` : ''}s`;
}

/** A timestamp as RFC 3339 with the fraction only when not zero (Go's time.RFC3339Nano). */
export function formatTimestamp(t: Date): string {
  return t
    .toISOString()
    .replace(/\.000Z$/, 'Z')
    .replace(/(\.\d*?)0+Z$/, '$1Z');
}

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
}
