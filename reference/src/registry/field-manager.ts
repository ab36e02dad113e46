// The registry's field manager (it drives the apply engine in ../apply): what every write does with metadata.managedFields.
// - recordWrite (create, update, non-apply patch, status and scale writes): an Update by
//   the request's manager (`fieldManager`, else the User-Agent before its first '/');
//   `[{}]` in the request forgets all ownership first; `[]` or malformed entries keep the
//   stored ones; writes to a subresource always start from the stored ones;
// - applyToObject (server-side apply): the merged object with the new ownership;
// - a write whose only change would be the entries' times changes nothing (Kubernetes
//   keeps the stored times then, so a repeated apply is not a write).
import { FieldSet } from '../apply/fieldpath.ts';
import {
  decodeManagedFields,
  encodeManagedFields,
  equalIgnoringTimes,
  isResetRequest,
  type Managed,
  managerFor,
} from '../apply/managed-fields.ts';
import { applyIntent, recordCreate, recordUpdate, type WriteScope } from '../apply/updater.ts';
import type { KObject } from '../storage/types.ts';
import { deepEqual } from '../util/object.ts';
import { rfc3339 } from '../util/time.ts';
import { type RequestContext, type ResourceDef, schemaFor } from './types.ts';

function apiVersionOf(def: ResourceDef, version: string): string {
  return def.group ? `${def.group}/${version}` : version;
}

/**
 * Fields nobody owns through an endpoint: status through the main resource of a kind with a
 * status subresource (the strategy resets it). Writes to the status subresource reach only
 * status; the apply handler narrows their intent to it.
 */
export function resetFields(def: ResourceDef, subresource: string): FieldSet {
  return subresource === '' && def.subresources.includes('status') ? STATUS : NONE;
}
// field sets are never changed once built: one of each serves every write
const STATUS = FieldSet.of([{ field: 'status' }]);
const NONE = new FieldSet();

/**
 * The object a create is compared with: Kubernetes compares with the kind's zero value, where
 * struct fields that are not pointers are present (empty), and a few lists are null. A kind
 * says which through its strategy's `zeroValue`. Values that Kubernetes sets after ownership
 * is recorded (strategy, admission) are part of it here, as this server's strategies set them
 * before: a creator that leaves them to the server does not own them (a namespace's
 * finalizers, a pod's default service account).
 */
export function zeroObject(def: ResourceDef, version: string): Record<string, unknown> {
  if (def.custom) return {};
  const schema = schemaFor(def, version);
  let byVersion = zeroes.get(def);
  if (!byVersion) zeroes.set(def, (byVersion = new Map()));
  const hit = byVersion.get(version);
  if (hit && hit.schema === schema) return hit.zero;
  const props = schema?.properties ?? {};
  const z: Record<string, unknown> = { metadata: {} };
  if (props.spec) z.spec = {};
  if (props.status) z.status = {};
  const zero = { ...z, ...def.strategy.zeroValue?.() };
  byVersion.set(version, { schema, zero });
  return zero;
}
/** The zero objects made so far, per kind and version (only read by comparisons, never changed). */
const zeroes = new WeakMap<ResourceDef, Map<string, { schema: unknown; zero: Record<string, unknown> }>>();

function scope(def: ResourceDef, version: string, subresource: string, now: number): WriteScope {
  return {
    schema: schemaFor(def, version),
    apiVersion: apiVersionOf(def, version),
    subresource,
    ignored: resetFields(def, subresource),
    now: rfc3339(now),
  };
}

function decodeOrEmpty(list: unknown): Managed {
  try {
    return decodeManagedFields(list);
  } catch {
    return new Map();
  }
}

/** The ownership an Update starts from (Kubernetes' decodeLiveOrNew), and the list it was read from. */
function startingPoint(
  obj: KObject,
  old: KObject | undefined,
  subresource: string,
): { managed: Managed; list?: unknown[] } {
  const stored = () => {
    const list = old?.metadata.managedFields;
    try {
      return { managed: decodeManagedFields(list), list };
    } catch {
      return { managed: new Map() as Managed };
    }
  };
  if (subresource) return stored();
  const sent = obj.metadata.managedFields;
  if (isResetRequest(sent)) return { managed: new Map() };
  try {
    const m = decodeManagedFields(sent);
    if (m.size > 0) return { managed: m, list: sent };
  } catch {
    // malformed entries from a client: the stored ones stay
  }
  return stored();
}

function setManagedFields(obj: KObject, m: Managed): void {
  const list = encodeManagedFields(m);
  if (list) obj.metadata.managedFields = list;
  else delete obj.metadata.managedFields;
}

const withoutVolatile = (o: KObject) => {
  const { managedFields: _m, resourceVersion: _r, ...meta } = o.metadata;
  const { apiVersion: _a, ...rest } = o;
  return { ...rest, metadata: meta };
};

/** When nothing but the entries' times changed, the stored entries stay (so a no-op stays a no-op). */
function keepTimesOfNoop(obj: KObject, old: KObject | undefined): void {
  if (!old) return;
  const a = obj.metadata.managedFields;
  const b = old.metadata.managedFields;
  if (a === b || !deepEqual(withoutVolatile(obj), withoutVolatile(old)) || !equalIgnoringTimes(a, b)) return;
  if (b === undefined) delete obj.metadata.managedFields;
  else obj.metadata.managedFields = b;
}

export interface WriteInfo {
  def: ResourceDef;
  version: string;
  subresource: string;
  ctx: RequestContext;
  /** The stored object (undefined on create). */
  old?: KObject;
  /** The object about to be stored (changed in place). */
  obj: KObject;
  /** Its managedFields were computed by an apply. */
  applied?: boolean;
  now: number;
}

/** Records the ownership of a write in `obj.metadata.managedFields`. */
export function recordWrite(w: WriteInfo): void {
  if (!w.applied) {
    const manager = managerFor(w.ctx.fieldManager, w.ctx.userAgent);
    const base = startingPoint(w.obj, w.old, w.subresource);
    const sc = scope(w.def, w.version, w.subresource, w.now);
    if (!w.old && base.managed.size === 0) {
      const list = recordCreate(zeroObject(w.def, w.version), w.obj, manager, sc);
      if (list) w.obj.metadata.managedFields = list;
      else delete w.obj.metadata.managedFields;
      return;
    }
    const m = recordUpdate(w.old ?? zeroObject(w.def, w.version), w.obj, base.managed, manager, sc);
    // unchanged ownership keeps the very list it was read from
    if (m === base.managed && base.list && base.list.length > 0) w.obj.metadata.managedFields = base.list;
    else setManagedFields(w.obj, m);
  }
  keepTimesOfNoop(w.obj, w.old);
}

export interface ApplyInfo {
  def: ResourceDef;
  version: string;
  subresource: string;
  /** The stored object in the request's version (undefined: the apply creates it). */
  live?: KObject;
  /** The intent, decoded and checked. */
  config: Record<string, unknown>;
  manager: string;
  force: boolean;
  now: number;
}

/** The object an apply produces, managedFields included; throws ApplyConflicts. */
export function applyToObject(a: ApplyInfo): KObject {
  const w = scope(a.def, a.version, a.subresource, a.now);
  const managed = decodeOrEmpty(a.live?.metadata.managedFields);
  const r = applyIntent(a.live, a.config, managed, a.manager, a.force, w);
  const obj = r.object as KObject;
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  setManagedFields(obj, r.managed);
  return obj;
}
