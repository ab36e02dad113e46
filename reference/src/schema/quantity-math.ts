// Exact arithmetic on quantities (units of 10^-9, as bigint) for the kinds and plugins that
// compare and add them: limit ranges, resource quotas, volume sizes.
import { canonicalQuantity, parseQuantity } from './normalize.ts';

/** A quantity (string or number) in nano units; undefined when it does not parse. */
export function nanosOf(v: unknown): bigint | undefined {
  if (typeof v === 'number') return parseQuantity(String(v))?.nanos;
  if (typeof v !== 'string') return undefined;
  return parseQuantity(v)?.nanos;
}

/** Whether a quantity is written in a binary suffix (Ki, Mi, ...): sums keep that form. */
export function isBinary(v: unknown): boolean {
  return typeof v === 'string' && parseQuantity(v)?.format === 'BinarySI';
}

/** A nano amount printed as Kubernetes prints a quantity (binary form when `binary`). */
export function formatNanos(nanos: bigint, binary = false): string {
  return canonicalQuantity({ nanos, format: binary ? 'BinarySI' : 'DecimalSI' });
}

/** a compared with b: -1, 0 or 1 (undefined quantities count as 0). */
export function compareQuantities(a: unknown, b: unknown): number {
  const x = nanosOf(a) ?? 0n;
  const y = nanosOf(b) ?? 0n;
  return x < y ? -1 : x > y ? 1 : 0;
}
