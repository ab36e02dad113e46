// Comparison of two typed values (./typed.ts): the fields added, modified and removed, as
// structured-merge-diff compares them.
import { deepEqual } from '../util/object.ts';
import { FieldSet, type Path, type PathElement, peKey } from './fieldpath.ts';
import { type Atom, fieldType, indexBoth, isMap, noValues, own, resolve, type TypeRef } from './typed.ts';

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
  compareAt(l, r, t, new Level(undefined, undefined, '', c), c);
  return c;
}

type Which = keyof Comparison;

/**
 * One step of the walk: its path element and, once something below it (or it) is recorded,
 * its node in each of the three sets. Recording a path makes the nodes above it as needed,
 * so a change costs one step, not a walk from the root with every key made again.
 */
class Level {
  private added?: FieldSet;
  private modified?: FieldSet;
  private removed?: FieldSet;
  constructor(
    readonly parent: Level | undefined,
    readonly pe: PathElement | undefined,
    readonly key: string,
    root?: Comparison,
  ) {
    if (root) {
      this.added = root.added;
      this.modified = root.modified;
      this.removed = root.removed;
    }
  }

  child(pe: PathElement, key = peKey(pe)): Level {
    return new Level(this, pe, key);
  }

  /** This step's node in one of the sets (made, with those above it, when missing). */
  node(which: Which): FieldSet {
    const hit = this[which];
    if (hit) return hit;
    const up = this.parent!.node(which);
    let c = up.children.get(this.key);
    if (!c) {
      c = { pe: this.pe!, set: new FieldSet() };
      up.children.set(this.key, c);
    }
    this[which] = c.set;
    return c.set;
  }

  /** Records this step's path in one of the sets (the root is never a member). */
  record(which: Which): void {
    if (this.parent) this.parent.node(which).members.set(this.key, this.pe!);
  }

  path(): Path {
    const out: Path = [];
    for (let l: Level | undefined = this; l?.parent; l = l.parent) out.push(l.pe!);
    return out.reverse();
  }
}

const listShape = (x: unknown) => x === undefined || x === null || Array.isArray(x);
const mapShape = (x: unknown) => x === undefined || x === null || isMap(x);

/** A leaf (scalar, atomic list or map, empty container): added, removed or modified. */
function compareLeaf(lv: unknown, rv: unknown, at: Level): void {
  if (lv === undefined) at.record('added');
  else if (rv === undefined) at.record('removed');
  else if (!deepEqual(lv, rv)) at.record('modified');
}

/** After the children of a granular node: the node itself appeared or disappeared. */
function compareNode(lv: unknown, rv: unknown, at: Level): void {
  if (lv === undefined) at.record('added');
  else if (rv === undefined) at.record('removed');
}

function compareAt(lv: unknown, rv: unknown, tr: TypeRef, at: Level, c: Comparison): void {
  if (lv === undefined && rv === undefined) return;
  // identical subtrees have nothing to report, however large (structured-merge-diff skips them too)
  if (lv !== undefined && rv !== undefined && (lv === rv || deepEqual(lv, rv))) return;
  if (!compareChildren(lv, rv, resolve(tr, rv !== undefined ? rv : lv), at, c)) compareLeaf(lv, rv, at);
}

/** Compares the items or keys of a granular list or map; false when the node is a leaf. */
function compareChildren(lv: unknown, rv: unknown, a: Atom, at: Level, c: Comparison): boolean {
  if (a.kind === 'scalar') return false;
  if (a.kind === 'list') {
    if (!listShape(lv) || !listShape(rv)) return false;
    const la = Array.isArray(lv) ? lv : [];
    const ra = Array.isArray(rv) ? rv : [];
    if (a.rel === 'atomic' || (la.length === 0 && ra.length === 0)) return false;
    const both = indexBoth(a, la, ra, at.path());
    if (!both) return false;
    const { li, ri } = both;
    for (const pe of li.order) {
      const k = peKey(pe);
      compareAt(li.byKey.get(k), ri.byKey.get(k), a.item, at.child(pe, k), c);
    }
    for (const pe of ri.order) {
      const k = peKey(pe);
      if (!li.byKey.has(k)) compareAt(undefined, ri.byKey.get(k), a.item, at.child(pe, k), c);
    }
    compareNode(lv, rv, at);
    return true;
  }
  if (!mapShape(lv) || !mapShape(rv)) return false;
  const lm = isMap(lv) ? lv : undefined;
  const rm = isMap(rv) ? rv : undefined;
  if (a.atomic || (noValues(lm) && noValues(rm))) return false;
  if (lm)
    for (const k of Object.keys(lm)) {
      if (lm[k] === undefined) continue;
      compareAt(lm[k], own(rm, k), fieldType(a, k), at.child({ field: k }, `f:${k}`), c);
    }
  if (rm)
    for (const k of Object.keys(rm)) {
      if (rm[k] === undefined || (lm && Object.hasOwn(lm, k) && lm[k] !== undefined)) continue;
      compareAt(undefined, rm[k], fieldType(a, k), at.child({ field: k }, `f:${k}`), c);
    }
  compareNode(lv, rv, at);
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
