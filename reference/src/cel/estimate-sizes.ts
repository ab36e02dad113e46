// The sizes a custom definition's rule may meet, as Kubernetes 1.28 estimates them: a path from
// the rule's own value (`self` or `oldSelf`, whatever the variable) through fields, `@items`,
// `@values` and `@keys` to a declared type, whose bound (maxLength, maxItems, maxProperties, or
// what the largest request can hold) is the largest size there.
import type { Size } from './estimate-calls.ts';
import type { SizeEstimator } from './estimate.ts';
import type { CelKind } from './estimate-tree.ts';
import type { DeclType } from './types.ts';

/** A map's keys: strings of no declared bound (Kubernetes' StringType, MaxElements 0). */
const MAP_KEY: DeclType = { kind: 'string', name: 'string', maxSize: 0, minSize: 2, schemaType: 'string' };

function walk(root: DeclType, path: readonly string[]): DeclType | undefined {
  if (path.length === 0) return undefined;
  let cur: DeclType | undefined = root;
  // the first element is the variable: every variable of a rule holds the rule's own value
  for (const name of path.slice(1)) {
    if (!cur) return undefined;
    if (name === '@items' || name === '@values') cur = cur.elem;
    else if (name === '@keys') cur = cur.kind === 'map' ? MAP_KEY : undefined;
    else
      cur = cur.kind === 'message' ? [...cur.fields!.values()].find((f) => f.cel === name)?.type : undefined;
  }
  return cur;
}

const KINDS: Partial<Record<DeclType['kind'], CelKind>> = {
  message: 'object',
  map: 'map',
  list: 'list',
  int: 'int',
  double: 'double',
  string: 'string',
  bytes: 'bytes',
  bool: 'bool',
  timestamp: 'timestamp',
  duration: 'duration',
  dyn: 'dyn',
};

/** The size estimator of a rule whose value has this declared type. */
export function declSizes(root: DeclType): SizeEstimator {
  return {
    estimateSize(path): Size | undefined {
      const d = walk(root, path);
      return d ? { min: 0, max: d.maxSize } : undefined;
    },
    kindAt(path) {
      const d = walk(root, path);
      return d ? KINDS[d.kind] : undefined;
    },
  };
}
