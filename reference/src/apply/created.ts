// The fieldsV1 a create's writer owns, in one walk of the object beside its kind's zero object:
// what ./compare.ts reports added or modified from the zero object, less the fields the
// endpoint resets (top-level members of `ignored`: status) and the server-set metadata
// (STRIPPED), in FieldSet.toFieldsV1's form. A create is the most frequent write; the general
// bookkeeping (compare into three sets, set algebra, then the encoding) does the same work
// through sets it throws away. reference/test/apply-create-ownership.test.ts checks the two
// agree as a property over every built-in kind.
import { deepEqual } from '../util/object.ts';
import { comparePe, compareStrings, type FieldSet, type PathElement, peKey } from './fieldpath.ts';
import {
  type Atom,
  fieldType,
  indexBoth,
  isMap,
  type JMap,
  noValues,
  own,
  resolve,
  type TypeRef,
} from './typed.ts';

/** What one level leaves out, by field name. */
interface Rule {
  /** Fields not walked at all. */
  skip?: ReadonlySet<string>;
  /** Fields that are never members themselves. */
  strip?: ReadonlySet<string>;
  /** The rules of the levels below some fields. */
  below?: ReadonlyMap<string, Rule>;
}

/** Server-set metadata nobody owns (the members of updater.ts' STRIPPED below metadata). */
const METADATA: Rule = {
  skip: new Set(['managedFields']),
  strip: new Set([
    'name',
    'namespace',
    'creationTimestamp',
    'selfLink',
    'uid',
    'clusterName',
    'generation',
    'resourceVersion',
  ]),
};
const TOP_STRIP = new Set(['apiVersion', 'kind', 'metadata']);
const TOP_BELOW = new Map([['metadata', METADATA]]);
const NO_SKIP: ReadonlySet<string> = new Set();

/** A level's rule per set of reset fields (there are two: none, and status). */
const roots = new WeakMap<FieldSet, Rule>();

function rootRule(ignored: FieldSet): Rule {
  let r = roots.get(ignored);
  if (!r) {
    const names = [...ignored.members.values()].flatMap((pe) => ('field' in pe ? [pe.field] : []));
    r = { skip: names.length ? new Set(names) : NO_SKIP, strip: TOP_STRIP, below: TOP_BELOW };
    roots.set(ignored, r);
  }
  return r;
}

/**
 * A field's fieldsV1 key (`f:` and its name), made once a name and held as an object key
 * is: an output key built afresh each time was looked up in V8's string table at every
 * store, a third of the walk. Names seen are kept up to a bound (data keys are the users').
 */
const fieldKeys = new Map<string, string>();
const FIELD_KEYS_KEPT = 4096;

function fieldKey(name: string): string {
  let key = fieldKeys.get(name);
  if (key === undefined) {
    key = Object.keys({ [`f:${name}`]: 0 })[0]!;
    if (fieldKeys.size < FIELD_KEYS_KEPT) fieldKeys.set(name, key);
  }
  return key;
}

/** The writer's fieldsV1 (undefined: it owns nothing). `ignored` may hold top-level members only. */
export function createdFieldsV1(
  zero: JMap,
  obj: JMap,
  schema: TypeRef,
  ignored: FieldSet,
): Record<string, unknown> | undefined {
  const out = children(zero, obj, resolve(schema, obj), false, rootRule(ignored));
  return out === LEAF || Object.keys(out).length === 0 ? undefined : out;
}

/** children()'s answer for a node that is a leaf. */
const LEAF = Symbol('leaf');

/** One key of a level and its fieldsV1 value (`pe`: a list item's path element, to sort by). */
interface Entry {
  k: string;
  pe?: PathElement;
  v: Record<string, unknown>;
}

/** The fieldsV1 value of one key (undefined: nothing of the writer's there). */
function at(z: unknown, o: unknown, t: TypeRef, stripped: boolean, rule: Rule | undefined) {
  // a field the object does not have is the zero object's alone (removed): not the writer's
  if (o === undefined) return undefined;
  if (z !== undefined && (z === o || deepEqual(z, o))) return undefined;
  // a granular node is the writer's when it appeared, a leaf when added or changed
  const v = children(z, o, resolve(t, o), z === undefined && !stripped, rule);
  if (v === LEAF) return stripped ? undefined : {};
  for (const _ in v) return v;
  return undefined;
}

/**
 * The fieldsV1 object of a granular map or list (with `.` first when the node is a member
 * itself), or LEAF.
 */
function children(
  z: unknown,
  o: unknown,
  a: Atom,
  member: boolean,
  rule: Rule | undefined,
): Record<string, unknown> | typeof LEAF {
  if (a.kind === 'scalar') return LEAF;
  const entries: Entry[] = [];
  if (a.kind === 'list') {
    if (!(z === undefined || z === null || Array.isArray(z))) return LEAF;
    if (!(o === null || Array.isArray(o))) return LEAF;
    const la = Array.isArray(z) ? z : [];
    const ra = Array.isArray(o) ? o : [];
    if (a.rel === 'atomic' || (la.length === 0 && ra.length === 0)) return LEAF;
    const both = indexBoth(a, la, ra, []);
    if (!both) return LEAF;
    const { li, ri } = both;
    for (const pe of li.order) {
      const k = peKey(pe);
      const v = at(li.byKey.get(k), ri.byKey.get(k), a.item, false, undefined);
      if (v) entries.push({ k, pe, v });
    }
    for (const pe of ri.order) {
      const k = peKey(pe);
      if (li.byKey.has(k)) continue;
      const v = at(undefined, ri.byKey.get(k), a.item, false, undefined);
      if (v) entries.push({ k, pe, v });
    }
    sortEntries(entries, byItem);
    return assemble(entries, member);
  }
  if (!(z === undefined || z === null || isMap(z))) return LEAF;
  if (!(o === null || isMap(o))) return LEAF;
  const lm = isMap(z) ? z : undefined;
  const rm = isMap(o) ? o : undefined;
  if (a.atomic || (noValues(lm) && noValues(rm))) return LEAF;
  // own keys in Object.keys' order, without making their arrays (a create walks every map)
  if (lm)
    for (const k in lm) {
      if (lm[k] === undefined || !Object.hasOwn(lm, k)) continue;
      addField(entries, a, rule, k, lm[k], own(rm, k));
    }
  if (rm)
    for (const k in rm) {
      if (rm[k] === undefined || !Object.hasOwn(rm, k)) continue;
      if (lm && Object.hasOwn(lm, k) && lm[k] !== undefined) continue;
      addField(entries, a, rule, k, undefined, rm[k]);
    }
  // fields only: their keys sort as their names do
  sortEntries(entries, byKey);
  return assemble(entries, member);
}

/** A map's field `k` (before `zv`, now `ov`) to a level's entries, unless the writer owns nothing there. */
function addField(entries: Entry[], a: Atom, rule: Rule | undefined, k: string, zv: unknown, ov: unknown) {
  if (rule?.skip?.has(k)) return;
  const v = at(zv, ov, fieldType(a, k), rule?.strip?.has(k) ?? false, rule?.below?.get(k));
  if (v) entries.push({ k: fieldKey(k), v });
}

const byKey = (x: Entry, y: Entry) => compareStrings(x.k, y.k);
const byItem = (x: Entry, y: Entry) => comparePe(x.pe!, y.pe!);

/**
 * Sorts a level's few entries in place: by insertion, often already in order (Array's sort
 * was the walk's largest cost, a level being two to ten entries).
 */
function sortEntries(entries: Entry[], cmp: (x: Entry, y: Entry) => number): void {
  for (let i = 1; i < entries.length; i++) {
    const e = entries[i]!;
    let j = i - 1;
    if (cmp(entries[j]!, e) <= 0) continue;
    while (j >= 0 && cmp(entries[j]!, e) > 0) {
      entries[j + 1] = entries[j]!;
      j--;
    }
    entries[j + 1] = e;
  }
}

function assemble(entries: Entry[], member: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = member ? { '.': {} } : {};
  for (const e of entries) out[e.k] = e.v;
  return out;
}
