// Typed values: an object walked along its kind's schema, the way structured-merge-diff
// walks a typed value. What the schema markers mean here:
// - lists: `x-orch-list-type` atomic | set | map (keys `x-orch-list-map-keys`); without it a
//   `x-orch-patch-strategy: merge` list counts as a map keyed by `x-orch-patch-merge-key`
//   (a set when it has no merge key); any other list is atomic;
// - maps and structs: granular unless `x-orch-map-type: atomic`; declared properties are
//   struct fields, other keys are map entries;
// - no schema (free-form, preserve-unknown-fields, custom resources without one): maps are
//   granular with every key an entry, lists atomic.
// Operations: the field set of a value, comparison of two values, merge of an intent into a
// value, and removal of paths (pruning what an applier gave up).
import { objectMeta } from '../schema/meta.ts';
import type { Schema } from '../schema/types.ts';
import { clone, deepEqual } from '../util/object.ts';
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

type JMap = Record<string, unknown>;

export const isMap = (v: unknown): v is JMap => v !== null && typeof v === 'object' && !Array.isArray(v);

const DEDUCED_MAP: Atom = { kind: 'map', elem: undefined, atomic: false };
const ATOMIC_LIST: Atom = { kind: 'list', rel: 'atomic', keys: [], item: undefined };

function deduced(v: unknown): Atom {
  if (isMap(v)) return DEDUCED_MAP;
  if (Array.isArray(v)) return ATOMIC_LIST;
  return { kind: 'scalar' };
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

/** The atom of a type; `v` decides for types deduced from the value. */
export function resolve(t: TypeRef, v?: unknown): Atom {
  if (!t) return deduced(v);
  if (t.type === 'array' || (t.type === undefined && t.items)) return listAtom(t);
  const embedded = !!t['x-orch-embedded-resource'];
  if (t.type === 'object' || t.properties || t.additionalProperties !== undefined || embedded) {
    const fields = embedded ? embeddedFields(t) : t.properties;
    const elem = typeof t.additionalProperties === 'object' ? t.additionalProperties : undefined;
    return { kind: 'map', fields, elem, atomic: t['x-orch-map-type'] === 'atomic' };
  }
  if (t.type === undefined) return deduced(v);
  return { kind: 'scalar' };
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

function fieldType(a: Atom, k: string): TypeRef {
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
function indexItems(
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

// ------------------------------------------------------------------ comparison

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * What changed from `l` to `r`: leaves (and atomic lists and maps) added, modified or
 * removed; a granular map, list or item that appears or disappears is added or removed too.
 */
export function compare(l: unknown, r: unknown, t: TypeRef): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareAt(l, r, t, [], c);
  return c;
}

/** A key's value only when the object has it as its own (a `__proto__` key stays data). */
function own(m: JMap | undefined, k: string): unknown {
  return m && Object.hasOwn(m, k) ? m[k] : undefined;
}

function noValues(m: JMap | undefined): boolean {
  if (m) for (const k of Object.keys(m)) if (m[k] !== undefined) return false;
  return true;
}

/** Sets a key of a fresh object; `__proto__` stays an ordinary own key. */
function put(o: JMap, k: string, v: unknown): void {
  if (v === undefined) return;
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

const listShape = (x: unknown) => x === undefined || x === null || Array.isArray(x);
const mapShape = (x: unknown) => x === undefined || x === null || isMap(x);

/** A leaf (scalar, atomic list or map, empty container): added, removed or modified. */
function compareLeaf(lv: unknown, rv: unknown, path: Path, c: Comparison): void {
  if (lv === undefined) c.added.insert(path);
  else if (rv === undefined) c.removed.insert(path);
  else if (!deepEqual(lv, rv)) c.modified.insert(path);
}

/** After the children of a granular node: the node itself appeared or disappeared. */
function compareNode(lv: unknown, rv: unknown, path: Path, c: Comparison): void {
  if (lv === undefined) c.added.insert(path);
  else if (rv === undefined) c.removed.insert(path);
}

function compareAt(lv: unknown, rv: unknown, tr: TypeRef, path: Path, c: Comparison): void {
  if (lv === undefined && rv === undefined) return;
  // identical subtrees have nothing to report, however large (structured-merge-diff skips them too)
  if (lv !== undefined && rv !== undefined && (lv === rv || deepEqual(lv, rv))) return;
  if (!compareChildren(lv, rv, resolve(tr, rv !== undefined ? rv : lv), path, c))
    compareLeaf(lv, rv, path, c);
}

/** Compares the items or keys of a granular list or map; false when the node is a leaf. */
function compareChildren(lv: unknown, rv: unknown, a: Atom, path: Path, c: Comparison): boolean {
  if (a.kind === 'scalar') return false;
  if (a.kind === 'list') {
    if (!listShape(lv) || !listShape(rv)) return false;
    const la = Array.isArray(lv) ? lv : [];
    const ra = Array.isArray(rv) ? rv : [];
    if (a.rel === 'atomic' || (la.length === 0 && ra.length === 0)) return false;
    let li: ReturnType<typeof indexItems>;
    let ri: ReturnType<typeof indexItems>;
    try {
      li = indexItems(a, la, path, false);
      ri = indexItems(a, ra, path, false);
    } catch {
      return false;
    }
    for (const pe of li.order) {
      const k = peKey(pe);
      compareAt(li.byKey.get(k), ri.byKey.get(k), a.item, [...path, pe], c);
    }
    for (const pe of ri.order) {
      const k = peKey(pe);
      if (!li.byKey.has(k)) compareAt(undefined, ri.byKey.get(k), a.item, [...path, pe], c);
    }
    compareNode(lv, rv, path, c);
    return true;
  }
  if (!mapShape(lv) || !mapShape(rv)) return false;
  const lm = isMap(lv) ? lv : undefined;
  const rm = isMap(rv) ? rv : undefined;
  if (a.atomic || (noValues(lm) && noValues(rm))) return false;
  if (lm)
    for (const k of Object.keys(lm)) {
      if (lm[k] === undefined) continue;
      compareAt(lm[k], own(rm, k), fieldType(a, k), [...path, { field: k }], c);
    }
  if (rm)
    for (const k of Object.keys(rm)) {
      if (rm[k] === undefined || (lm && Object.hasOwn(lm, k) && lm[k] !== undefined)) continue;
      compareAt(undefined, rm[k], fieldType(a, k), [...path, { field: k }], c);
    }
  compareNode(lv, rv, path, c);
  return true;
}

/** Drops from a comparison every change at or below the given fields. */
export function excludeFields(c: Comparison, ignored: FieldSet | undefined): Comparison {
  if (!ignored || ignored.isEmpty()) return c;
  return {
    added: c.added.recursiveDifference(ignored),
    modified: c.modified.recursiveDifference(ignored),
    removed: c.removed.recursiveDifference(ignored),
  };
}

// ------------------------------------------------------------------ merge

/**
 * Merges an intent `r` into `l`: `r` wins at leaves and atomic lists and maps; granular maps
 * merge by key; sets and keyed lists merge by item, ordered as structured-merge-diff orders
 * them (the intent's order for the items it has, the others kept where they were).
 */
export function merge(l: unknown, r: unknown, t: TypeRef): unknown {
  if (r === undefined) return l;
  if (l === undefined) return clone(r);
  const a = resolve(t, r);
  if (a.kind === 'scalar') return clone(r);
  if (a.kind === 'list') {
    if (!Array.isArray(r) || (l !== null && !Array.isArray(l))) return clone(r);
    const la = Array.isArray(l) ? l : [];
    if (a.rel === 'atomic' || (la.length === 0 && r.length === 0)) return clone(r);
    let li: ReturnType<typeof indexItems>;
    let ri: ReturnType<typeof indexItems>;
    try {
      li = indexItems(a, la, [], false);
      ri = indexItems(a, r, [], false);
    } catch {
      return clone(r);
    }
    return mergeListOrder(li, ri).map(([lv, rv]) => merge(lv, rv, a.item));
  }
  if (!isMap(r) || (l !== null && !isMap(l))) return clone(r);
  const lm = isMap(l) ? l : {};
  if (a.atomic || (noValues(lm) && noValues(r))) return clone(r);
  const out: JMap = {};
  for (const k of Object.keys(lm)) put(out, k, merge(lm[k], own(r, k), fieldType(a, k)));
  for (const k of Object.keys(r)) if (!Object.hasOwn(lm, k)) put(out, k, clone(r[k]));
  return out;
}

/**
 * The order of a merged list: items only on the left stay in place, items of the intent come
 * in the intent's order (an item on both sides moves to the intent's position).
 */
function mergeListOrder(
  li: { order: PathElement[]; byKey: Map<string, unknown> },
  ri: { order: PathElement[]; byKey: Map<string, unknown> },
): [unknown, unknown][] {
  const lk = li.order.map(peKey);
  const rk = ri.order.map(peKey);
  const shared = rk.filter((k) => li.byKey.has(k));
  let s = 0;
  let nextShared: string | undefined = shared[s++];
  const out: [unknown, unknown][] = [];
  let l = 0;
  let r = 0;
  while (l < lk.length || r < rk.length) {
    if (l < lk.length && r < rk.length) {
      const k = lk[l]!;
      if (k === rk[r]) {
        out.push([li.byKey.get(k), ri.byKey.get(k)]);
        l++;
        r++;
        nextShared = shared[s++];
        continue;
      }
      if (ri.byKey.has(k) && nextShared !== undefined && nextShared !== k) {
        l++;
        continue;
      }
    }
    if (l < lk.length) {
      const k = lk[l]!;
      if (!ri.byKey.has(k)) {
        out.push([li.byKey.get(k), undefined]);
        l++;
        continue;
      }
    }
    if (r < rk.length) {
      const k = rk[r]!;
      out.push([li.byKey.get(k), ri.byKey.get(k)]);
      r++;
      if (nextShared === k) nextShared = shared[s++];
    }
  }
  return out;
}

// ------------------------------------------------------------------ removal

const EMPTY = new FieldSet();

/**
 * Removes from `v` every field and item that `last` has as a member and `owned` does not
 * (both with named fields made members). A map or list emptied by removal disappears
 * (undefined is returned for the value itself).
 */
export function removeUnowned(v: unknown, t: TypeRef, last: FieldSet, owned: FieldSet): unknown {
  const a = resolve(t, v);
  if (a.kind === 'scalar') return v;
  if (a.kind === 'list') {
    if (a.rel === 'atomic' || !Array.isArray(v)) return v;
    const out: unknown[] = [];
    let changed = false;
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      let pe: PathElement;
      try {
        pe = itemElement(a, item, i, []);
      } catch {
        out.push(item);
        continue;
      }
      const k = peKey(pe);
      if (last.members.has(k) && !owned.members.has(k)) {
        changed = true;
        continue;
      }
      const lc = last.children.get(k);
      if (!lc) {
        out.push(item);
        continue;
      }
      const nv = removeUnowned(item, a.item, lc.set, owned.child(pe) ?? EMPTY);
      if (nv === undefined) changed = true;
      else out.push(nv);
    }
    return changed && out.length === 0 ? undefined : out;
  }
  if (a.atomic || !isMap(v)) return v;
  const out: JMap = {};
  let changed = false;
  for (const k of Object.keys(v)) {
    const pe = { field: k };
    const key = peKey(pe);
    if (last.members.has(key) && !owned.members.has(key)) {
      changed = true;
      continue;
    }
    const lc = last.children.get(key);
    const nv = lc ? removeUnowned(v[k], fieldType(a, k), lc.set, owned.child(pe) ?? EMPTY) : v[k];
    if (nv === undefined) {
      changed = changed || v[k] !== undefined;
      continue;
    }
    put(out, k, nv);
  }
  return changed && Object.keys(out).length === 0 ? undefined : out;
}
