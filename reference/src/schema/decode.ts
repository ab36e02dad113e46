// Checks a decoded body against a structural schema: reports wrong types and unknown
// fields, and returns a pruned copy (unknown fields dropped unless the schema preserves them).
// A value the caller owns alone (a body just parsed) is kept where nothing is dropped: only
// the objects and lists on the way to a dropped field are copied.
import { objectMeta } from './meta.ts';
import type { Schema } from './types.ts';

export interface DecodeResult {
  value: unknown;
  /** Paths of unknown fields that were dropped. */
  unknown: string[];
  /** Type errors: path and a human message. */
  typeErrors: { path: string; message: string; expected: string; actual: string }[];
}

export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * `owned`: nothing else holds `value` or any part of it, and no two of its places share a part
 * (a JSON body just parsed), so what needs no change is returned as it is. Otherwise (a patched
 * object, which may share parts with a stored one; YAML with aliases) every object and list is
 * copied.
 */
export function decodeWithSchema(value: unknown, schema: Schema, owned = false): DecodeResult {
  const res: DecodeResult = { value: undefined, unknown: [], typeErrors: [] };
  res.value = walk(value, schema, { at: [], res, owned });
  return res;
}

/**
 * One decode's state: the keys and indexes from the top to the value being looked at (a path
 * is written out only for a finding, not for every field), and what it found.
 */
interface Walk {
  at: (string | number)[];
  res: DecodeResult;
  /** Keep what needs no change (see decodeWithSchema). */
  owned: boolean;
}

/** What decoding a field gives when the field is dropped. */
const DROPPED = Symbol('dropped');

/** The path of the value being looked at: `a.b[0].c`. */
function pathOf(w: Walk): string {
  let p = '';
  for (const x of w.at) p = typeof x === 'number' ? `${p}[${x}]` : p ? `${p}.${x}` : x;
  return p;
}

function typeOk(v: unknown, s: Schema): boolean {
  if (v === null) return true; // null means "unset" for optional fields, as in Kubernetes' decoder
  if (s['x-orch-int-or-string'])
    return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
  switch (s.type) {
    case undefined:
      return true;
    case 'object':
      return typeof v === 'object' && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      // Go's int64: a number past its range does not decode
      return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63;
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
  }
}

/** Sets `k` on a decoded object: `__proto__` (a client's key) stays an ordinary own key, never reaches a prototype. */
function put(out: Record<string, unknown>, k: string, val: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(out, k, { value: val, writable: true, enumerable: true, configurable: true });
  else out[k] = val;
}

/** `v` below key or index `k`. */
function below(v: unknown, s: Schema, k: string | number, w: Walk): unknown {
  w.at.push(k);
  const r = walk(v, s, w);
  w.at.pop();
  return r;
}

function walk(v: unknown, s: Schema, w: Walk): unknown {
  if (!typeOk(v, s)) {
    const expected = s['x-orch-int-or-string'] ? 'int-or-string' : s.type!;
    const path = pathOf(w);
    w.res.typeErrors.push({
      path,
      expected,
      actual: jsonType(v),
      message: `${path || '<root>'}: Invalid value: "${jsonType(v)}": ${path || 'body'} in body must be of type ${expected}: "${jsonType(v)}"`,
    });
    return v;
  }
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const items = s.items;
    if (!items) return v;
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = below(v[i], items, i, w);
      if (out) out[i] = item;
      else if (!w.owned || item !== v[i]) {
        out = v.slice(0, i);
        out[i] = item;
      }
    }
    return out ?? (w.owned ? v : []);
  }
  const obj = v as Record<string, unknown>;
  const props = s.properties;
  const addl = s.additionalProperties;
  const embedded = !!s['x-orch-embedded-resource'];
  if (!props && addl === undefined && !embedded) {
    // An object with no declared fields: free-form (preserve) or, when typed as object with
    // nothing else, keeps its content only under preserve-unknown-fields.
    if (s['x-orch-preserve-unknown-fields'] || s.type === undefined) return v;
  }
  const keys = Object.keys(obj);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const field = decodeField(obj[k], k, s, props, addl, embedded, w);
    if (out) {
      if (field !== DROPPED) put(out, k, field);
    } else if (!w.owned || field === DROPPED || field !== obj[k]) {
      // the first change (or a copy asked for): the fields before it as they were
      out = {};
      for (let j = 0; j < i; j++) put(out, keys[j]!, obj[keys[j]!]);
      if (field !== DROPPED) put(out, k, field);
    }
  }
  return out ?? (w.owned ? v : {});
}

/** One field of an object decoded against the object's schema, or DROPPED (an unknown field). */
function decodeField(
  val: unknown,
  k: string,
  s: Schema,
  props: Schema['properties'],
  addl: Schema['additionalProperties'],
  embedded: boolean,
  w: Walk,
): unknown {
  const child = props && Object.hasOwn(props, k) ? props[k] : undefined;
  // an embedded resource keeps apiVersion, kind and metadata; its metadata is ObjectMeta
  if (embedded && k === 'metadata') return below(val, objectMeta, k, w);
  if (child) return below(val, child, k, w);
  if (typeof addl === 'object') return below(val, addl, k, w);
  if (addl === true || s['x-orch-preserve-unknown-fields']) return val;
  if (embedded && (k === 'apiVersion' || k === 'kind')) return val;
  w.at.push(k);
  w.res.unknown.push(pathOf(w));
  w.at.pop();
  return DROPPED;
}

/** Whether a schema requires a field anywhere below it (schemas are shared and never change: found once). */
const requiresBelow = new WeakMap<Schema, boolean>();

function mayRequire(s: Schema): boolean {
  // the walk asks this at every node: a known answer costs no allocation
  return requiresBelow.get(s) ?? findRequired(s, new Set());
}

function findRequired(s: Schema, seen: Set<Schema>): boolean {
  const known = requiresBelow.get(s);
  if (known !== undefined) return known;
  // a schema that contains itself requires what the rest of it does
  if (seen.has(s)) return false;
  seen.add(s);
  let r = !!s.required?.length;
  if (!r && s.items) r = findRequired(s.items, seen);
  if (!r && typeof s.additionalProperties === 'object') r = findRequired(s.additionalProperties, seen);
  if (!r && s.properties) for (const k in s.properties) if (findRequired(s.properties[k]!, seen)) r = true;
  seen.delete(s);
  if (seen.size === 0 || r) requiresBelow.set(s, r);
  return r;
}

/** The fields of a schema below which something is required (found once a schema: ObjectMeta's sixteen fields come down to its owner references). */
const requiring = new WeakMap<Schema, string[]>();

function requiringFields(s: Schema): string[] {
  let fields = requiring.get(s);
  if (!fields) {
    fields = [];
    for (const k in s.properties) if (mayRequire(s.properties[k]!)) fields.push(k);
    requiring.set(s, fields);
  }
  return fields;
}

/** Missing required fields, as `path.field` strings (a path is written only for a field that is missing). */
export function missingRequired(v: unknown, s: Schema): string[] {
  const out: string[] = [];
  /** The keys and indexes from the top to the value being looked at. */
  const at: (string | number)[] = [];
  const named = (field: string) => {
    let p = '';
    for (const x of at) p += typeof x === 'number' ? `[${x}]` : p ? `.${x}` : x;
    return p ? `${p}.${field}` : field;
  };
  const walk = (v: unknown, s: Schema): void => {
    // most of an object's schema requires nothing (a ConfigMap's: an owner reference's fields)
    if (v === null || typeof v !== 'object' || !mayRequire(s)) return;
    if (Array.isArray(v)) {
      if (!s.items) return;
      for (let i = 0; i < v.length; i++) {
        at.push(i);
        walk(v[i], s.items);
        at.pop();
      }
      return;
    }
    const obj = v as Record<string, unknown>;
    if (s.required)
      for (const r of s.required) if (obj[r] === undefined || obj[r] === null) out.push(named(r));
    // only objects and lists can hold a missing field: scalars are passed over
    const inner = (k: string, val: unknown, ks: Schema) => {
      if (val === null || typeof val !== 'object') return;
      at.push(k);
      walk(val, ks);
      at.pop();
    };
    if (s.properties) for (const k of requiringFields(s)) inner(k, obj[k], s.properties[k]!);
    else if (typeof s.additionalProperties === 'object' && mayRequire(s.additionalProperties))
      for (const k in obj) inner(k, obj[k], s.additionalProperties);
  };
  walk(v, s);
  return out;
}
