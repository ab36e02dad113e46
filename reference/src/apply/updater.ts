// Ownership bookkeeping of one write, after structured-merge-diff's Updater:
// - update (create, PUT, non-apply PATCH): the writer takes every field it added or changed,
//   from whoever owned it (no conflict); removed fields leave every owner; the writer's new
//   fields join its existing Update entry of the same apiVersion and subresource;
// - apply: the intent is merged into the live object; fields the same applier applied before,
//   no longer applies and nobody else owns are removed; a changed field owned by another
//   manager is a conflict unless forced (then the applier becomes its sole owner); the
//   applier owns exactly the fields of its intent (values equal to another's: shared).
// Server-owned metadata and fields the endpoint resets (status through the main resource of
// a kind with a status subresource) are never owned.

import { compare, excludeFields } from './compare.ts';
import { createdFieldsV1 } from './created.ts';
import { FieldSet, type Path } from './fieldpath.ts';
import {
  capUpdateManagers,
  encodeEntry,
  identifier,
  type Managed,
  type ManagerEntry,
} from './managed-fields.ts';
import { merge, removeUnowned } from './merge.ts';
import {
  childType,
  ensureNamedFieldsAreMembers,
  isAtomic,
  isMap,
  type TypeRef,
  toFieldSet,
} from './typed.ts';

export interface WriteScope {
  /** Schema of the request's version. */
  schema: TypeRef;
  /** apiVersion of the request (`group/version`). */
  apiVersion: string;
  /** '' or the subresource written. */
  subresource: string;
  /** Fields the endpoint resets: nobody owns them through it. */
  ignored: FieldSet;
  /** RFC 3339 time of the write. */
  now: string;
}

const f = (...names: string[]): Path => names.map((field) => ({ field }));

/** What Kubernetes' stripMetaManager takes out of a writer's set. */
export const STRIPPED = FieldSet.of(
  f('apiVersion'),
  f('kind'),
  f('metadata'),
  f('metadata', 'name'),
  f('metadata', 'namespace'),
  f('metadata', 'creationTimestamp'),
  f('metadata', 'selfLink'),
  f('metadata', 'uid'),
  f('metadata', 'clusterName'),
  f('metadata', 'generation'),
  f('metadata', 'managedFields'),
  f('metadata', 'resourceVersion'),
);

/** An object without metadata.managedFields (never ownership-tracked). */
export function withoutManagedFields(o: unknown): Record<string, unknown> {
  if (!isMap(o)) return {};
  const out = { ...o };
  if (isMap(out.metadata)) {
    const { managedFields: _m, ...meta } = out.metadata;
    out.metadata = meta;
  }
  return out;
}

/**
 * A copy of the entries, each set adjusted to the current schema: where a list, map or
 * struct has become atomic since the set was written, owning any of its elements means
 * owning it whole (doc2: "whole list, map or struct becomes owned by the owners of any
 * element"). The other direction needs nothing: an owner of a whole list owns none of its
 * items, so later item changes do not conflict with it.
 */
function reconcileWithSchema(m: Managed, schema: TypeRef): Managed {
  let out: Managed | undefined;
  for (const [k, e] of m) {
    const set = collapseCached(e.set, schema);
    if (set === e.set) continue;
    out ??= new Map(m);
    out.set(k, { ...e, set });
  }
  return out ?? m;
}

/** collapseAtomic of finished sets, per schema (schemas change only with a definition). */
const collapsed = new WeakMap<FieldSet, { schema: TypeRef; set: FieldSet }>();

function collapseCached(s: FieldSet, t: TypeRef): FieldSet {
  const hit = collapsed.get(s);
  if (hit && hit.schema === t) return hit.set;
  const set = collapseAtomic(s, t);
  collapsed.set(s, { schema: t, set });
  return set;
}

/** The set with children below atomic types replaced by their parent (the same set when there are none). */
function collapseAtomic(s: FieldSet, t: TypeRef): FieldSet {
  let out: FieldSet | undefined;
  for (const [k, c] of s.children) {
    const ct = childType(t, c.pe);
    const atomic = isAtomic(ct);
    const sub = atomic ? undefined : collapseAtomic(c.set, ct);
    if (!atomic && sub === c.set) continue;
    out ??= s.clone();
    if (atomic) {
      out.children.delete(k);
      out.members.set(k, c.pe);
    } else out.children.set(k, { pe: c.pe, set: sub! });
  }
  return out ?? s;
}

/** Ownership after a non-apply write of `next` over `live` (the kind's zero object on create). */
export function recordUpdate(
  live: unknown,
  next: unknown,
  managed: Managed,
  manager: string,
  w: WriteScope,
): Managed {
  const c = excludeFields(
    compare(withoutManagedFields(live), withoutManagedFields(next), w.schema),
    w.ignored,
  );
  const changed = c.modified.union(c.added);
  const reconciled = reconcileWithSchema(managed, w.schema);
  const lost = changed.union(c.removed);
  const mine = changed.recursiveDifference(w.ignored).difference(STRIPPED);
  // nothing changed hands: the same entries (the caller keeps the stored list then)
  if (mine.isEmpty() && [...reconciled.values()].every((e) => e.set.intersection(lost).isEmpty()))
    return capUpdateManagers(reconciled);
  const out = new Map(reconciled);
  for (const [id, e] of out) {
    if (e.set.intersection(lost).isEmpty()) continue;
    const s = e.set.difference(lost);
    if (s.isEmpty()) out.delete(id);
    else out.set(id, { ...e, set: s });
  }
  if (!mine.isEmpty()) {
    const entry: ManagerEntry = {
      manager,
      operation: 'Update',
      apiVersion: w.apiVersion,
      subresource: w.subresource,
      time: w.now,
      set: mine,
    };
    const id = identifier(entry);
    const prev = out.get(id);
    if (prev) entry.set = prev.set.union(mine);
    out.set(id, entry);
  }
  return capUpdateManagers(out);
}

/**
 * managedFields after a create that starts from no entries: what recordUpdate would record
 * from the kind's zero object and an empty ownership (the writer's one entry, or none), written
 * in one walk (./created.ts). Every create without managedFields in its body comes here.
 */
export function recordCreate(
  zero: Record<string, unknown>,
  next: Record<string, unknown>,
  manager: string,
  w: WriteScope,
): Record<string, unknown>[] | undefined {
  const fieldsV1 = createdFieldsV1(zero, next, w.schema, w.ignored);
  if (!fieldsV1) return undefined;
  const e = {
    manager,
    operation: 'Update' as const,
    apiVersion: w.apiVersion,
    subresource: w.subresource,
    time: w.now,
  };
  return [encodeEntry(e, fieldsV1)];
}

/** One field another manager owns and the apply would change. */
export interface Conflict {
  manager: ManagerEntry;
  managerId: string;
  path: Path;
}

export class ApplyConflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(`${conflicts.length} conflict(s)`);
  }
}

/**
 * Applies `config` as `manager` onto `live` (undefined: the object does not exist yet).
 * Returns the merged object (without managedFields) and the new ownership; throws
 * ApplyConflicts when the intent changes fields other managers own and `force` is false.
 */
export function applyIntent(
  live: Record<string, unknown> | undefined,
  config: Record<string, unknown>,
  managed: Managed,
  manager: string,
  force: boolean,
  w: WriteScope,
): { object: Record<string, unknown>; managed: Managed } {
  const liveObj = structuredClone(withoutManagedFields(live ?? {}));
  // Fields of an object nobody owns (ownership was reset, or the object predates tracking)
  // are owned by nobody: doc2's first row makes the applier their manager. (Kubernetes
  // would first give them all to an Update manager `before-first-apply`.)
  const managers = new Map(reconcileWithSchema(managed, w.schema));

  // the intent's set: a keyed item without its keys, or a duplicate item, is an error
  const configSet = toFieldSet(config, w.schema, true).recursiveDifference(w.ignored);
  const self: ManagerEntry = {
    manager,
    operation: 'Apply',
    apiVersion: w.apiVersion,
    subresource: w.subresource,
    set: configSet,
  };
  const selfId = identifier(self);
  const lastSet = managers.get(selfId)?.set;
  managers.set(selfId, self);

  let merged = merge(liveObj, config, w.schema) as Record<string, unknown>;
  if (lastSet && !lastSet.isEmpty()) {
    let owned = new FieldSet();
    for (const e of managers.values()) owned = owned.union(ensureNamedFieldsAreMembers(e.set, w.schema));
    const last = ensureNamedFieldsAreMembers(lastSet, w.schema);
    merged = (removeUnowned(merged, w.schema, last, owned) as Record<string, unknown> | undefined) ?? {};
  }

  const c = excludeFields(compare(liveObj, merged, w.schema), w.ignored);
  const changed = c.modified.union(c.added);
  const conflicts: Conflict[] = [];
  const conflictSets = new Map<string, FieldSet>();
  for (const [id, e] of managers) {
    if (id === selfId) continue;
    const hit = e.set.intersection(changed);
    if (hit.isEmpty()) continue;
    conflictSets.set(id, hit);
    for (const path of hit.paths()) conflicts.push({ manager: e, managerId: id, path });
  }
  if (!force && conflicts.length) throw new ApplyConflicts(conflicts);
  for (const [id, e] of managers) {
    if (id === selfId) continue;
    const hit = conflictSets.get(id);
    const s = (hit ? e.set.difference(hit) : e.set).difference(c.removed);
    if (s.isEmpty()) managers.delete(id);
    else managers.set(id, { ...e, set: s });
  }
  const mine = configSet.difference(STRIPPED);
  if (mine.isEmpty()) managers.delete(selfId);
  else managers.set(selfId, { ...self, set: mine, time: w.now });
  return { object: merged, managed: capUpdateManagers(managers) };
}
