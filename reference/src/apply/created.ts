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

/** What one level leaves out: keys not walked at all, and keys that are never members themselves. */
interface Rule {
  skip?: ReadonlySet<string>;
  strip?: ReadonlySet<string>;
  /** The rules of the levels below some keys. */
  below?: Record<string, Rule>;
}

/** Server-set metadata nobody owns (the members of updater.ts' STRIPPED below metadata). */
const METADATA: Rule = {
  skip: new Set(['f:managedFields']),
  strip: new Set([
    'f:name',
    'f:namespace',
    'f:creationTimestamp',
    'f:selfLink',
    'f:uid',
    'f:clusterName',
    'f:generation',
    'f:resourceVersion',
  ]),
};
const TOP_STRIP = new Set(['f:apiVersion', 'f:kind', 'f:metadata']);
const NO_SKIP: ReadonlySet<string> = new Set();

/** A level's rule per set of reset fields (there are two: none, and status). */
const roots = new WeakMap<FieldSet, Rule>();

function rootRule(ignored: FieldSet): Rule {
  let r = roots.get(ignored);
  if (!r) {
    r = {
      skip: ignored.members.size ? new Set(ignored.members.keys()) : NO_SKIP,
      strip: TOP_STRIP,
      below: { 'f:metadata': METADATA },
    };
    roots.set(ignored, r);
  }
  return r;
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

/** One key of a level and its fieldsV1 value. */
interface Entry {
  k: string;
  pe: PathElement;
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
    if (entries.length > 1) entries.sort((x, y) => comparePe(x.pe, y.pe));
    return assemble(entries, member);
  }
  if (!(z === undefined || z === null || isMap(z))) return LEAF;
  if (!(o === null || isMap(o))) return LEAF;
  const lm = isMap(z) ? z : undefined;
  const rm = isMap(o) ? o : undefined;
  if (a.atomic || (noValues(lm) && noValues(rm))) return LEAF;
  const field = (k: string, zv: unknown, ov: unknown) => {
    const key = `f:${k}`;
    if (rule?.skip?.has(key)) return;
    const v = at(zv, ov, fieldType(a, k), rule?.strip?.has(key) ?? false, rule?.below?.[key]);
    if (v) entries.push({ k: key, pe: { field: k }, v });
  };
  if (lm)
    for (const k of Object.keys(lm)) {
      if (lm[k] === undefined) continue;
      field(k, lm[k], own(rm, k));
    }
  if (rm)
    for (const k of Object.keys(rm)) {
      if (rm[k] === undefined || (lm && Object.hasOwn(lm, k) && lm[k] !== undefined)) continue;
      field(k, undefined, rm[k]);
    }
  // fields only: their keys sort as their names do
  if (entries.length > 1) entries.sort((x, y) => compareStrings(x.k, y.k));
  return assemble(entries, member);
}

function assemble(entries: Entry[], member: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = member ? { '.': {} } : {};
  for (const e of entries) out[e.k] = e.v;
  return out;
}
