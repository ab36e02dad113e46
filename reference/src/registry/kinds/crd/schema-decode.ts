// The JSON types of JSONSchemaProps keywords: a schema whose keyword has the wrong type is
// refused with a 400, as the Go decoder does.
import { errors } from '../../../errors/status.ts';
import type { KObject } from '../../../storage/types.ts';
import { CRD_KIND, specOf } from './shared.ts';
import { isObj } from './validation-causes.ts';

/** Kind of each JSONSchemaProps keyword, for decoding errors (a 400, as the Go decoder gives). */
const KEYWORD_TYPES: Record<
  string,
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'object'
  | 'array'
  | 'schemaOrBool'
  | 'schemaOrArray'
  | 'stringArray'
  | 'schemaArray'
  | 'schemaMap'
> = {
  id: 'string',
  $schema: 'string',
  $ref: 'string',
  description: 'string',
  type: 'string',
  format: 'string',
  title: 'string',
  maximum: 'number',
  exclusiveMaximum: 'boolean',
  minimum: 'number',
  exclusiveMinimum: 'boolean',
  maxLength: 'integer',
  minLength: 'integer',
  pattern: 'string',
  maxItems: 'integer',
  minItems: 'integer',
  uniqueItems: 'boolean',
  multipleOf: 'number',
  enum: 'array',
  maxProperties: 'integer',
  minProperties: 'integer',
  required: 'stringArray',
  items: 'schemaOrArray',
  allOf: 'schemaArray',
  oneOf: 'schemaArray',
  anyOf: 'schemaArray',
  not: 'object',
  properties: 'schemaMap',
  additionalProperties: 'schemaOrBool',
  patternProperties: 'schemaMap',
  dependencies: 'object',
  additionalItems: 'schemaOrBool',
  definitions: 'schemaMap',
  externalDocs: 'object',
  nullable: 'boolean',
  'x-orch-preserve-unknown-fields': 'boolean',
  'x-orch-embedded-resource': 'boolean',
  'x-orch-int-or-string': 'boolean',
  'x-orch-list-map-keys': 'stringArray',
  'x-orch-list-type': 'string',
  'x-orch-map-type': 'string',
  'x-orch-validations': 'array',
};

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** The first keyword of a JSONSchemaProps tree whose JSON type is wrong (the Go decoder fails on it). */
function schemaDecodeError(s: unknown, path: string): string | undefined {
  if (!isObj(s))
    return `cannot unmarshal ${jsonKind(s)} into Go struct field ${path} of type v1.JSONSchemaProps`;
  for (const [k, v] of Object.entries(s)) {
    const t = KEYWORD_TYPES[k];
    if (!t || v === null) continue;
    const at = `${path}.${k}`;
    const bad = (want: string) =>
      `cannot unmarshal ${jsonKind(v)} into Go struct field JSONSchemaProps${at.slice(at.indexOf('.'))} of type ${want}`;
    switch (t) {
      case 'string':
        if (typeof v !== 'string') return bad('string');
        break;
      case 'number':
        if (typeof v !== 'number') return bad('float64');
        break;
      case 'integer':
        if (typeof v !== 'number' || !Number.isInteger(v)) return bad('int64');
        break;
      case 'boolean':
        if (typeof v !== 'boolean') return bad('bool');
        break;
      case 'object':
        if (!isObj(v)) return bad('object');
        if (k === 'not') {
          const e = schemaDecodeError(v, at);
          if (e) return e;
        }
        break;
      case 'array':
        if (!Array.isArray(v)) return bad('array');
        break;
      case 'stringArray':
        if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return bad('[]string');
        break;
      case 'schemaArray':
        if (!Array.isArray(v)) return bad('[]v1.JSONSchemaProps');
        for (let i = 0; i < v.length; i++) {
          const e = schemaDecodeError(v[i], `${at}[${i}]`);
          if (e) return e;
        }
        break;
      case 'schemaMap':
        if (!isObj(v)) return bad('map[string]v1.JSONSchemaProps');
        for (const [pk, pv] of Object.entries(v)) {
          const e = schemaDecodeError(pv, `${at}.${pk}`);
          if (e) return e;
        }
        break;
      case 'schemaOrBool':
        if (typeof v !== 'boolean') {
          const e = schemaDecodeError(v, at);
          if (e) return e;
        }
        break;
      case 'schemaOrArray':
        if (Array.isArray(v)) {
          for (let i = 0; i < v.length; i++) {
            const e = schemaDecodeError(v[i], `${at}[${i}]`);
            if (e) return e;
          }
        } else {
          const e = schemaDecodeError(v, at);
          if (e) return e;
        }
        break;
    }
  }
  return undefined;
}

/** Throws a 400 when a schema keyword has the wrong JSON type (the Go decoder would fail). */
export function checkSchemaTypes(o: KObject): void {
  const versions = specOf(o).versions;
  if (!Array.isArray(versions)) return;
  for (const v of versions) {
    const s = v?.schema?.openAPIV3Schema;
    if (s === undefined || s === null) continue;
    const e = schemaDecodeError(s, 'spec.versions.schema.openAPIV3Schema');
    if (e)
      throw errors.badRequest(`${CRD_KIND} in version "v1" cannot be handled as a ${CRD_KIND}: json: ${e}`);
  }
}
