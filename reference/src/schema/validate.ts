// Value validation beyond types, as Kubernetes applies it to custom resources: enum,
// format, numeric bounds, string length and pattern, item counts, required fields,
// nullable, int-or-string, embedded resources (apiVersion, kind and metadata checked) and
// the uniqueness rules of `x-orch-list-type` set and map lists. Every failure is a
// StatusCause with the field path and the message Kubernetes uses (kube-openapi wording
// "<path> in body should ..." inside `Invalid value: <v>: ...`).
import type { StatusCause } from '../errors/status.ts';
import { validateEmbedded } from './embedded.ts';
import { stringFormatOk } from './formats.ts';
import type { Schema } from './types.ts';
import { body, duplicate, goNumber, goValue, invalid, required, typeInvalid } from './value-causes.ts';

export { goSyntax, goValue } from './value-causes.ts';

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

function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
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
