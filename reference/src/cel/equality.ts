// Equality and ordering of expression values, as the language defines them: numbers compare
// across int and double, lists element-wise, maps and messages entry-wise.
import { Duration } from '@marcbachmann/cel-js/evaluator';

export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ta = typeof a;
  const tb = typeof b;
  if ((ta === 'bigint' || ta === 'number') && (tb === 'bigint' || tb === 'number'))
    return (
      Number(a) === Number(b) &&
      (ta === tb || BigInt(Math.trunc(Number(a))) === BigInt(Math.trunc(Number(b))))
    );
  if (a === null || b === null || ta !== 'object' || tb !== 'object') return false;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration) return a.seconds === b.seconds && a.nanos === b.nanos;
  if (a instanceof Uint8Array && b instanceof Uint8Array)
    return a.length === b.length && a.every((x, i) => x === b[i]);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  const ma = entries(a as object);
  const mb = entries(b as object);
  if (!ma || !mb || ma.size !== mb.size) return false;
  if (a instanceof Map && b instanceof Map && a.constructor !== b.constructor) return false;
  for (const [k, v] of ma) if (!mb.has(k) || !celEquals(v, mb.get(k))) return false;
  return true;
}

function entries(x: object): Map<unknown, unknown> | undefined {
  if (x instanceof Map) return x;
  if (Object.getPrototypeOf(x) === Object.prototype) return new Map(Object.entries(x));
  return undefined;
}

/** Ordering of comparable values (numbers, strings, bytes, timestamps, durations); NaN when not comparable. */
export function celCompare(a: unknown, b: unknown): number {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : x === y ? 0 : Number.NaN;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Duration && b instanceof Duration)
    return a.seconds !== b.seconds ? (a.seconds < b.seconds ? -1 : 1) : Math.sign(a.nanos - b.nanos);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  return Number.NaN;
}
