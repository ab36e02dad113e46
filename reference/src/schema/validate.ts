// Value validation beyond types, as Kubernetes applies it to custom resources: enum,
// format, numeric bounds, string length and pattern, item counts, required fields,
// nullable, int-or-string, embedded resources (apiVersion, kind and metadata checked) and
// the uniqueness rules of `x-orch-list-type` set and map lists. Every failure is a
// StatusCause with the field path and the message Kubernetes uses (kube-openapi wording
// "<path> in body should ..." inside `Invalid value: <v>: ...`).
import type { StatusCause } from '../errors/status.ts';
import { validLabelKey, validLabelValue } from '../selectors/labels.ts';
import type { Schema } from './types.ts';

/** The OpenAPI keywords value validation reads besides those of the structural `Schema`. */
export interface ValueSchema extends Schema {
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: ValueSchema[];
  anyOf?: ValueSchema[];
  oneOf?: ValueSchema[];
  not?: ValueSchema;
}

export interface ValidateOptions {
  /** Skip these top-level keys (e.g. `apiVersion`, `kind`, `metadata` of a custom resource root). */
  skipRootKeys?: string[];
}

/** Validates a value against a schema; returns every failure (empty when valid). */
export function validateValue(
  value: unknown,
  schema: Schema,
  path = '',
  opts: ValidateOptions = {},
): StatusCause[] {
  const out: StatusCause[] = [];
  walk(value, schema as ValueSchema, path, out, opts.skipRootKeys ?? []);
  return out;
}

// ------------------------------------------------------------ Go-style values

/** A value as Go's `%#v` prints the decoded JSON (`map[string]interface {}{...}`, `[]interface {}{...}`). */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return goNumber(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  return `map[string]interface {}{${keys.map((k) => `${JSON.stringify(k)}:${goSyntax(o[k])}`).join(', ')}}`;
}

function goNumber(v: number | boolean): string {
  if (typeof v === 'boolean') return String(v);
  if (Number.isInteger(v) || !Number.isFinite(v)) return String(v);
  // Go's %v of a float64 uses the shortest representation, with an exponent past 1e21
  const s = String(v);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** A bad value as `field.Error` prints it: strings quoted, numbers and booleans plain, the rest in Go syntax. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return goNumber(v);
  return goSyntax(v);
}

function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

// ------------------------------------------------------------ causes

const invalid = (path: string, value: unknown, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field: path,
  message: `Invalid value: ${goValue(value)}: ${detail}`,
});
const typeInvalid = (path: string, value: unknown, detail: string): StatusCause => ({
  reason: 'FieldValueTypeInvalid',
  field: path,
  message: `Invalid value: ${goValue(value)}: ${detail}`,
});
const required = (path: string, detail = ''): StatusCause => ({
  reason: 'FieldValueRequired',
  field: path,
  message: detail ? `Required value: ${detail}` : 'Required value',
});
const duplicate = (path: string, value: unknown): StatusCause => ({
  reason: 'FieldValueDuplicate',
  field: path,
  message: `Duplicate value: ${typeof value === 'object' && value !== null ? goSyntax(value) : goValue(value)}`,
});
const body = (path: string) => `${path || 'body'} in body`;

// ------------------------------------------------------------ formats

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)\s*(ns|us|µs|ms|s|m|h|d|w)\s*)+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const HOSTNAME = /^[a-zA-Z0-9]([-a-zA-Z0-9]{0,62})?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,62})?)*\.?$/;
const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const MAC = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [
    31,
    (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28,
    31,
    30,
    31,
    30,
    31,
    31,
    30,
    31,
    30,
    31,
  ];
  return d <= days[m - 1]!;
}

function isIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  try {
    return new URL(`http://[${s}]/`).hostname.length > 0;
  } catch {
    return false;
  }
}

/** Whether a string satisfies a format; unknown formats pass (as in kube-openapi). */
export function stringFormatOk(format: string, s: string): boolean {
  switch (format) {
    case 'byte':
      return BASE64.test(s);
    case 'date': {
      const m = DATE.exec(s);
      return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
    }
    case 'date-time':
    case 'datetime': {
      const m = DATE_TIME.exec(s);
      return (
        !!m &&
        validDate(Number(m[1]), Number(m[2]), Number(m[3])) &&
        Number(m[4]) < 24 &&
        Number(m[5]) < 60 &&
        Number(m[6]) < 61
      );
    }
    case 'duration':
      return DURATION.test(s.trim()) && s.trim() !== '';
    case 'uuid':
    case 'uuid3':
    case 'uuid4':
    case 'uuid5':
      return UUID.test(s);
    case 'hostname':
      return s.length <= 255 && HOSTNAME.test(s);
    case 'ipv4':
      return IPV4.test(s);
    case 'ipv6':
      return isIPv6(s);
    case 'cidr': {
      const [ip, bits, ...rest] = s.split('/');
      if (rest.length || bits === undefined || !/^\d+$/.test(bits)) return false;
      if (IPV4.test(ip!)) return Number(bits) <= 32;
      return isIPv6(ip!) && Number(bits) <= 128;
    }
    case 'mac':
      return MAC.test(s);
    case 'email':
      return EMAIL.test(s);
    case 'uri':
      try {
        return !!new URL(s).protocol;
      } catch {
        return false;
      }
    default:
      return true;
  }
}

// ------------------------------------------------------------ the walk

function typeMatches(v: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

function deepEq(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEq(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => k in bo && deepEq(ao[k], bo[k]));
}

function unicodeLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const regexCache = new Map<string, RegExp | null>();
function compile(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      try {
        re = new RegExp(pattern);
      } catch {
        re = null;
      }
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

function walk(v: unknown, s: ValueSchema, path: string, out: StatusCause[], skipRoot: string[]): void {
  if (v === undefined) return;
  if (v === null) {
    if (s.nullable) return;
    const t = s['x-orch-int-or-string'] ? 'integer,string' : s.type;
    if (t) out.push(typeInvalid(path, 'null', `${body(path)} must be of type ${t}: "null"`));
    return;
  }
  if (s['x-orch-int-or-string']) {
    if (!(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)))) {
      out.push(
        typeInvalid(
          path,
          jsonTypeName(v),
          `${body(path)} must be of type integer,string: ${JSON.stringify(jsonTypeName(v))}`,
        ),
      );
      return;
    }
  } else if (s.type && !typeMatches(v, s.type)) {
    const actual = jsonTypeName(v);
    out.push(typeInvalid(path, actual, `${body(path)} must be of type ${s.type}: ${JSON.stringify(actual)}`));
    return;
  }

  if (s.enum && !s.enum.some((e) => deepEq(e, v))) {
    const supported = s.enum
      .map((e) => JSON.stringify(typeof e === 'string' ? e : JSON.stringify(e)))
      .join(', ');
    out.push({
      reason: 'FieldValueNotSupported',
      field: path,
      message: `Unsupported value: ${goValue(v)}${supported ? `: supported values: ${supported}` : ''}`,
    });
  }

  if (typeof v === 'number') numberRules(v, s, path, out);
  else if (typeof v === 'string') stringRules(v, s, path, out);
  else if (Array.isArray(v)) arrayRules(v, s, path, out);
  else if (typeof v === 'object') objectRules(v as Record<string, unknown>, s, path, out, skipRoot);

  junctors(v, s, path, out);
}

function numberRules(v: number, s: ValueSchema, path: string, out: StatusCause[]): void {
  if (s.format === 'int32' && Number.isInteger(v) && (v > 2147483647 || v < -2147483648))
    out.push(typeInvalid(path, v, `${body(path)} must be of type int32: "${v}"`));
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)
      out.push(
        invalid(
          path,
          v,
          `${body(path)} should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${goNumber(s.maximum)}`,
        ),
      );
  }
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)
      out.push(
        invalid(
          path,
          v,
          `${body(path)} should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${goNumber(s.minimum)}`,
        ),
      );
  }
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9)
      out.push(invalid(path, v, `${body(path)} should be a multiple of ${goNumber(s.multipleOf)}`));
  }
}

function stringRules(v: string, s: ValueSchema, path: string, out: StatusCause[]): void {
  if (s.maxLength !== undefined && unicodeLength(v) > s.maxLength)
    out.push({
      reason: 'FieldValueTooLong',
      field: path,
      message: `Too long: may not be longer than ${s.maxLength}`,
    });
  if (s.minLength !== undefined && unicodeLength(v) < s.minLength)
    out.push(invalid(path, v, `${body(path)} should be at least ${s.minLength} chars long`));
  if (s.pattern !== undefined) {
    const re = compile(s.pattern);
    if (re && !re.test(v)) out.push(invalid(path, v, `${body(path)} should match '${s.pattern}'`));
  }
  if (s.format && !stringFormatOk(s.format, v))
    out.push(typeInvalid(path, v, `${body(path)} must be of type ${s.format}: ${JSON.stringify(v)}`));
}

function arrayRules(v: unknown[], s: ValueSchema, path: string, out: StatusCause[]): void {
  if (s.maxItems !== undefined && v.length > s.maxItems)
    out.push({
      reason: 'FieldValueTooMany',
      field: path,
      message: `Too many: ${v.length}: must have at most ${s.maxItems} items`,
    });
  if (s.minItems !== undefined && v.length < s.minItems)
    out.push(invalid(path, v.length, `${body(path)} should have at least ${s.minItems} items`));
  if (s.uniqueItems) {
    outer: for (let i = 0; i < v.length; i++)
      for (let j = 0; j < i; j++)
        if (deepEq(v[i], v[j])) {
          out.push(invalid(path, '', `${body(path)} shouldn't contain duplicates`));
          break outer;
        }
  }
  if (s.items)
    for (const [i, item] of v.entries()) walk(item, s.items as ValueSchema, `${path}[${i}]`, out, []);
  out.push(...listTypeRules(v, s, path));
}

/** `x-orch-list-type`: set items are unique, map items unique by their key fields. */
export function listTypeRules(v: unknown[], s: Schema, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const lt = s['x-orch-list-type'];
  if (lt === 'set') {
    for (let i = 0; i < v.length; i++) {
      for (let j = 0; j < i; j++)
        if (deepEq(v[i], v[j])) {
          out.push(duplicate(`${path}[${i}]`, v[i]));
          break;
        }
    }
  } else if (lt === 'map') {
    for (let i = 0; i < v.length; i++) {
      const it = v[i];
      if (it !== null && (typeof it !== 'object' || Array.isArray(it))) {
        out.push(invalid(`${path}[${i}]`, it, 'must be an object for an array of list-type map'));
        return out;
      }
    }
    const keys = s['x-orch-list-map-keys'] ?? [];
    if (keys.length === 0) return out;
    const itemProps = s.items?.properties ?? {};
    const seen = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const it = v[i] as Record<string, unknown> | null;
      if (it === null) continue;
      const keyVals: Record<string, unknown> = {};
      for (const k of keys) {
        let kv = Object.hasOwn(it, k) ? it[k] : undefined;
        const ks = Object.hasOwn(itemProps, k) ? itemProps[k] : undefined;
        if (kv === undefined && ks?.default !== undefined) kv = ks.default;
        keyVals[k] = kv;
      }
      const sig = JSON.stringify(keys.map((k) => (keyVals[k] === undefined ? { unset: true } : keyVals[k])));
      if (seen.has(sig)) {
        const shown: Record<string, unknown> = {};
        for (const k of keys) if (keyVals[k] !== undefined) shown[k] = keyVals[k];
        out.push(duplicate(`${path}[${i}]`, shown));
      }
      seen.add(sig);
    }
  }
  return out;
}

function objectRules(
  v: Record<string, unknown>,
  s: ValueSchema,
  path: string,
  out: StatusCause[],
  skipRoot: string[],
): void {
  const child = (k: string) => (path ? `${path}.${k}` : k);
  for (const r of s.required ?? []) {
    if (skipRoot.includes(r)) continue;
    if (!Object.hasOwn(v, r) || v[r] === undefined) out.push(required(child(r)));
  }
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties)
    out.push({
      reason: 'FieldValueTooMany',
      field: path,
      message: `Too many: ${n}: must have at most ${s.maxProperties} items`,
    });
  if (s.minProperties !== undefined && n < s.minProperties)
    out.push(invalid(path, n, `${body(path)} should have at least ${s.minProperties} properties`));
  const props = s.properties ?? {};
  const addl = s.additionalProperties;
  for (const [k, val] of Object.entries(v)) {
    if (skipRoot.includes(k)) continue;
    const ps = Object.hasOwn(props, k) ? props[k] : undefined;
    if (ps) walk(val, ps as ValueSchema, child(k), out, []);
    else if (typeof addl === 'object') walk(val, addl as ValueSchema, child(k), out, []);
  }
  if (s['x-orch-embedded-resource']) out.push(...validateEmbedded(v, path));
}

function junctors(v: unknown, s: ValueSchema, path: string, out: StatusCause[]): void {
  const passes = (sub: ValueSchema) => validateValue(v, sub, path).length === 0;
  if (s.allOf?.length) {
    for (const sub of s.allOf) {
      const errs = validateValue(v, sub, path);
      if (errs.length) {
        out.push(...errs);
      }
    }
  }
  if (s.anyOf?.length && !s.anyOf.some(passes) && !isIntOrStringPattern(s.anyOf, s))
    out.push(invalid(path, v, `${body(path)} must validate at least one schema (anyOf)`));
  if (s.oneOf?.length) {
    const n = s.oneOf.filter(passes).length;
    if (n !== 1) out.push(invalid(path, v, `${body(path)} must validate one and only one schema (oneOf)`));
  }
  if (s.not && passes(s.not)) out.push(invalid(path, v, `${body(path)} must not validate the schema (not)`));
}

/** `anyOf: [{type: integer}, {type: string}]` next to `x-orch-int-or-string` is the type itself. */
function isIntOrStringPattern(anyOf: ValueSchema[], s: ValueSchema): boolean {
  return (
    !!s['x-orch-int-or-string'] &&
    anyOf.length === 2 &&
    anyOf.some((a) => a.type === 'integer') &&
    anyOf.some((a) => a.type === 'string')
  );
}

// ------------------------------------------------------------ embedded resources

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function parseGroupVersionProblem(gv: string): string | undefined {
  const parts = gv.split('/');
  if (parts.length > 2) return `unexpected GroupVersion string: ${gv}`;
  return undefined;
}

/** An `x-orch-embedded-resource` object: apiVersion and kind required, metadata valid ObjectMeta. */
export function validateEmbedded(x: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const child = (k: string) => (path ? `${path}.${k}` : k);
  if (!Object.hasOwn(x, 'apiVersion')) out.push(required(child('apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(x, 'kind')) out.push(required(child('kind'), 'must not be empty'));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      if (typeof v !== 'string') out.push(invalid(child(k), v, 'must be a string'));
      else if (!v) out.push(invalid(child(k), v, 'must not be empty'));
      else {
        const p = parseGroupVersionProblem(v);
        if (p) out.push(invalid(child(k), v, p));
      }
    } else if (k === 'kind') {
      if (typeof v !== 'string') out.push(invalid(child(k), v, 'must be a string'));
      else if (!v) out.push(invalid(child(k), v, 'must not be empty'));
      else {
        const lower = v.toLowerCase();
        const problems: string[] = [];
        if (lower.length > 63) problems.push('must be no more than 63 characters');
        if (!DNS1035.test(lower)) problems.push(DNS1035_MSG);
        if (problems.length)
          out.push(
            invalid(child(k), v, `may have mixed case, but should otherwise match: ${problems.join(',')}`),
          );
      }
    } else if (k === 'metadata' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      out.push(...validateEmbeddedMeta(v as Record<string, unknown>, child('metadata')));
    }
  }
  return out;
}

function validateEmbeddedMeta(m: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const name = m.name;
  if (typeof name === 'string' && name) {
    if (name === '.' || name === '..') out.push(invalid(`${path}.name`, name, `may not be '${name}'`));
    else if (name.includes('/')) out.push(invalid(`${path}.name`, name, "may not contain '/'"));
    else if (name.includes('%')) out.push(invalid(`${path}.name`, name, "may not contain '%'"));
  }
  const labels = m.labels;
  if (labels && typeof labels === 'object') {
    for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
      const kp = validLabelKey(k);
      if (kp) out.push(invalid(`${path}.labels`, k, kp));
      const vp = typeof v === 'string' ? validLabelValue(v) : 'must be a string';
      if (vp) out.push(invalid(`${path}.labels`, v, vp));
    }
  }
  const ann = m.annotations;
  if (ann && typeof ann === 'object') {
    for (const k of Object.keys(ann as Record<string, unknown>)) {
      const kp = validLabelKey(k);
      if (kp) out.push(invalid(`${path}.annotations`, k, kp));
    }
  }
  return out;
}
