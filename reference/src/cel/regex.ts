// Compiled regular expressions, shared by every expression (patterns are compiled once). The
// patterns are RE2 syntax; JavaScript's engine with the `u` flag reads the RE2 subset used in
// practice (no backreferences or lookaround are written in RE2).
import { evalError } from './errors.ts';

const CACHE_LIMIT = 512;
const cache = new Map<string, RegExp>();

/** The regular expression of an RE2 pattern, global (for find and findAll) or anchored-free. */
export function compileRegex(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (re) return re;
  try {
    re = new RegExp(pattern, 'gu');
  } catch (e) {
    throw evalError(`invalid regular expression: ${pattern}: ${(e as Error).message}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(pattern, re);
  return re;
}
