// metadata.managedFields: one entry per manager, operation (Apply | Update), apiVersion (for
// Update entries) and subresource, each with the set of fields it owns (`fieldsType:
// FieldsV1`) and the time it last changed. Entries are identified as Kubernetes identifies
// them (an appliers' entry keeps its identity across API versions); they are written sorted
// as Kubernetes sorts them: Apply before Update, then by time, manager, apiVersion and
// subresource.
import { FieldSet } from './fieldpath.ts';
import { isMap } from './typed.ts';

export type Operation = 'Apply' | 'Update';

export interface ManagerEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource: string;
  time?: string;
  set: FieldSet;
}

/** Entries by identifier. */
export type Managed = Map<string, ManagerEntry>;

/** Kubernetes' FieldManagerMaxLength. */
const MANAGER_MAX_BYTES = 128;
/** Kubernetes' DefaultMaxUpdateManagers: older Update entries are merged past this many. */
export const MAX_UPDATE_MANAGERS = 10;
/** The manager that older Update entries are merged into. */
export const ANCIENT_CHANGES = 'ancient-changes';

export class ManagedFieldsError extends Error {}

/** The identity of an entry: manager, operation, subresource, and apiVersion for Update entries. */
export function identifier(
  e: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
): string {
  // the JSON of {manager?, operation, apiVersion?, subresource?}, written out: an identifier is
  // taken on every write
  let id = e.manager ? `{"manager":${JSON.stringify(e.manager)},` : '{';
  id += `"operation":${JSON.stringify(e.operation)}`;
  if (e.operation === 'Update' && e.apiVersion) id += `,"apiVersion":${JSON.stringify(e.apiVersion)}`;
  if (e.subresource) id += `,"subresource":${JSON.stringify(e.subresource)}`;
  return `${id}}`;
}

/** `[{}]`: the request asks for ownership to be forgotten. An empty list does not (on purpose). */
export function isResetRequest(list: unknown): boolean {
  return Array.isArray(list) && list.length === 1 && isMap(list[0]) && Object.keys(list[0]).length === 0;
}

/** Decoded managedFields of stored objects (immutable), by their list. */
const decoded = new WeakMap<object, Managed>();

/** Reads managedFields; anything malformed throws a ManagedFieldsError. The result is shared: never change it. */
export function decodeManagedFields(list: unknown): Managed {
  if (list === undefined || list === null) return new Map();
  if (!Array.isArray(list)) throw new ManagedFieldsError('managedFields must be a list');
  const hit = decoded.get(list);
  if (hit) return hit;
  const out = readEntries(list);
  decoded.set(list, out);
  return out;
}

function readEntries(list: unknown[]): Managed {
  const out: Managed = new Map();
  list.forEach((raw, i) => {
    if (!isMap(raw)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    const { manager = '', operation, apiVersion, time, fieldsType, fieldsV1, subresource = '' } = raw;
    if (operation !== 'Apply' && operation !== 'Update')
      throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (typeof apiVersion !== 'string' || apiVersion === '')
      throw new ManagedFieldsError('apiVersion must not be empty');
    if (fieldsType === undefined || fieldsType === '')
      throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== 'FieldsV1')
      throw new ManagedFieldsError(
        `invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`,
      );
    if (typeof manager !== 'string' || typeof subresource !== 'string')
      throw new ManagedFieldsError(`managed fields entry ${i}: manager and subresource must be strings`);
    if (time !== undefined && time !== null && typeof time !== 'string')
      throw new ManagedFieldsError(`managed fields entry ${i}: time must be a string`);
    let set: FieldSet;
    try {
      set = fieldsV1 === undefined || fieldsV1 === null ? new FieldSet() : FieldSet.decode(fieldsV1);
    } catch (e) {
      throw new ManagedFieldsError(`error decoding versioned set: ${(e as Error).message}`);
    }
    const e: ManagerEntry = { manager, operation, apiVersion, subresource, set };
    if (typeof time === 'string') e.time = time;
    out.set(identifier(e), e);
  });
  return out;
}

const seconds = (t: string | undefined) => {
  const ms = t ? Date.parse(t) : Number.NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
};

const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** managedFields as stored: sorted entries (undefined when nobody owns anything). */
export function encodeManagedFields(m: Managed): Record<string, unknown>[] | undefined {
  const entries = [...m.values()].filter((e) => !e.set.isEmpty());
  if (entries.length === 0) return undefined;
  entries.sort(
    (p, q) =>
      cmpStr(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmpStr(p.manager, q.manager) ||
      cmpStr(p.apiVersion, q.apiVersion) ||
      cmpStr(p.subresource, q.subresource),
  );
  return entries.map((e) => encodeEntry(e, e.set.toFieldsV1()));
}

/** One stored entry, its keys in Kubernetes' order. */
export function encodeEntry(
  e: Omit<ManagerEntry, 'set'>,
  fieldsV1: Record<string, unknown>,
): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (e.manager) o.manager = e.manager;
  o.operation = e.operation;
  o.apiVersion = e.apiVersion;
  if (e.time) o.time = e.time;
  o.fieldsType = 'FieldsV1';
  o.fieldsV1 = fieldsV1;
  if (e.subresource) o.subresource = e.subresource;
  return o;
}

/** Whether two managedFields lists differ only in their entries' times. */
export function equalIgnoringTimes(a: unknown, b: unknown): boolean {
  const strip = (l: unknown) =>
    Array.isArray(l) ? l.map((e) => (isMap(e) ? { ...e, time: undefined } : e)) : l;
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;

/**
 * The manager of a non-apply write: `fieldManager`, else the User-Agent up to its first
 * '/', without unprintable characters and cut at 128 bytes (as Kubernetes derives it).
 */
export function managerFor(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const slash = (userAgent ?? '').indexOf('/');
  const head = slash < 0 ? (userAgent ?? '') : userAgent!.slice(0, slash);
  // printable ASCII within the limit (nearly every client): as it is
  if (head.length <= MANAGER_MAX_BYTES && /^[\x20-\x7e]*$/.test(head)) return head;
  let out = '';
  let bytes = 0;
  for (const ch of (userAgent ?? '').split('/')[0]!) {
    if (!PRINTABLE.test(ch)) continue;
    const n = Buffer.byteLength(ch);
    if (bytes + n > MANAGER_MAX_BYTES) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/**
 * Past MAX_UPDATE_MANAGERS Update entries, the oldest are merged, per apiVersion, into an
 * `ancient-changes` entry (Kubernetes' capManagersManager).
 */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): Managed {
  if (managed.size <= max) return managed;
  const updaters = [...managed.entries()].filter(([, e]) => e.operation === 'Update');
  if (updaters.length <= max) return managed;
  const m = new Map(managed);
  updaters.sort(([ia, a], [ib, b]) => seconds(a.time) - seconds(b.time) || cmpStr(ia, ib));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const [id, e] = updaters[i]!;
    const bucket = identifier({
      manager: ANCIENT_CHANGES,
      operation: 'Update',
      apiVersion: e.apiVersion,
      subresource: '',
    });
    const first = firstByVersion.get(e.apiVersion);
    if (first === undefined) {
      firstByVersion.set(e.apiVersion, id);
      continue;
    }
    if (!m.has(bucket)) {
      const f = m.get(first)!;
      m.delete(first);
      m.set(bucket, { ...f, manager: ANCIENT_CHANGES, subresource: '' });
    }
    const b = m.get(bucket)!;
    m.set(bucket, { ...b, set: e.set.union(b.set), time: e.time });
    m.delete(id);
    length--;
  }
  return m;
}
