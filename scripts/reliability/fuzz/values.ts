// Random JSON values and objects: scalars that break parsers, keys of real fields, mutations of
// valid objects (a field set to a wrong type, removed, or `__proto__`).
import type { Prng } from './prng.ts';
import { ODD_SCALARS, SPEC_KEYS } from './vocabulary.ts';

const ALPHABET = 'abcAZ09-_.=,!()/:;~ %é"\\\n';

export function scalar(rng: Prng): unknown {
  return rng.weighted<() => unknown>([
    [3, () => rng.pick(ODD_SCALARS)],
    [2, () => rng.string(ALPHABET, rng.int(0, 12))],
    [2, () => rng.int(-1000, 1000)],
    [1, () => rng.float() * 1e6],
    [1, () => rng.chance(0.5)],
  ])();
}

/** A JSON value up to `depth` levels, its keys real field names or random. */
export function jsonValue(rng: Prng, depth: number): unknown {
  if (depth <= 0 || rng.chance(0.4)) return scalar(rng);
  if (rng.chance(0.35)) return Array.from({ length: rng.int(0, 3) }, () => jsonValue(rng, depth - 1));
  const o: Record<string, unknown> = {};
  for (let i = rng.int(0, 4); i > 0; i--) {
    const k = rng.chance(0.8) ? rng.pick(SPEC_KEYS) : rng.string(ALPHABET, rng.int(0, 6));
    Object.defineProperty(o, k, {
      value: jsonValue(rng, depth - 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return o;
}

const MUTATION_KEYS = [
  'metadata',
  'name',
  'namespace',
  'labels',
  'annotations',
  'data',
  'kind',
  'apiVersion',
  'finalizers',
  'ownerReferences',
  'resourceVersion',
  'uid',
  'generateName',
  'deletionTimestamp',
  'managedFields',
  '__proto__',
  'constructor',
  'spec',
  'status',
  'k',
  '0',
];

/** A deep copy of `obj` with 1-3 random fields set (to any value) or removed. */
export function mutate(rng: Prng, obj: Record<string, unknown>): unknown {
  const root = JSON.parse(JSON.stringify(obj));
  for (let m = rng.int(1, 3); m > 0; m--) {
    const path = Array.from({ length: rng.int(1, 3) }, () => rng.pick(MUTATION_KEYS));
    let cur: any = root;
    for (const k of path.slice(0, -1)) {
      if (!Object.hasOwn(cur, k) || cur[k] === null || typeof cur[k] !== 'object')
        Object.defineProperty(cur, k, { value: {}, writable: true, enumerable: true, configurable: true });
      cur = cur[k];
    }
    const last = path[path.length - 1]!;
    if (rng.chance(0.3)) delete cur[last];
    else
      Object.defineProperty(cur, last, {
        value: jsonValue(rng, 2),
        writable: true,
        enumerable: true,
        configurable: true,
      });
  }
  return root;
}
