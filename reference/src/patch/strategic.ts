// Strategic merge patch for built-in kinds, driven by the kind's schema:
// - maps merge recursively; `null` deletes a key;
// - lists whose field carries `x-orch-patch-strategy: merge` merge: lists of objects by
//   `x-orch-patch-merge-key`, lists of primitives as an ordered union; other lists are
//   replaced whole;
// - directives: `$patch: replace | delete` in a map, `$patch: replace | delete` as a list
//   item, `$retainKeys`, `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`.
// The ordering rules (patch order first, then the live order for items only on the
// server) are those of Kubernetes' implementation. A malformed directive is a 400; a list
// of lists is a 422, as Kubernetes answers.
import { errors, StatusError } from '../errors/status.ts';
import type { Schema } from '../schema/types.ts';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

type JMap = Record<string, unknown>;

/** Returned where a value must disappear (a map carrying `$patch: delete`). */
const ABSENT: unique symbol = Symbol('absent');
type Merged<T> = T | typeof ABSENT;

interface FieldMeta {
  schema: Schema | undefined;
  /** The strategy other than retainKeys: 'merge', 'replace' or ''. */
  strategy: string;
  mergeKey: string;
}

export function applyStrategicMergePatch(
  original: unknown,
  patch: unknown,
  schema: Schema | undefined,
): unknown {
  if (!isMap(patch)) throw errors.badRequest('the strategic merge patch must be a JSON object');
  const o = isMap(original) ? structuredClone(original) : {};
  const r = mergeMap(o, structuredClone(patch), schema, '');
  return r === ABSENT ? {} : r;
}

// ------------------------------------------------------------------------------ helpers

function isMap(v: unknown): v is JMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function has(m: JMap, k: string): boolean {
  return Object.hasOwn(m, k);
}

/** The JSON kind of a value, the way the merge compares types. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'map';
  return typeof v;
}

function show(v: unknown): string {
  try {
    const s = JSON.stringify(v);
    return s.length > 200 ? `${s.slice(0, 200)}...` : s;
  } catch {
    return String(v);
  }
}

function at(path: string): string {
  return path ? ` (at ${path})` : '';
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function fieldMeta(schema: Schema | undefined, key: string): FieldMeta {
  const sub =
    schema?.properties?.[key] ??
    (typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined);
  const strategies = (sub?.['x-orch-patch-strategy'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s && s !== 'retainKeys');
  return { schema: sub, strategy: strategies[0] ?? '', mergeKey: sub?.['x-orch-patch-merge-key'] ?? '' };
}

/** `$deleteFromPrimitiveList/finalizers` -> `finalizers`; a malformed key is a 400. */
function extractKey(key: string, prefix: string, path: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix || slash === key.length - 1) {
    const what = prefix === DELETE_FROM_PRIMITIVE_LIST ? 'primitive list' : 'setElementOrder list';
    throw errors.badRequest(
      `invalid patch format of ${what}: "${key}" must be "${prefix}/<field name>"${at(path)}`,
    );
  }
  return key.slice(slash + 1);
}

// ------------------------------------------------------------------------------ maps

function mergeMap(original: JMap, patch: JMap, schema: Schema | undefined, path: string): Merged<JMap> {
  if (has(patch, DIRECTIVE)) {
    const d = patch[DIRECTIVE];
    if (d === 'replace') {
      // the map is taken as sent (directives inside it are still honoured against nothing)
      delete patch[DIRECTIVE];
      return mergeMap({}, patch, schema, path);
    }
    if (d === 'delete') return ABSENT;
    throw errors.badRequest(
      `unknown patch type: ${show(d)} in map: ${show(patch)}${at(path)}; "$patch" in a map accepts "replace" or "delete"`,
    );
  }

  applyRetainKeys(original, patch, path);
  applySetElementOrder(original, patch, schema, path);

  for (const key of Object.keys(patch)) {
    if (key === '__proto__') continue; // never a field; assigning it would change the prototype
    const patchV = patch[key];
    let k = key;
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      k = extractKey(key, DELETE_FROM_PRIMITIVE_LIST, path);
      isDeleteList = true;
    }
    const p = join(path, k);
    if (patchV === null) {
      delete original[k];
      continue;
    }
    const meta = fieldMeta(schema, k);
    if (!has(original, k) || kindOf(original[k]) !== kindOf(patchV)) {
      // nothing to merge with: take the patch value (its directives applied to nothing)
      if (isDeleteList) continue;
      const v = fresh(patchV, meta, p);
      if (v === ABSENT) delete original[k];
      else original[k] = v;
      continue;
    }
    const cur = original[k];
    if (isMap(cur)) {
      const r =
        meta.strategy === 'replace' ? fresh(patchV, meta, p) : mergeMap(cur, patchV as JMap, meta.schema, p);
      if (r === ABSENT) delete original[k];
      else original[k] = r;
    } else if (Array.isArray(cur)) {
      if (meta.strategy === 'merge' || isDeleteList)
        original[k] = mergeList(cur, patchV as unknown[], meta, isDeleteList, p);
      else original[k] = fresh(patchV, meta, p);
    } else {
      original[k] = patchV;
    }
  }
  return original;
}

/**
 * A patch value with nothing to merge into: maps are merged into an empty map (so
 * `$patch` and nulls inside disappear), list items that are directives are dropped.
 */
function fresh(v: unknown, meta: FieldMeta, path: string): Merged<unknown> {
  if (isMap(v)) return mergeMap({}, v, meta.schema, path);
  if (Array.isArray(v)) {
    const items = meta.schema?.items;
    const out: unknown[] = [];
    for (const item of v) {
      if (isMap(item)) {
        if (has(item, DIRECTIVE)) continue;
        const r = mergeMap({}, item, items, path);
        if (r !== ABSENT) out.push(r);
      } else out.push(item);
    }
    return out;
  }
  return v;
}

/** `$retainKeys`: keys of the original missing from the list are cleared. */
function applyRetainKeys(original: JMap, patch: JMap, path: string): void {
  if (!has(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string'))
    throw errors.badRequest(
      `invalid patch format of retainKeys: "$retainKeys" must be a list of field names${at(path)}`,
    );
  const keep = new Set(list as string[]);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k))
      throw errors.badRequest(
        `invalid patch format of retainKeys: field "${k}" is set in the patch but missing from "$retainKeys"${at(path)}`,
      );
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** `$setElementOrder/<field>`: merges the field's list (when patched) and orders it. */
function applySetElementOrder(original: JMap, patch: JMap, schema: Schema | undefined, path: string): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    const k = extractKey(key, SET_ELEMENT_ORDER, path);
    const p = join(path, k);
    if (!Array.isArray(order))
      throw errors.badRequest(
        `invalid patch format of setElementOrder list: "${key}" must be a list${at(path)}`,
      );
    const foundOriginal = has(original, k) && original[k] !== null;
    const foundPatch = has(patch, k) && patch[k] !== null;
    if (foundOriginal && !Array.isArray(original[k]))
      throw errors.badRequest(`invalid patch format of setElementOrder list: ${p} is not a list`);
    if (foundPatch && !Array.isArray(patch[k]))
      throw errors.badRequest(
        `invalid patch format of setElementOrder list: the patch of ${p} is not a list`,
      );
    if (!foundOriginal && !foundPatch) continue;
    const originalList = foundOriginal ? (original[k] as unknown[]) : [];
    const patchList = foundPatch ? (patch[k] as unknown[]) : [];
    const meta = fieldMeta(schema, k);
    validateAgainstOrder(patchList, order, meta.mergeKey, p);

    let merged: unknown[];
    if (!foundPatch) merged = originalList;
    else if (!foundOriginal) merged = fresh(patchList, meta, p) as unknown[];
    else if (meta.strategy === 'merge') merged = mergeList(originalList, patchList, meta, false, p);
    else merged = fresh(patchList, meta, p) as unknown[];

    if (merged.length > 0) {
      const kind = elementKind([...originalList, ...patchList, ...merged], p);
      const mergeKey = kind === 'map' ? requireMergeKey(meta, p) : '';
      if (kind === 'map') checkMergeKeys(order, mergeKey, p);
      const [inOrder, serverOnly] = partition(merged, order, mergeKey);
      merged = normalizeElementOrder(inOrder, serverOnly, order, originalList, mergeKey);
    }
    original[k] = merged;
    delete patch[k];
  }
}

/**
 * Items of the patch list must appear in `$setElementOrder` in the same relative order
 * (items deleting with `$patch` are ignored).
 */
function validateAgainstOrder(patchList: unknown[], order: unknown[], mergeKey: string, path: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = patchList.filter((x) => !(isMap(x) && has(x, DIRECTIVE)));
  let pi = 0;
  let oi = 0;
  while (pi < items.length && oi < order.length) {
    if (sameItem(items[pi], order[oi], mergeKey, path)) pi++;
    oi++;
  }
  if (pi < items.length)
    throw errors.badRequest(
      `invalid patch format of setElementOrder list: the order in the patch list ${show(patchList)} does not match $setElementOrder/${lastSegment(path)} ${show(order)}${at(path)}`,
    );
}

function lastSegment(path: string): string {
  const i = path.lastIndexOf('.');
  return i < 0 ? path : path.slice(i + 1);
}

function sameItem(a: unknown, b: unknown, mergeKey: string, path: string): boolean {
  if (!mergeKey) return a === b;
  if (!isMap(a) || !isMap(b))
    throw errors.badRequest(`the items of ${path} must be objects carrying "${mergeKey}"`);
  if (!has(a, mergeKey)) throw noMergeKey(a, mergeKey, path);
  if (!has(b, mergeKey)) throw noMergeKey(b, mergeKey, path);
  return a[mergeKey] === b[mergeKey];
}

// ------------------------------------------------------------------------------ lists

function noMergeKey(item: unknown, mergeKey: string, path: string): StatusError {
  return errors.badRequest(`map: ${show(item)} does not contain declared merge key: ${mergeKey}${at(path)}`);
}

function requireMergeKey(meta: FieldMeta, path: string): string {
  if (!meta.mergeKey) throw errors.badRequest(`cannot merge lists without merge key for ${path}`);
  return meta.mergeKey;
}

/** 'map' or the primitive type shared by every item; mixed items are a 400, nested lists a 422. */
function elementKind(items: unknown[], path: string): string {
  let kind = '';
  for (const v of items) {
    const k = kindOf(v);
    if (k === 'array')
      throw new StatusError(
        422,
        'Invalid',
        `the server rejected our request due to an error in our request`,
        {
          causes: [{ reason: 'FieldValueInvalid', message: 'lists of lists are not supported', field: path }],
        },
      );
    if (!kind) kind = k;
    else if (kind !== k)
      throw errors.badRequest(`list element types are not identical${at(path)}: ${show(items)}`);
  }
  return kind;
}

function mergeList(
  original: unknown[],
  patch: unknown[],
  meta: FieldMeta,
  isDeleteList: boolean,
  path: string,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind([...original, ...patch], path);
  let merged: unknown[];
  let base = original;
  let items = patch;
  let mergeKey = '';
  if (kind !== 'map') {
    if (isDeleteList) {
      const drop = new Set(patch);
      return original.filter((v) => !drop.has(v));
    }
    merged = [...new Set([...original, ...patch])];
  } else {
    mergeKey = requireMergeKey(meta, path);
    [base, items] = specialElements(original, patch, mergeKey, path);
    merged = [...base];
    const at = positions(merged, mergeKey);
    for (const v of items as JMap[]) {
      if (!has(v, mergeKey)) throw noMergeKey(v, mergeKey, path);
      const i = at.get(v[mergeKey]) ?? -1;
      const p = `${path}[${mergeKey}=${show(v[mergeKey])}]`;
      // (no ABSENT here: items carrying $patch were taken out above)
      if (i >= 0) {
        const r = mergeMap(merged[i] as JMap, v, meta.schema?.items, p);
        if (r !== ABSENT) merged[i] = r;
      } else {
        const r = mergeMap({}, v, meta.schema?.items, p);
        if (r !== ABSENT) {
          at.set(v[mergeKey], merged.length);
          merged.push(r);
        }
      }
    }
  }
  const [inPatch, serverOnly] = partition(merged, items, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, items, base, mergeKey);
}

/**
 * List items carrying `$patch`: `delete` removes every original item with the same merge
 * key; `replace` makes the other patch items the whole list.
 */
function specialElements(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  path: string,
): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  let base = original;
  let replace = false;
  for (const v of patch as JMap[]) {
    if (!has(v, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    const d = v[DIRECTIVE];
    if (d === 'delete') {
      if (!has(v, mergeKey)) throw noMergeKey(v, mergeKey, path);
      base = base.filter((o) => (o as JMap)[mergeKey] !== v[mergeKey]);
    } else if (d === 'replace') {
      replace = true;
    } else if (d === 'merge') {
      throw errors.badRequest(
        `merging lists cannot yet be specified in the patch${at(path)}: "$patch: merge" is not a list item directive`,
      );
    } else {
      throw errors.badRequest(
        `unknown patch type: ${show(d)} in map: ${show(v)}${at(path)}; "$patch" in a list item accepts "replace" or "delete"`,
      );
    }
  }
  return replace ? [plain, []] : [base, plain];
}

function checkMergeKeys(list: unknown[], mergeKey: string, path: string): void {
  for (const v of list) {
    if (!isMap(v)) throw errors.badRequest(`the items of ${path} must be objects carrying "${mergeKey}"`);
    if (!has(v, mergeKey)) throw noMergeKey(v, mergeKey, path);
  }
}

function identity(v: unknown, mergeKey: string): unknown {
  return mergeKey ? (isMap(v) ? v[mergeKey] : undefined) : v;
}

/** Position of each identity in a list (first occurrence). */
function positions(list: unknown[], mergeKey: string): Map<unknown, number> {
  const m = new Map<unknown, number>();
  list.forEach((v, i) => {
    const id = identity(v, mergeKey);
    if (!m.has(id)) m.set(id, i);
  });
  return m;
}

/** Items present in `by` (by merge key or value), and the others. */
function partition(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const ids = new Set(by.map((v) => identity(v, mergeKey)));
  const inside: unknown[] = [];
  const outside: unknown[] = [];
  for (const v of list) (ids.has(identity(v, mergeKey)) ? inside : outside).push(v);
  return [inside, outside];
}

/** Stable sort by position in `order`; items not in it keep their place after the others. */
function sortBy(list: unknown[], order: unknown[], mergeKey: string): unknown[] {
  const pos = positions(order, mergeKey);
  return list
    .map((v, i) => ({ v, i, at: pos.get(identity(v, mergeKey)) ?? -1 }))
    .sort((a, b) => {
      if (a.at >= 0 && b.at >= 0) return a.at - b.at || a.i - b.i;
      if (a.at >= 0) return -1;
      if (b.at >= 0) return 1;
      return a.i - b.i;
    })
    .map((x) => x.v);
}

/**
 * Patch items in the patch's order, server-only items in the live order, the two
 * interleaved: a server-only item goes before the next patch item when the live list has
 * it earlier.
 */
function normalizeElementOrder(
  inPatch: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
): unknown[] {
  const right = sortBy(inPatch, patchOrder, mergeKey);
  const left = sortBy(serverOnly, serverOrder, mergeKey);
  const live = positions(serverOrder, mergeKey);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = live.get(identity(left[i], mergeKey)) ?? -1;
      const ri = live.get(identity(right[j], mergeKey)) ?? -1;
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}
