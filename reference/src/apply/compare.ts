// Comparison of two typed values (./typed.ts): the fields added, modified and removed, as
// structured-merge-diff compares them.
import { deepEqual } from '../util/object.ts';
import { FieldSet, type Path, peKey } from './fieldpath.ts';
import { type Atom, fieldType, indexItems, isMap, noValues, own, resolve, type TypeRef } from './typed.ts';

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
