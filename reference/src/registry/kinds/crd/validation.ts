// The CRD validation rules: names, scope, versions, structural schemas, subresources and printer columns.
import { errors, type StatusCause } from '../../../errors/status.ts';
import { goValue, validateValue } from '../../../schema/validate.ts';
import type { KObject } from '../../../storage/types.ts';
import { deepEqual } from '../../../util/object.ts';
import { type AcceptedNames, type CrdVersion, parseJsonPath } from '../../custom.ts';
import { ruleProblems } from '../../custom-rules.ts';
import { nameProblem } from '../../validation.ts';
import { CRD_KIND, isConditionTrue, specOf, statusOf } from './shared.ts';

const cause = (reason: string, field: string, message: string): StatusCause => ({ reason, field, message });
const required = (field: string, detail = '') =>
  cause('FieldValueRequired', field, detail ? `Required value: ${detail}` : 'Required value');
const invalid = (field: string, value: unknown, detail: string) =>
  cause('FieldValueInvalid', field, `Invalid value: ${goValue(value)}: ${detail}`);
const invalidRaw = (field: string, shown: string, detail: string) =>
  cause('FieldValueInvalid', field, `Invalid value: ${shown}: ${detail}`);
const forbidden = (field: string, detail: string) =>
  cause('FieldValueForbidden', field, `Forbidden: ${detail}`);
const notSupported = (field: string, value: unknown, supported: string[]) =>
  cause(
    'FieldValueNotSupported',
    field,
    `Unsupported value: ${goValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  );

const DNS1035_FORMAT =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** Every problem of a DNS-1035 label (length and format), as Kubernetes lists them. */
function dns1035(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v)) out.push(DNS1035_FORMAT);
  return out;
}

function dns1123Subdomain(v: string): string[] {
  const out: string[] = [];
  if (v.length > 253) out.push('must be no more than 253 characters');
  const p = nameProblem(v.length > 253 ? 'a' : v, 'subdomain');
  if (p) out.push(p);
  return out;
}

function goVersions(vs: CrdVersion[] | undefined): string {
  if (!vs || vs.length === 0) return '[]apiextensions.CustomResourceDefinitionVersion(nil)';
  const items = vs.map(
    (v) =>
      `apiextensions.CustomResourceDefinitionVersion{Name:${JSON.stringify(String(v?.name ?? ''))}, Served:${!!v?.served}, Storage:${!!v?.storage}, ...}`,
  );
  return `[]apiextensions.CustomResourceDefinitionVersion{${items.join(', ')}}`;
}

function validateNames(n: Partial<AcceptedNames> | undefined, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!n) return out;
  const check = (field: string, v: string | undefined, mixed: boolean) => {
    if (!v) return;
    const errs = dns1035(mixed ? v.toLowerCase() : v);
    if (errs.length)
      out.push(
        invalid(
          `${path}.${field}`,
          v,
          mixed ? `may have mixed case, but should otherwise match: ${errs.join(',')}` : errs.join(','),
        ),
      );
  };
  check('plural', n.plural, false);
  check('singular', n.singular, false);
  check('kind', n.kind, true);
  check('listKind', n.listKind, true);
  (n.shortNames ?? []).forEach((s, i) => {
    const errs = dns1035(s);
    if (errs.length) out.push(invalid(`${path}.shortNames[${i}]`, s, errs.join(',')));
  });
  if (n.kind && n.kind === n.listKind)
    out.push(invalid(`${path}.listKind`, n.listKind, 'kind and listKind may not be the same'));
  (n.categories ?? []).forEach((s, i) => {
    const errs = dns1035(s);
    if (errs.length) out.push(invalid(`${path}.categories[${i}]`, s, errs.join(',')));
  });
  return out;
}

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const PRINTER_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const ROOT_FIELDS_WITH_STATUS = new Set([
  'description',
  'type',
  'format',
  'title',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'required',
  'items',
  'properties',
  'externalDocs',
  'example',
  'x-orch-preserve-unknown-fields',
  'x-orch-validations',
]);

type JSP = Record<string, unknown>;

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

const isObj = (v: unknown): v is JSP => typeof v === 'object' && v !== null && !Array.isArray(v);

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

type Level = 'root' | 'item' | 'field';

interface SchemaCtx {
  structural: StatusCause[];
  openapi: StatusCause[];
}

/** Structural-schema and OpenAPI rules of one schema node (Kubernetes' ValidateStructural and ValidateCustomResourceDefinitionOpenAPISchema). */
function validateSchemaNode(
  s: JSP,
  path: string,
  level: Level,
  ctx: SchemaCtx,
  opts: { insideMeta: boolean; topMeta: boolean },
): void {
  const type = typeof s.type === 'string' ? s.type : '';
  const props = isObj(s.properties) ? (s.properties as Record<string, JSP>) : undefined;
  const hasProps = !!props && Object.keys(props).length > 0;
  const intOrString = s['x-orch-int-or-string'] === true;
  const preserve = s['x-orch-preserve-unknown-fields'] === true;
  const embedded = s['x-orch-embedded-resource'] === true;
  const st = ctx.structural;
  const oa = ctx.openapi;

  // --- structural invariants
  if (type === 'array' && s.items === undefined) st.push(required(`${path}.items`, 'must be specified'));
  if (s.additionalProperties !== undefined && level === 'root')
    st.push(forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
  if (embedded && type !== 'object') {
    if (!type) st.push(required(`${path}.type`, 'must be object if x-orch-embedded-resource is true'));
    else st.push(invalid(`${path}.type`, type, 'must be object if x-orch-embedded-resource is true'));
  } else if (!type && !intOrString && !preserve) {
    const what =
      level === 'root'
        ? 'at the root'
        : level === 'item'
          ? 'for specified array items'
          : 'for specified object fields';
    st.push(required(`${path}.type`, `must not be empty ${what}`));
  }
  if (embedded && s.additionalProperties !== undefined)
    st.push(forbidden(`${path}.additionalProperties`, 'must not be used if x-orch-embedded-resource is set'));
  if (level === 'root' && type && type !== 'object')
    st.push(invalid(`${path}.type`, type, 'must be object at the root'));
  const checkMetadata = level === 'root' || embedded;
  if (props && checkMetadata) {
    for (const k of ['kind', 'apiVersion']) {
      const p = props[k];
      if (isObj(p) && p.type !== 'string')
        st.push(invalid(`${path}.properties[${k}].type`, p.type ?? '', 'must be string'));
    }
  }
  const meta = props?.metadata;
  if (isObj(meta)) {
    if (checkMetadata && meta.type !== 'object')
      st.push(invalid(`${path}.properties[metadata].type`, meta.type ?? '', 'must be object'));
    if (level === 'root') {
      const keys = Object.keys(meta).filter((k) => k !== 'type' && k !== 'default');
      const mp = isObj(meta.properties) ? Object.keys(meta.properties) : [];
      const onlyNames = mp.every((k) => k === 'name' || k === 'generateName');
      const other = keys.filter((k) => k !== 'properties');
      if (!onlyNames || other.length > 0)
        st.push(
          forbidden(
            `${path}.properties[metadata]`,
            'must not specify anything other than name and generateName, but metadata is implicitly specified',
          ),
        );
    }
  }
  if (embedded && !preserve && !hasProps)
    st.push(
      required(
        `${path}.properties`,
        'must not be empty if x-orch-embedded-resource is true without x-orch-preserve-unknown-fields',
      ),
    );
  if (intOrString && preserve)
    st.push(
      invalid(
        `${path}.x-orch-preserve-unknown-fields`,
        true,
        'must be false if x-orch-int-or-string is true',
      ),
    );
  if (intOrString && embedded)
    st.push(
      invalid(`${path}.x-orch-embedded-resource`, true, 'must be false if x-orch-int-or-string is true'),
    );
  if (typeof s.pattern === 'string') {
    try {
      new RegExp(s.pattern, 'u');
    } catch (e) {
      try {
        new RegExp(s.pattern);
      } catch {
        st.push(
          invalid(
            `${path}.pattern`,
            s.pattern,
            `must be a valid regular expression, but isn't: ${(e as Error).message}`,
          ),
        );
      }
    }
  }
  // value validations (allOf, anyOf, oneOf, not) may not declare structure
  const nested = (n: unknown, p: string, skipType: boolean) => {
    if (!isObj(n)) return;
    if (n.type !== undefined && !skipType) st.push(forbidden(`${p}.type`, 'must be empty to be structural'));
    if (n.additionalProperties !== undefined)
      st.push(forbidden(`${p}.additionalProperties`, 'must be undefined to be structural'));
    if (n.default !== undefined) st.push(forbidden(`${p}.default`, 'must be undefined to be structural'));
    if (n.title !== undefined && n.title !== '')
      st.push(forbidden(`${p}.title`, 'must be empty to be structural'));
    if (n.description !== undefined && n.description !== '')
      st.push(forbidden(`${p}.description`, 'must be empty to be structural'));
    if (n.nullable === true) st.push(forbidden(`${p}.nullable`, 'must be false to be structural'));
    for (const ext of ['x-orch-preserve-unknown-fields', 'x-orch-embedded-resource', 'x-orch-int-or-string'])
      if (n[ext] === true) st.push(forbidden(`${p}.${ext}`, 'must be false to be structural'));
    if (Array.isArray(n['x-orch-list-map-keys']) && n['x-orch-list-map-keys'].length)
      st.push(forbidden(`${p}.x-orch-list-map-keys`, 'must be empty to be structural'));
    if (n['x-orch-list-type'] !== undefined)
      st.push(forbidden(`${p}.x-orch-list-type`, 'must be undefined to be structural'));
    if (n['x-orch-map-type'] !== undefined)
      st.push(forbidden(`${p}.x-orch-map-type`, 'must be undefined to be structural'));
    if (isObj(n.properties)) {
      if ('metadata' in n.properties)
        st.push(forbidden(`${p}.properties[metadata]`, 'must not be specified in a nested context'));
      for (const [k, v] of Object.entries(n.properties)) nested(v, `${p}.properties[${k}]`, false);
    }
    if (isObj(n.items)) nested(n.items, `${p}.items`, false);
    for (const j of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(n[j]))
        for (const [i, x] of (n[j] as unknown[]).entries()) nested(x, `${p}.${j}[${i}]`, false);
    if (isObj(n.not)) nested(n.not, `${p}.not`, false);
  };
  const intOrStringAnyOf = (a: unknown) =>
    Array.isArray(a) &&
    a.length === 2 &&
    isObj(a[0]) &&
    isObj(a[1]) &&
    a[0].type === 'integer' &&
    a[1].type === 'string' &&
    Object.keys(a[0]).length === 1 &&
    Object.keys(a[1]).length === 1;
  if (Array.isArray(s.anyOf)) {
    const skip = intOrStringAnyOf(s.anyOf);
    for (const [i, x] of (s.anyOf as unknown[]).entries()) nested(x, `${path}.anyOf[${i}]`, skip);
  }
  if (Array.isArray(s.allOf))
    for (const [i, x] of (s.allOf as unknown[]).entries())
      nested(x, `${path}.allOf[${i}]`, i === 0 && isObj(x) && intOrStringAnyOf(x.anyOf));
  if (Array.isArray(s.oneOf))
    for (const [i, x] of (s.oneOf as unknown[]).entries()) nested(x, `${path}.oneOf[${i}]`, false);
  if (isObj(s.not)) nested(s.not, `${path}.not`, false);

  // --- OpenAPI rules
  if (type && !OPENAPI_TYPES.includes(type)) oa.push(notSupported(`${path}.type`, type, OPENAPI_TYPES));
  if (s.default !== undefined && opts.topMeta)
    oa.push(forbidden(`${path}.default`, 'must not be set in top-level metadata'));
  if (s.id !== undefined && s.id !== '') oa.push(forbidden(`${path}.id`, 'id is not supported'));
  if (s.additionalItems !== undefined)
    oa.push(forbidden(`${path}.additionalItems`, 'additionalItems is not supported'));
  if (isObj(s.patternProperties) && Object.keys(s.patternProperties).length)
    oa.push(forbidden(`${path}.patternProperties`, 'patternProperties is not supported'));
  if (isObj(s.definitions) && Object.keys(s.definitions).length)
    oa.push(forbidden(`${path}.definitions`, 'definitions is not supported'));
  if (s.dependencies !== undefined)
    oa.push(forbidden(`${path}.dependencies`, 'dependencies is not supported'));
  if (s.$ref !== undefined) oa.push(forbidden(`${path}.$ref`, '$ref is not supported'));
  if (type === 'null')
    oa.push(forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items))
    oa.push(forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (opts.insideMeta && embedded)
    oa.push(forbidden(`${path}.x-orch-embedded-resource`, 'must not be used inside of resource meta'));
  if (s.uniqueItems === true)
    oa.push(
      forbidden(
        `${path}.uniqueItems`,
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  if (
    s.additionalProperties !== undefined &&
    hasProps &&
    (s.additionalProperties === false || isObj(s.additionalProperties))
  )
    oa.push(
      forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'),
    );
  if (s['x-orch-preserve-unknown-fields'] === false)
    oa.push(invalid(`${path}.x-orch-preserve-unknown-fields`, false, 'must be true or undefined'));
  const mapType = s['x-orch-map-type'];
  if (mapType !== undefined && type !== 'object') {
    if (!type) oa.push(required(`${path}.type`, 'must be object if x-orch-map-type is specified'));
    else oa.push(invalid(`${path}.type`, type, 'must be object if x-orch-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular')
    oa.push(notSupported(`${path}.x-orch-map-type`, mapType, ['atomic', 'granular']));
  const listType = s['x-orch-list-type'];
  const items = isObj(s.items) ? s.items : undefined;
  if (listType !== undefined && type !== 'array') {
    if (!type) oa.push(required(`${path}.type`, 'must be array if x-orch-list-type is specified'));
    else oa.push(invalid(`${path}.type`, type, 'must be array if x-orch-list-type is specified'));
  } else if (listType === 'set' && items) {
    if (
      items.type === 'array' &&
      items['x-orch-list-type'] !== undefined &&
      items['x-orch-list-type'] !== 'atomic'
    )
      oa.push(
        invalid(
          `${path}.items.x-orch-list-type`,
          items['x-orch-list-type'],
          'must be atomic as item of a list with x-orch-list-type=set',
        ),
      );
    if (items.type === 'object' && items['x-orch-map-type'] !== 'atomic')
      oa.push(
        invalid(
          `${path}.items.x-orch-map-type`,
          items['x-orch-map-type'] ?? null,
          'must be atomic as item of a list with x-orch-list-type=set',
        ),
      );
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map')
    oa.push(notSupported(`${path}.x-orch-list-type`, listType, ['atomic', 'set', 'map']));
  const mapKeys = Array.isArray(s['x-orch-list-map-keys']) ? (s['x-orch-list-map-keys'] as string[]) : [];
  if (mapKeys.length > 0) {
    if (listType === undefined)
      oa.push(required(`${path}.x-orch-list-type`, 'must be map if x-orch-list-map-keys is non-empty'));
    else if (listType !== 'map')
      oa.push(
        invalid(`${path}.x-orch-list-type`, listType, 'must be map if x-orch-list-map-keys is non-empty'),
      );
  }
  if (listType === 'map') {
    if (mapKeys.length === 0)
      oa.push(required(`${path}.x-orch-list-map-keys`, 'must not be empty if x-orch-list-type is map'));
    if (s.items === undefined)
      oa.push(required(`${path}.items`, 'must have a schema if x-orch-list-type is map'));
    if (items && items.type !== 'object')
      oa.push(
        invalid(
          `${path}.items.type`,
          items.type ?? '',
          "must be object if parent array's x-orch-list-type is map",
        ),
      );
    if (items && items.type === 'object') {
      const ip = isObj(items.properties) ? (items.properties as Record<string, JSP>) : {};
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const p = Object.hasOwn(ip, k) ? ip[k] : undefined;
        if (p) {
          if (p.type === 'array' || p.type === 'object')
            oa.push(
              invalid(
                `${path}.items.properties[${k}].type`,
                items.type,
                "must be a scalar type if parent array's x-orch-list-type is map",
              ),
            );
        } else
          oa.push(
            invalidRaw(
              `${path}.x-orch-list-map-keys`,
              goListOfStrings(mapKeys),
              'entries must all be names of item properties',
            ),
          );
        if (seen.has(k))
          oa.push(
            invalidRaw(
              `${path}.x-orch-list-map-keys`,
              goListOfStrings(mapKeys),
              'must not contain duplicate entries',
            ),
          );
        seen.add(k);
      }
    }
  }
  if ((listType === 'set' || listType === 'map') && items) {
    if (items.nullable === true)
      oa.push(forbidden(`${path}.items.nullable`, `cannot be nullable when x-orch-list-type is ${listType}`));
    if (listType === 'map') {
      const req = Array.isArray(items.required) ? (items.required as string[]) : [];
      const ip = isObj(items.properties) ? (items.properties as Record<string, JSP>) : {};
      for (const k of mapKeys) {
        const p = Object.hasOwn(ip, k) ? ip[k] : undefined;
        if (!p) continue;
        if (!req.includes(k) && p.default === undefined)
          oa.push(
            required(
              `${path}.items.properties[${k}].default`,
              'this property is in x-orch-list-map-keys, so it must have a default or be a required property',
            ),
          );
        if (p.nullable === true)
          oa.push(
            forbidden(
              `${path}.items.properties[${k}].nullable`,
              'this property is in x-orch-list-map-keys, so it cannot be nullable',
            ),
          );
      }
    }
  }

  // --- children
  if (isObj(s.additionalProperties))
    validateSchemaNode(s.additionalProperties, `${path}.additionalProperties`, 'field', ctx, {
      insideMeta: opts.insideMeta,
      topMeta: false,
    });
  if (props)
    for (const [k, v] of Object.entries(props)) {
      if (!isObj(v)) continue;
      const meta = (level === 'root' || embedded) && (k === 'metadata' || k === 'kind' || k === 'apiVersion');
      validateSchemaNode(v, `${path}.properties[${k}]`, 'field', ctx, {
        insideMeta: opts.insideMeta || meta,
        topMeta: opts.topMeta || (level === 'root' && meta),
      });
    }
  if (items)
    validateSchemaNode(items, `${path}.items`, 'item', ctx, { insideMeta: opts.insideMeta, topMeta: false });
}

function goListOfStrings(v: string[]): string {
  return `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
}

/** Defaults must be valid values of their schema. */
function validateDefaults(s: JSP, schemaPath: string, dataPath: string, out: StatusCause[]): void {
  if (s.default !== undefined && s.default !== null) {
    const errs = validateValue(s.default, s as never, dataPath);
    for (const e of errs) out.push({ ...e, field: `${schemaPath}.default`, message: e.message });
  }
  if (isObj(s.properties))
    for (const [k, v] of Object.entries(s.properties))
      if (isObj(v))
        validateDefaults(v, `${schemaPath}.properties[${k}]`, dataPath ? `${dataPath}.${k}` : k, out);
  if (isObj(s.items)) validateDefaults(s.items, `${schemaPath}.items`, `${dataPath}[0]`, out);
  if (isObj(s.additionalProperties))
    validateDefaults(s.additionalProperties, `${schemaPath}.additionalProperties`, `${dataPath}[key]`, out);
}

function validateSchema(v: CrdVersion, path: string, statusEnabled: boolean): StatusCause[] {
  const root = v.schema?.openAPIV3Schema;
  if (!isObj(root)) return [required(`${path}.schema.openAPIV3Schema`, 'schemas are required')];
  const sp = `${path}.schema.openAPIV3Schema`;
  const out: StatusCause[] = [];
  if (statusEnabled) {
    if (root.type !== undefined && root.type !== 'object')
      out.push(
        invalid(
          `${path}.schema.openAPIV3Schema.type`,
          root.type,
          'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
        ),
      );
    const extra = Object.keys(root).filter(
      (k) => !ROOT_FIELDS_WITH_STATUS.has(k) && root[k] !== undefined && root[k] !== false && root[k] !== '',
    );
    if (extra.length)
      out.push(
        invalidRaw(
          sp,
          'apiextensions.JSONSchemaProps{...}',
          'only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
        ),
      );
  }
  if (root.nullable === true) out.push(forbidden(`${sp}.nullable`, 'nullable cannot be true at the root'));
  const ctx: SchemaCtx = { structural: [], openapi: [] };
  validateSchemaNode(root, sp, 'root', ctx, { insideMeta: false, topMeta: false });
  ctx.structural.sort((a, b) => (`${a.field}: ${a.message}` < `${b.field}: ${b.message}` ? -1 : 1));
  out.push(...ctx.structural, ...ctx.openapi);
  if (ctx.structural.length === 0 && ctx.openapi.length === 0) validateDefaults(root, sp, '', out);
  return out;
}

function validateSimpleJsonPath(p: string, field: string): StatusCause[] {
  if (p.length === 0) return [invalid(field, p, 'must not be empty')];
  if (p[0] !== '.') return [invalid(field, p, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(v: CrdVersion, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const sc = v.subresources?.scale;
  if (!sc) return out;
  const p = `${path}.subresources`;
  if (!sc.specReplicasPath) out.push(required(`${p}.scale.specReplicasPath`));
  else {
    const e = validateSimpleJsonPath(sc.specReplicasPath, `${p}.scale.specReplicasPath`);
    if (e.length) out.push(...e);
    else if (!sc.specReplicasPath.startsWith('.spec.'))
      out.push(
        invalid(`${p}.scale.specReplicasPath`, sc.specReplicasPath, 'should be a json path under .spec'),
      );
  }
  if (!sc.statusReplicasPath) out.push(required(`${p}.scale.statusReplicasPath`));
  else {
    const e = validateSimpleJsonPath(sc.statusReplicasPath, `${p}.scale.statusReplicasPath`);
    if (e.length) out.push(...e);
    else if (!sc.statusReplicasPath.startsWith('.status.'))
      out.push(
        invalid(
          `${p}.scale.statusReplicasPath`,
          sc.statusReplicasPath,
          'should be a json path under .status',
        ),
      );
  }
  if (sc.labelSelectorPath) {
    const e = validateSimpleJsonPath(sc.labelSelectorPath, `${p}.scale.labelSelectorPath`);
    if (e.length) out.push(...e);
    else if (!sc.labelSelectorPath.startsWith('.spec.') && !sc.labelSelectorPath.startsWith('.status.'))
      out.push(
        invalid(
          `${p}.scale.labelSelectorPath`,
          sc.labelSelectorPath,
          'should be a json path under either .spec or .status',
        ),
      );
  }
  return out;
}

function validateColumns(v: CrdVersion, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  (v.additionalPrinterColumns ?? []).forEach((c, i) => {
    const p = `${path}.additionalPrinterColumns[${i}]`;
    if (!c.name) out.push(required(`${p}.name`));
    if (!c.type) out.push(required(`${p}.type`, `must be one of ${PRINTER_TYPES.join(',')}`));
    else if (!PRINTER_TYPES.includes(c.type))
      out.push(invalid(`${p}.type`, c.type, `must be one of ${PRINTER_TYPES.join(',')}`));
    if (c.format && !PRINTER_FORMATS.includes(c.format))
      out.push(invalid(`${p}.format`, c.format, `must be one of ${PRINTER_FORMATS.join(',')}`));
    if (!c.jsonPath) out.push(required(`${p}.JSONPath`));
    else {
      const e = validateSimpleJsonPath(c.jsonPath, `${p}.JSONPath`);
      if (e.length) out.push(...e);
      else if (!parseJsonPath(c.jsonPath))
        out.push(invalid(`${p}.JSONPath`, c.jsonPath, 'must be a simple json path'));
    }
    if (c.priority !== undefined && c.priority < 0)
      out.push(invalid(`${p}.priority`, c.priority, 'must be greater than or equal to 0'));
  });
  return out;
}

/** Throws a 400 when a schema keyword has the wrong JSON type (the Go decoder would fail). */
function checkSchemaTypes(o: KObject): void {
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

export function validateCrd(o: KObject): StatusCause[] {
  checkSchemaTypes(o);
  const out: StatusCause[] = [];
  const spec = specOf(o);
  const names = (spec.names ?? {}) as Partial<AcceptedNames>;
  const name = o.metadata.name ?? '';
  if (name && name !== `${names.plural ?? ''}.${spec.group ?? ''}`)
    out.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  // group
  if (!spec.group) out.push(required('spec.group'));
  else {
    const errs = dns1123Subdomain(spec.group);
    if (errs.length) out.push(invalid('spec.group', spec.group, errs.join(',')));
    else if (spec.group.split('.').length < 2)
      out.push(invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  // scope
  if (!spec.scope) out.push(required('spec.scope'));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced')
    out.push(notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  // versions
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  // one schema for every version: Kubernetes reports it (and its rules) as spec.validation
  const shared = versions.length > 0 && versions.every((v) => deepEqual(v?.schema, versions[0]?.schema));
  let rulesChecked = false;
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const errs = dns1035(v.name ?? '');
    if (errs.length) out.push(invalid(`${p}.name`, v.name ?? '', errs.join(',')));
    if (v.deprecationWarning !== undefined) {
      if (!v.deprecated)
        out.push(
          invalid(`${p}.deprecationWarning`, v.deprecationWarning, 'can only be set for deprecated versions'),
        );
      else if (v.deprecationWarning.length > 256)
        out.push(invalid(`${p}.deprecationWarning`, v.deprecationWarning, 'must be <= 256 characters long'));
      else if (v.deprecationWarning.length === 0)
        out.push(invalid(`${p}.deprecationWarning`, v.deprecationWarning, 'must not be an empty string'));
    }
    const schemaErrs = validateSchema(v, p, !!v.subresources?.status);
    out.push(...schemaErrs);
    if (schemaErrs.length === 0 && !(shared && rulesChecked)) {
      const root = v.schema?.openAPIV3Schema as Parameters<typeof ruleProblems>[0];
      out.push(
        ...ruleProblems(root, shared ? 'spec.validation.openAPIV3Schema' : `${p}.schema.openAPIV3Schema`),
      );
      rulesChecked = true;
    }
    out.push(...validateSubresources(v, p));
    out.push(...validateColumns(v, p));
  });
  if (!unique)
    out.push(invalidRaw('spec.versions', goVersions(versions), 'must contain unique version names'));
  if (storageCount !== 1)
    out.push(
      invalidRaw(
        'spec.versions',
        goVersions(versions),
        'must have exactly one version marked as storage version',
      ),
    );
  // names
  if (!names.plural) out.push(required('spec.names.plural'));
  if (!names.singular) out.push(required('spec.names.singular'));
  if (!names.kind) out.push(required('spec.names.kind'));
  if (!names.listKind) out.push(required('spec.names.listKind'));
  out.push(...validateNames(names, 'spec.names'));
  // conversion
  const conv = spec.conversion as
    | { strategy?: string; webhook?: { clientConfig?: unknown; conversionReviewVersions?: string[] } }
    | undefined;
  if (conv) {
    if (!conv.strategy) out.push(required('spec.conversion.strategy'));
    else if (conv.strategy !== 'None' && conv.strategy !== 'Webhook')
      out.push(notSupported('spec.conversion.strategy', conv.strategy, ['None', 'Webhook']));
    else if (conv.strategy === 'Webhook') {
      if (!conv.webhook?.clientConfig)
        out.push(required('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook'));
      if (!conv.webhook?.conversionReviewVersions?.length)
        out.push(required('spec.conversion.conversionReviewVersions'));
    } else {
      if (conv.webhook?.clientConfig)
        out.push(
          forbidden(
            'spec.conversion.webhookClientConfig',
            'should not be set when strategy is not set to Webhook',
          ),
        );
      if (conv.webhook?.conversionReviewVersions?.length)
        out.push(
          forbidden(
            'spec.conversion.conversionReviewVersions',
            'should not be set when strategy is not set to Webhook',
          ),
        );
    }
  }
  // status
  const status = statusOf(o);
  out.push(...validateNames(status.acceptedNames, 'status.acceptedNames'));
  out.push(...validateStoredVersions(status.storedVersions ?? [], versions));
  // preserveUnknownFields
  if (spec.preserveUnknownFields === true)
    out.push(
      invalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-orch-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  return out;
}

function validateStoredVersions(stored: string[], versions: CrdVersion[]): StatusCause[] {
  if (stored.length === 0)
    return [invalidRaw('status.storedVersions', '[]string(nil)', 'must have at least one stored version')];
  const out: StatusCause[] = [];
  const left = new Map(stored.map((v, i) => [v, i] as const));
  for (const v of versions) {
    const has = left.has(v.name);
    if (v.storage && !has)
      out.push(
        invalidRaw(
          'status.storedVersions',
          goListOfStrings(stored),
          `must have the storage version ${v.name}`,
        ),
      );
    left.delete(v.name);
  }
  for (const [v, i] of left)
    out.push(invalid(`status.storedVersions[${i}]`, v, 'must appear in spec.versions'));
  return out;
}

export function validateCrdUpdate(o: KObject, old: KObject): StatusCause[] {
  const out = validateCrd(o);
  const spec = specOf(o);
  const oldSpec = specOf(old);
  if (isConditionTrue(old, 'Established')) {
    if (spec.scope !== oldSpec.scope) out.push(invalid('spec.scope', spec.scope ?? '', 'field is immutable'));
    if (spec.names?.kind !== oldSpec.names?.kind)
      out.push(invalid('spec.names.kind', spec.names?.kind ?? '', 'field is immutable'));
  }
  if (spec.group !== oldSpec.group) out.push(invalid('spec.group', spec.group ?? '', 'field is immutable'));
  if (spec.names?.plural !== oldSpec.names?.plural)
    out.push(invalid('spec.names.plural', spec.names?.plural ?? '', 'field is immutable'));
  return out;
}
