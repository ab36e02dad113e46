// Eviction thresholds as the kubelet reads them: a quantity (`100Mi`, not negative) or a
// percentage (`10%`, above 0 and at most 100), keyed by a signal name (fields.ts).
import { parseQuantity } from '../schema/normalize.ts';
import { EVICTION_SIGNALS } from './fields.ts';

export const isEvictionSignal = (s: string): boolean => (EVICTION_SIGNALS as readonly string[]).includes(s);

/** Why `text` is not a threshold, or undefined when it is one. */
export function thresholdProblem(text: string): string | undefined {
  if (text.endsWith('%')) {
    const n = Number(text.slice(0, -1));
    if (text.length === 1 || !Number.isFinite(n)) return 'must be a quantity or a percentage';
    if (n <= 0 || n > 100) return 'a percentage must be above 0% and at most 100%';
    return undefined;
  }
  const q = parseQuantity(text);
  if (!q || text.trim() !== text) return 'must be a quantity (e.g. 100Mi) or a percentage (e.g. 10%)';
  if (q.nanos < 0n) return 'must not be negative';
  return undefined;
}
