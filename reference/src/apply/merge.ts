// Merge of an intent into a typed value (./typed.ts), and removal of the fields an applier
// gave up, as structured-merge-diff does them.
import { clone } from '../util/object.ts';
import { FieldSet, type PathElement, peKey } from './fieldpath.ts';
import {
  fieldType,
  indexBoth,
  isMap,
  itemElement,
  type JMap,
  noValues,
  own,
  put,
  resolve,
  type TypeRef,
} from './typed.ts';

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
    const both = indexBoth(a, la, r, []);
    if (!both) return clone(r);
    return mergeListOrder(both.li, both.ri).map(([lv, rv]) => merge(lv, rv, a.item));
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
