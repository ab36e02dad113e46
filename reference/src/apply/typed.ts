// Typed values: an object walked along its kind's schema, the way structured-merge-diff
// walks a typed value. What the schema markers mean here:
// - lists: `x-orch-list-type` atomic | set | map (keys `x-orch-list-map-keys`); without it a
//   `x-orch-patch-strategy: merge` list counts as a map keyed by `x-orch-patch-merge-key`
//   (a set when it has no merge key); any other list is atomic;
// - maps and structs: granular unless `x-orch-map-type: atomic`; declared properties are
//   struct fields, other keys are map entries;
// - no schema (free-form, preserve-unknown-fields, custom resources without one): maps are
//   granular with every key an entry, lists atomic.
// Here: the field set of a value; comparison of two values is in ./compare.ts, merge of an
// intent into a value and removal of paths (pruning what an applier gave up) in ./merge.ts.
import { objectMeta } from '../schema/meta.ts';
import type { Schema } from '../schema/types.ts';
import {
  FieldSet,
  keyElement,
  type Path,
  type PathElement,
  pathString,
  peKey,
  peString,
} from './fieldpath.ts';

/** A schema, or undefined: a value whose type is deduced from itself. */
export type TypeRef = Schema | undefined;

export type Atom =
  | { kind: 'scalar' }
  | {
      kind: 'map';
      fields?: Record<string, Schema>;
      /** Type of entries that are not declared fields (undefined: deduced). */
      elem: TypeRef;
      atomic: boolean;
    }
  | { kind: 'list'; rel: 'atomic' | 'set' | 'map'; keys: string[]; item: TypeRef };

/** A value that does not fit its type as apply needs it (missing keys, duplicates). */
export class TypedError extends Error {}

export type JMap = Record<string, unknown>;

export const isMap = (v: unknown): v is JMap => v !== null && typeof v === 'object' && !Array.isArray(v);

const SCALAR: Atom = { kind: 'scalar' };
const DEDUCED_MAP: Atom = { kind: 'map', elem: undefined, atomic: false };
const ATOMIC_LIST: Atom = { kind: 'list', rel: 'atomic', keys: [], item: undefined };

function deduced(v: unknown): Atom {
  if (isMap(v)) return DEDUCED_MAP;
  if (Array.isArray(v)) return ATOMIC_LIST;
  return SCALAR;
}

function listAtom(t: Schema): Atom {
  const item = t.items;
  const lt = t['x-orch-list-type'];
  if (lt === 'atomic') return { kind: 'list', rel: 'atomic', keys: [], item };
  if (lt === 'set') return { kind: 'list', rel: 'set', keys: [], item };
  if (lt === 'map') {
    const keys = t['x-orch-list-map-keys'] ?? [];
    return keys.length
      ? { kind: 'list', rel: 'map', keys, item }
      : { kind: 'list', rel: 'atomic', keys: [], item };
  }
  const strategy = (t['x-orch-patch-strategy'] ?? '').split(',')[0]!.trim();
  if (strategy === 'merge') {
    const key = t['x-orch-patch-merge-key'];
    return key
      ? { kind: 'list', rel: 'map', keys: [key], item }
      : { kind: 'list', rel: 'set', keys: [], item };
  }
  return { kind: 'list', rel: 'atomic', keys: [], item };
}

const embeddedFields = (t: Schema): Record<string, Schema> => ({
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: objectMeta,
  ...(t.properties ?? {}),
});

/** The atom of each declared type (schemas do not change once published; a new one is a new object). */
const atoms = new WeakMap<Schema, Atom>();

/** The atom of a type; `v` decides for types deduced from the value. */
export function resolve(t: TypeRef, v?: unknown): Atom {
  if (!t) return deduced(v);
  const hit = atoms.get(t);
  if (hit) return hit;
  const a = declaredAtom(t);
  if (!a) return deduced(v);
  atoms.set(t, a);
  return a;
}

/** The atom a schema declares (undefined: deduced from the value). */
function declaredAtom(t: Schema): Atom | undefined {
  if (t.type === 'array' || (t.type === undefined && t.items)) return listAtom(t);
  const embedded = !!t['x-orch-embedded-resource'];
  if (t.type === 'object' || t.properties || t.additionalProperties !== undefined || embedded) {
    const fields = embedded ? embeddedFields(t) : t.properties;
    const elem = typeof t.additionalProperties === 'object' ? t.additionalProperties : undefined;
    return { kind: 'map', fields, elem, atomic: t['x-orch-map-type'] === 'atomic' };
  }
  if (t.type === undefined) return undefined;
  return SCALAR;
}

/** Whether a declared type is an atomic list, map or struct (a deduced type never is one here). */
export function isAtomic(t: TypeRef): boolean {
  if (!t) return false;
  const a = resolve(t);
  return (a.kind === 'list' && a.rel === 'atomic') || (a.kind === 'map' && a.atomic);
}

function isField(a: Atom, k: string): boolean {
  return a.kind === 'map' && !!a.fields && Object.hasOwn(a.fields, k);
}

export function fieldType(a: Atom, k: string): TypeRef {
  if (a.kind !== 'map') return undefined;
  return a.fields && Object.hasOwn(a.fields, k) ? a.fields[k] : a.elem;
}

/** The type below a path element, from the type alone (what sets need: no value at hand). */
export function childType(t: TypeRef, pe: PathElement): TypeRef {
  const a = resolve(t, 'field' in pe ? {} : []);
  if ('field' in pe) return fieldType(a, pe.field);
  return a.kind === 'list' ? a.item : undefined;
}

/** The path element of a list item: its key fields, its value (sets) or its index (atomic lists). */
export function itemElement(
  a: Atom & { kind: 'list' },
  item: unknown,
  index: number,
  path: Path,
): PathElement {
  if (a.rel === 'map') {
    if (!isMap(item))
      throw new TypedError(
        `${pathString(path)}: element ${index}: expected map, got ${JSON.stringify(item)}`,
      );
    const itemSchema = a.item;
    const fields: [string, unknown][] = [];
    for (const k of a.keys) {
      if (Object.hasOwn(item, k) && item[k] !== undefined) fields.push([k, item[k]]);
      else {
        const props = itemSchema?.properties;
        const def = props && Object.hasOwn(props, k) ? props[k]!.default : undefined;
        if (def === undefined)
          throw new TypedError(
            `${pathString(path)}: element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
          );
        fields.push([k, def]);
      }
    }
    return keyElement(fields);
  }
  if (a.rel === 'set') {
    if (item !== null && typeof item === 'object')
      throw new TypedError(
        `${pathString(path)}: element ${index}: associative list without keys has an element that's a ${Array.isArray(item) ? 'list' : 'map'} type`,
      );
    return { value: item };
  }
  return { index };
}

/** Items of a non-atomic list by path element (first occurrence wins), in list order. */
export function indexItems(
  a: Atom & { kind: 'list' },
  list: unknown[],
  path: Path,
  strict: boolean,
): { order: PathElement[]; byKey: Map<string, unknown> } {
  const order: PathElement[] = [];
  const byKey = new Map<string, unknown>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const pe = itemElement(a, item, i, path);
    const k = peKey(pe);
    if (byKey.has(k)) {
      if (strict) throw new TypedError(`${pathString(path)}: duplicate entries for key ${peString(pe)}`);
      continue;
    }
    byKey.set(k, item);
    order.push(pe);
  }
  return { order, byKey };
}

/**
 * The items of two versions of a granular list, each indexed (indexItems, not strict);
 * undefined when an item of either cannot be keyed (the list is then compared or merged whole).
 */
export function indexBoth(
  a: Atom & { kind: 'list' },
  l: unknown[],
  r: unknown[],
  path: Path,
): { li: ReturnType<typeof indexItems>; ri: ReturnType<typeof indexItems> } | undefined {
  try {
    return { li: indexItems(a, l, path, false), ri: indexItems(a, r, path, false) };
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------ field sets

/**
 * Every leaf field and list or map item a value mentions. With `strict` (an applied
 * intent), keyed items without their keys and duplicate items are errors.
 */
export function toFieldSet(v: unknown, t: TypeRef, strict = false): FieldSet {
  const set = new FieldSet();
  const walk = (x: unknown, tr: TypeRef, path: Path) => {
    const a = resolve(tr, x);
    if (a.kind === 'scalar') {
      set.insert(path);
      return;
    }
    if (a.kind === 'list') {
      if (a.rel === 'atomic') {
        set.insert(path);
        return;
      }
      if (!Array.isArray(x)) {
        if (x !== null && x !== undefined) set.insert(path);
        return;
      }
      let idx: ReturnType<typeof indexItems>;
      try {
        idx = indexItems(a, x, path, strict);
      } catch (e) {
        if (strict) throw e;
        set.insert(path);
        return;
      }
      for (const pe of idx.order) {
        const child = [...path, pe];
        walk(idx.byKey.get(peKey(pe)), a.item, child);
        set.insert(child);
      }
      return;
    }
    if (a.atomic) {
      set.insert(path);
      return;
    }
    if (!isMap(x)) {
      if (x !== null && x !== undefined) set.insert(path);
      return;
    }
    for (const k of Object.keys(x)) {
      if (x[k] === undefined) continue;
      const child = [...path, { field: k }];
      walk(x[k], fieldType(a, k), child);
      if (!isField(a, k)) set.insert(child);
    }
  };
  walk(v, t, []);
  return set;
}

/** Adds, as members, the struct fields that a set only has as parents of members. */
export function ensureNamedFieldsAreMembers(s: FieldSet, t: TypeRef): FieldSet {
  const out = new FieldSet();
  for (const [k, pe] of s.members) out.members.set(k, pe);
  const a = resolve(t, {});
  for (const [k, c] of s.children) {
    if ('field' in c.pe && isField(a, c.pe.field)) out.members.set(k, c.pe);
    out.children.set(k, { pe: c.pe, set: ensureNamedFieldsAreMembers(c.set, childType(t, c.pe)) });
  }
  return out;
}

// ------------------------------------------------------------------ own keys

/** A key's value only when the object has it as its own (a `__proto__` key stays data). */
export function own(m: JMap | undefined, k: string): unknown {
  return m && Object.hasOwn(m, k) ? m[k] : undefined;
}

export function noValues(m: JMap | undefined): boolean {
  // own keys as Object.keys has them, without making their array (asked at every map of a walk)
  if (m) for (const k in m) if (m[k] !== undefined && Object.hasOwn(m, k)) return false;
  return true;
}

/** Sets a key of a fresh object; `__proto__` stays an ordinary own key. */
export function put(o: JMap, k: string, v: unknown): void {
  if (v === undefined) return;
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

// ------------------------------------------------------------------ undeclared fields

/**
 * The fields of an applied intent its type does not declare, as structured-merge-diff
 * reports them (`.spec.x: field not declared in schema`): the first such key of each map (its
 * walk of that map stops there). A map without declared fields, one with additional
 * properties, and whatever lies below `x-orch-preserve-unknown-fields` take any key.
 */
export function undeclaredFields(v: unknown, t: TypeRef): string[] {
  const out: string[] = [];
  const walk = (x: unknown, tr: TypeRef, path: Path, preserve: boolean) => {
    if (!tr || x === null || typeof x !== 'object') return;
    const open = preserve || !!tr['x-orch-preserve-unknown-fields'];
    const a = resolve(tr, x);
    if (a.kind === 'list') {
      if (!Array.isArray(x)) return;
      x.forEach((item, i) => {
        let pe: PathElement = { index: i };
        if (a.rel !== 'atomic')
          try {
            pe = itemElement(a, item, i, path);
          } catch {
            // an item apply cannot key is reported when the intent is merged
          }
        walk(item, a.item, [...path, pe], open);
      });
      return;
    }
    if (a.kind !== 'map' || !isMap(x)) return;
    const declared = a.fields && Object.keys(a.fields).length > 0;
    const anyKey =
      open || !declared || (tr.additionalProperties !== undefined && tr.additionalProperties !== false);
    for (const k of Object.keys(x)) {
      const p: Path = [...path, { field: k }];
      if (isField(a, k)) walk(x[k], a.fields![k], p, open);
      else if (anyKey) walk(x[k], a.elem, p, open);
      else {
        out.push(`${pathString(p)}: field not declared in schema`);
        break;
      }
    }
  };
  walk(v, t, [], false);
  return out;
}

/** Undeclared fields as structured-merge-diff words them: one, or `errors:` and one per line. */
export function undeclaredMessage(found: string[]): string {
  return found.length === 1 ? found[0]! : ['errors:', ...found.map((f) => `  ${f}`)].join('\n');
}
