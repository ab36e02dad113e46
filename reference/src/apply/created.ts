// The fieldsV1 a create's writer owns, in one walk of the object beside its kind's zero object:
// what ./compare.ts reports added or modified from the zero object, less the fields the
// endpoint resets (top-level members of `ignored`: status) and the server-set metadata
// (STRIPPED), in FieldSet.toFieldsV1's form. A create is the most frequent write; the general
// bookkeeping (compare into three sets, set algebra, then the encoding) does the same work
// through sets it throws away. reference/test/apply-create-ownership.test.ts checks the two
// agree as a property over every built-in kind.
import { deepEqual } from '../util/object.ts';
import { comparePe, type FieldSet, type PathElement, peKey } from './fieldpath.ts';
import {
  type Atom,
  fieldType,
  indexItems,
  isMap,
  type JMap,
  noValues,
  own,
  resolve,
  type TypeRef,
} from './typed.ts';

/** One key of a level: a member itself, a parent of what lies below, or both. */
interface Entry {
  k: string;
  pe: PathElement;
  member: boolean;
  below?: Level;
}
type Level = Map<string, Entry>;

/** Server-set metadata nobody owns (the members of updater.ts' STRIPPED below metadata). */
const SERVER_METADATA = new Set([
  'f:name',
  'f:namespace',
  'f:creationTimestamp',
  'f:selfLink',
  'f:uid',
  'f:clusterName',
  'f:generation',
  'f:managedFields',
  'f:resourceVersion',
]);

/** The writer's fieldsV1 (undefined: it owns nothing). `ignored` may hold top-level members only. */
export function createdFieldsV1(
  zero: JMap,
  obj: JMap,
  schema: TypeRef,
  ignored: FieldSet,
): Record<string, unknown> | undefined {
  const root: Level = new Map();
  const a = resolve(schema, obj);
  if (!children(zero, withoutManagedFields(obj), a, root)) return undefined;
  for (const k of ignored.members.keys()) root.delete(k);
  // STRIPPED: apiVersion, kind and metadata are never members; below metadata, the server's fields
  const top = (k: string) => {
    const e = root.get(k);
    if (e) e.member = false;
  };
  top('f:apiVersion');
  top('f:kind');
  top('f:metadata');
  const meta = root.get('f:metadata')?.below;
  if (meta)
    for (const k of SERVER_METADATA) {
      const e = meta.get(k);
      if (e) e.member = false;
    }
  return prune(root) ? encode(root) : undefined;
}

function withoutManagedFields(o: JMap): JMap {
  if (!isMap(o.metadata) || !Object.hasOwn(o.metadata, 'managedFields')) return o;
  const { managedFields: _m, ...metadata } = o.metadata;
  return { ...o, metadata };
}

/** What the writer sets at one key: `z` the zero object's value there, `o` the object's. */
function at(z: unknown, o: unknown, t: TypeRef, k: string, pe: PathElement, out: Level): void {
  // a field the object does not have is the zero object's alone (removed): not the writer's
  if (o === undefined) return;
  if (z !== undefined && (z === o || deepEqual(z, o))) return;
  const below: Level = new Map();
  // a leaf is the writer's when added or changed; a granular node when it appeared
  const member = children(z, o, resolve(t, o), below) ? z === undefined : true;
  if (!member && below.size === 0) return;
  out.set(k, below.size ? { k, pe, member, below } : { k, pe, member });
}

/** The keys or items of a granular map or list, into `out`; false when the node is a leaf. */
function children(z: unknown, o: unknown, a: Atom, out: Level): boolean {
  if (a.kind === 'scalar') return false;
  if (a.kind === 'list') {
    if (!(z === undefined || z === null || Array.isArray(z))) return false;
    if (!(o === null || Array.isArray(o))) return false;
    const la = Array.isArray(z) ? z : [];
    const ra = Array.isArray(o) ? o : [];
    if (a.rel === 'atomic' || (la.length === 0 && ra.length === 0)) return false;
    let li: ReturnType<typeof indexItems>;
    let ri: ReturnType<typeof indexItems>;
    try {
      li = indexItems(a, la, [], false);
      ri = indexItems(a, ra, [], false);
    } catch {
      return false;
    }
    for (const pe of li.order) {
      const k = peKey(pe);
      at(li.byKey.get(k), ri.byKey.get(k), a.item, k, pe, out);
    }
    for (const pe of ri.order) {
      const k = peKey(pe);
      if (!li.byKey.has(k)) at(undefined, ri.byKey.get(k), a.item, k, pe, out);
    }
    return true;
  }
  if (!(z === undefined || z === null || isMap(z))) return false;
  if (!(o === null || isMap(o))) return false;
  const lm = isMap(z) ? z : undefined;
  const rm = isMap(o) ? o : undefined;
  if (a.atomic || (noValues(lm) && noValues(rm))) return false;
  if (lm)
    for (const k of Object.keys(lm)) {
      if (lm[k] === undefined) continue;
      at(lm[k], own(rm, k), fieldType(a, k), `f:${k}`, { field: k }, out);
    }
  if (rm)
    for (const k of Object.keys(rm)) {
      if (rm[k] === undefined || (lm && Object.hasOwn(lm, k) && lm[k] !== undefined)) continue;
      at(undefined, rm[k], fieldType(a, k), `f:${k}`, { field: k }, out);
    }
  return true;
}

/** Drops entries that are neither members nor parents of any; whether anything is left. */
function prune(level: Level): boolean {
  for (const [k, e] of level) {
    if (e.below && !prune(e.below)) e.below = undefined;
    if (!e.member && !e.below) level.delete(k);
  }
  return level.size > 0;
}

/** FieldSet.toFieldsV1's form: keys in path element order, `.` for a member that is also a parent. */
function encode(level: Level): Record<string, unknown> {
  const entries = [...level.values()];
  if (entries.length > 1) entries.sort((x, y) => comparePe(x.pe, y.pe));
  const out: Record<string, unknown> = {};
  for (const e of entries) {
    if (!e.below) out[e.k] = {};
    else {
      const sub = encode(e.below);
      out[e.k] = e.member ? Object.assign({ '.': {} }, sub) : sub;
    }
  }
  return out;
}
