// Timestamps and durations as the language prints them (string(), format's %s).
import type { Duration } from '@marcbachmann/cel-js/evaluator';

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
