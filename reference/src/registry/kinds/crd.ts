// CustomResourceDefinition (apiextensions.orch.io/v1, cluster-scoped, `status` subresource).
// Validation follows Kubernetes (names, scope, versions, structural schemas, subresources,
// printer columns). A controller watches the definitions: it accepts names (NamesAccepted,
// conflicts with other definitions of the group), serves the custom resources and marks the
// definition Established; on deletion (finalizer `customresourcecleanup.apiextensions.orch.io`)
// it deletes every custom resource, stops serving and removes the finalizer.
import { errors, StatusError, type StatusCause } from '../../errors/status.ts';
import { arr, bool, freeform, int, keyedList, obj, str, time } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import { goValue, validateValue } from '../../schema/validate.ts';
import type { KObject } from '../../storage/types.ts';
import {
  type AcceptedNames,
  type CrdSpec,
  type CrdVersion,
  type CustomResource,
  buildCustomResource,
  installCustomResource,
  parseJsonPath,
  uninstallCustomResource,
} from '../custom.ts';
import type { Registry } from '../registry.ts';
import type { GenericStore } from '../store.ts';
import type { RequestContext, ResourceDef } from '../types.ts';
import { clone, deepEqual, nameProblem } from '../validation.ts';
import { ALL_VERBS } from './common.ts';

export const CRD_GROUP = 'apiextensions.orch.io';
export const CRD_PLURAL = 'customresourcedefinitions';
export const CRD_KIND = 'CustomResourceDefinition';
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.orch.io';

type Condition = {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
};
type CrdStatus = { conditions?: Condition[]; acceptedNames?: AcceptedNames; storedVersions?: string[] };

const SYSTEM: RequestContext = {
  user: { username: 'system:apiextensions-controller', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
  // the manager of its writes in managedFields (Kubernetes: kube-apiserver)
  fieldManager: 'orch-apiserver',
};

const nowRfc3339 = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

// ------------------------------------------------------------------ schema of the kind

const namesSchema = obj({
  plural: str(),
  singular: str(),
  shortNames: arr(str()),
  kind: str(),
  listKind: str(),
  categories: arr(str()),
});

const versionSchema = obj({
  name: str(),
  served: bool(),
  storage: bool(),
  deprecated: bool(),
  deprecationWarning: str(),
  schema: obj({ openAPIV3Schema: freeform() }),
  subresources: obj({
    status: obj({}),
    scale: obj({ specReplicasPath: str(), statusReplicasPath: str(), labelSelectorPath: str() }),
  }),
  additionalPrinterColumns: arr(
    obj({
      name: str(),
      type: str(),
      format: str(),
      description: str(),
      priority: int({ format: 'int32' }),
      jsonPath: str(),
    }),
  ),
});

const crdSchema = objectSchema({
  spec: obj({
    group: str(),
    names: namesSchema,
    scope: str(),
    versions: arr(versionSchema),
    conversion: obj({
      strategy: str(),
      webhook: obj({
        clientConfig: obj({
          url: str(),
          service: obj({ namespace: str(), name: str(), path: str(), port: int({ format: 'int32' }) }),
          caBundle: str({ format: 'byte' }),
        }),
        conversionReviewVersions: arr(str()),
      }),
    }),
    preserveUnknownFields: bool(),
  }),
  status: obj({
    conditions: keyedList(
      obj({ type: str(), status: str(), lastTransitionTime: time(), reason: str(), message: str() }),
      ['type'],
    ),
    acceptedNames: namesSchema,
    storedVersions: arr(str()),
  }),
});

// ------------------------------------------------------------------ helpers

function specOf(o: KObject): CrdSpec {
  return (o.spec ?? {}) as CrdSpec;
}

function statusOf(o: KObject): CrdStatus {
  return (o.status ?? {}) as CrdStatus;
}

export function findCondition(o: KObject, type: string): Condition | undefined {
  return statusOf(o).conditions?.find((c) => c.type === type);
}

export function isConditionTrue(o: KObject, type: string): boolean {
  return findCondition(o, type)?.status === 'True';
}

/** Sets a condition; lastTransitionTime changes only when the status does. */
function setCondition(status: CrdStatus, c: Condition): void {
  const conds = (status.conditions ??= []);
  const existing = conds.find((x) => x.type === c.type);
  if (!existing) {
    conds.push({
      type: c.type,
      status: c.status,
      lastTransitionTime: nowRfc3339(),
      reason: c.reason,
      message: c.message,
    });
    return;
  }
  if (existing.status !== c.status || !existing.lastTransitionTime)
    existing.lastTransitionTime = nowRfc3339();
  existing.status = c.status;
  existing.reason = c.reason;
  existing.message = c.message;
}

/** Defaults of apiextensions.orch.io/v1: conversion None, singular and listKind from kind, served/storage false. */
function applyCrdDefaults(o: KObject): void {
  const spec = (o.spec ??= {}) as Record<string, unknown>;
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  const names = spec.names as Record<string, unknown> | undefined;
  if (names && typeof names === 'object') {
    if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
    if (!names.listKind && typeof names.kind === 'string' && names.kind) names.listKind = `${names.kind}List`;
  }
  if (Array.isArray(spec.versions))
    for (const v of spec.versions as Record<string, unknown>[]) {
      if (!v || typeof v !== 'object') continue;
      v.served ??= false;
      v.storage ??= false;
    }
}

function addStoredVersion(o: KObject): void {
  const spec = specOf(o);
  const storage = (spec.versions ?? []).find((v) => v?.storage);
  if (!storage) return;
  const status = (o.status ??= {}) as CrdStatus;
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(storage.name)) stored.push(storage.name);
}

// ------------------------------------------------------------------ validation

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
    out.push(...validateSchema(v, p, !!v.subresources?.status));
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

function validateCrdUpdate(o: KObject, old: KObject): StatusCause[] {
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

// ------------------------------------------------------------------ the kind

export function crdDef(): ResourceDef {
  return {
    group: CRD_GROUP,
    versions: ['v1'],
    kind: CRD_KIND,
    listKind: 'CustomResourceDefinitionList',
    plural: CRD_PLURAL,
    singular: 'customresourcedefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    verbs: ALL_VERBS,
    subresources: ['status'],
    schema: crdSchema,
    strategy: {
      allowUnconditionalUpdate: false,
      allowCreateOnUpdate: false,
      prepareForCreate(o: KObject) {
        applyCrdDefaults(o);
        o.status = { acceptedNames: { plural: '', kind: '' } };
        addStoredVersion(o);
        if (!(o.status as CrdStatus).storedVersions) (o.status as CrdStatus).storedVersions = [];
      },
      prepareForUpdate(o: KObject, old: KObject) {
        applyCrdDefaults(o);
        o.status = clone(old.status);
        addStoredVersion(o);
      },
      validate: (o) => validateCrd(o),
      validateUpdate: (o, old) => validateCrdUpdate(o, old),
      // a delete marks the definition and lets the controller remove its custom resources first
      gracefulDelete: (o) => !o.metadata.deletionTimestamp,
      prepareForDelete(o: KObject) {
        const fins = (o.metadata.finalizers ??= []);
        if (!fins.includes(CLEANUP_FINALIZER)) fins.push(CLEANUP_FINALIZER);
        const status = (o.status ??= {}) as CrdStatus;
        setCondition(status, {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionPending',
          message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
        });
      },
    },
  };
}

// ------------------------------------------------------------------ the controller

interface ServedEntry {
  fingerprint: string;
  cr: CustomResource;
}

/** Names of a definition are accepted unless another definition of the group already uses them. */
function acceptNames(crd: KObject, peers: KObject[]): { accepted: AcceptedNames; cond: Condition } {
  const requested = (specOf(crd).names ?? {}) as AcceptedNames;
  const current = statusOf(crd).acceptedNames ?? ({ plural: '', kind: '' } as AcceptedNames);
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const p of peers) {
    const a = statusOf(p).acceptedNames;
    if (!a) continue;
    for (const n of [a.plural, a.singular, ...(a.shortNames ?? [])]) if (n) resources.add(n);
    for (const n of [a.kind, a.listKind]) if (n) kinds.add(n);
  }
  const next: AcceptedNames = { ...clone(current) };
  const cond: Condition = { type: 'NamesAccepted', status: 'Unknown' };
  const fail = (reason: string, name: string) => {
    cond.status = 'False';
    cond.reason = reason;
    cond.message = `"${name}" is already in use`;
  };
  const fresh = (req: string | undefined, acc: string | undefined, used: Set<string>) =>
    !req || req === acc || !used.has(req);
  if (fresh(requested.plural, current.plural, resources)) next.plural = requested.plural;
  else fail('PluralConflict', requested.plural);
  if (fresh(requested.singular, current.singular, resources)) next.singular = requested.singular;
  else fail('SingularConflict', requested.singular!);
  if (!deepEqual(requested.shortNames ?? [], current.shortNames ?? [])) {
    const bad = (requested.shortNames ?? []).filter(
      (s) => !(current.shortNames ?? []).includes(s) && resources.has(s),
    );
    if (bad.length) {
      cond.status = 'False';
      cond.reason = 'ShortNamesConflict';
      cond.message = bad.map((s) => `"${s}" is already in use`).join(', ');
      if (bad.length > 1) cond.message = `[${cond.message}]`;
    } else next.shortNames = requested.shortNames;
  }
  if (fresh(requested.kind, current.kind, kinds)) next.kind = requested.kind;
  else fail('KindConflict', requested.kind);
  if (fresh(requested.listKind, current.listKind, kinds)) next.listKind = requested.listKind;
  else fail('ListKindConflict', requested.listKind!);
  next.categories = requested.categories;
  if (next.shortNames === undefined || next.shortNames.length === 0) delete next.shortNames;
  if (next.categories === undefined || next.categories.length === 0) delete next.categories;
  if (!next.singular) delete next.singular;
  if (!next.listKind) delete next.listKind;
  if (cond.status === 'Unknown')
    Object.assign(cond, { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
  // in the field order of the Go type (plural and kind always present)
  const ordered: Record<string, unknown> = { plural: next.plural ?? '' };
  if (next.singular) ordered.singular = next.singular;
  if (next.shortNames) ordered.shortNames = next.shortNames;
  ordered.kind = next.kind ?? '';
  if (next.listKind) ordered.listKind = next.listKind;
  if (next.categories) ordered.categories = next.categories;
  return { accepted: ordered as unknown as AcceptedNames, cond };
}

export class CrdController {
  private readonly served = new Map<string, ServedEntry>();
  private readonly queue = new Set<string>();
  private readonly finalizing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private running = false;
  private stopped = false;
  private cancel: () => void = () => {};
  /** Set once the definitions stored at start have all been reconciled (the crd-informer-synced check). */
  synced = false;

  constructor(
    private readonly registry: Registry,
  ) {}

  private get store(): GenericStore {
    return this.registry.byResource(CRD_GROUP, CRD_PLURAL)!.store;
  }

  private all(): KObject[] {
    const bucket = this.store.bucket;
    return this.registry.storage.list(bucket, `${bucket}/`).map((s) => s.obj);
  }

  /** Serves what stored definitions say is accepted (synchronously), then reconciles and watches. */
  start(): void {
    const storage = this.registry.storage;
    const rv = storage.revision();
    for (const crd of this.all()) {
      const accepted = statusOf(crd).acceptedNames;
      if (
        (isConditionTrue(crd, 'NamesAccepted') || isConditionTrue(crd, 'Established')) &&
        accepted?.plural &&
        accepted.kind
      ) {
        try {
          this.serve(crd, accepted);
        } catch (e) {
          console.error(`customresourcedefinition ${crd.metadata.name}: cannot serve:`, e);
        }
      }
      this.enqueue(crd.metadata.name!);
    }
    if (this.queue.size === 0) this.synced = true;
    this.cancel = storage.watch(this.store.bucket, rv, (ev) => {
      if (this.stopped) return;
      const name = ev.obj.metadata.name;
      if (name) this.enqueue(name);
      // names freed or taken: the other definitions of the group are looked at again
      const group = specOf(ev.obj).group;
      for (const other of this.all())
        if (specOf(other).group === group && other.metadata.name !== name) this.enqueue(other.metadata.name!);
    });
  }

  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  enqueue(name: string): void {
    this.queue.add(name);
    if (!this.running) {
      this.running = true;
      setImmediate(() => void this.drain());
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.size && !this.stopped) {
        const name = this.queue.values().next().value as string;
        this.queue.delete(name);
        try {
          await this.reconcile(name);
          this.failures.delete(name);
        } catch (e) {
          if (this.stopped) return;
          if (!(e instanceof StatusError)) console.error(`customresourcedefinition ${name}:`, e);
          // retried with a growing delay, a few times; the next change of the definition retries anew
          const n = (this.failures.get(name) ?? 0) + 1;
          this.failures.set(name, n);
          if (n <= 8) {
            const t = setTimeout(() => this.enqueue(name), 50 * 2 ** n);
            t.unref?.();
          } else this.failures.delete(name);
        }
      }
    } finally {
      this.running = false;
      if (this.queue.size === 0) this.synced = true;
      if (this.queue.size && !this.stopped) this.enqueue(this.queue.values().next().value as string);
    }
  }

  private async reconcile(name: string): Promise<void> {
    const cur = this.store.getStored('', name);
    if (!cur) {
      this.unserve(name);
      return;
    }
    const crd = cur.obj;
    if (crd.metadata.deletionTimestamp) {
      const entry = this.served.get(name);
      if (entry) entry.cr.state.terminating = true;
      this.finalize(name);
      return;
    }
    const group = specOf(crd).group;
    const peers = this.all().filter((o) => o.metadata.name !== name && specOf(o).group === group);
    const { accepted, cond } = acceptNames(crd, peers);
    const wasEstablished = isConditionTrue(crd, 'Established');
    const serving = (cond.status === 'True' || wasEstablished) && !!accepted.plural && !!accepted.kind;
    if (serving) this.serve(crd, accepted);
    else this.unserve(name);
    const status = clone(statusOf(crd));
    status.acceptedNames = accepted;
    setCondition(status, cond);
    if (cond.status === 'True' && this.served.has(name)) {
      setCondition(status, {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      });
    } else if (!wasEstablished) {
      setCondition(status, {
        type: 'Established',
        status: 'False',
        reason: 'NotAccepted',
        message: 'not all names are accepted',
      });
    }
    await this.writeStatus(cur.obj, status);
  }

  /** Writes a status computed from `base`; a conflict means a newer object, which is reconciled again. */
  private async writeStatus(base: KObject, status: CrdStatus): Promise<void> {
    if (deepEqual(status, base.status)) return;
    const next = clone(base);
    next.status = status;
    try {
      await this.store.update('', base.metadata.name!, next, SYSTEM, 'v1', 'status');
    } catch (e) {
      if (e instanceof StatusError && (e.code === 409 || e.code === 404)) {
        this.enqueue(base.metadata.name!);
        return;
      }
      throw e;
    }
  }

  private serve(crd: KObject, accepted: AcceptedNames): void {
    const name = crd.metadata.name!;
    const fingerprint = JSON.stringify([crd.spec, accepted]);
    const entry = this.served.get(name);
    const terminating = !!crd.metadata.deletionTimestamp;
    if (entry && entry.fingerprint === fingerprint) {
      entry.cr.state.terminating = terminating;
      return;
    }
    const group = specOf(crd).group;
    const existing = this.registry.byResource(group, accepted.plural);
    if (existing && !existing.def.custom) return; // never shadow a built-in resource
    if (entry && entry.cr.def.plural !== accepted.plural)
      uninstallCustomResource(this.registry, entry.cr.def);
    const cr = buildCustomResource(crd, accepted, entry?.cr.state ?? { terminating });
    cr.state.terminating = terminating;
    installCustomResource(this.registry, cr);
    this.served.set(name, { fingerprint, cr });
  }

  private unserve(name: string): void {
    const entry = this.served.get(name);
    if (!entry) return;
    this.served.delete(name);
    uninstallCustomResource(this.registry, entry.cr.def);
  }

  /** Deletes every custom resource of a definition being deleted, then removes the cleanup finalizer. */
  private finalize(name: string): void {
    if (this.finalizing.has(name)) return;
    this.finalizing.add(name);
    const done = (): void => {
      this.finalizing.delete(name);
    };
    const again = (ms: number) => {
      const t = setTimeout(() => void step().catch(retry), ms);
      t.unref?.();
    };
    const retry = (e: unknown) => {
      if (this.stopped) return done();
      if (!(e instanceof StatusError)) console.error(`customresourcedefinition ${name}: finalizing:`, e);
      again(100);
    };
    const step = async (): Promise<void> => {
      if (this.stopped) return done();
      const cur = this.store.getStored('', name);
      if (
        !cur?.obj.metadata.deletionTimestamp ||
        !(cur.obj.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)
      )
        return done();
      const crd = cur.obj;
      const entry = this.served.get(name);
      const status = clone(statusOf(crd));
      if (isConditionTrue(crd, 'Established') && entry) {
        if (findCondition(crd, 'Terminating')?.reason === 'InstanceDeletionPending') {
          setCondition(status, {
            type: 'Terminating',
            status: 'True',
            reason: 'InstanceDeletionInProgress',
            message: 'CustomResource deletion is in progress',
          });
          await this.writeStatus(crd, status);
          return again(0);
        }
        const served = this.registry.byResource(entry.cr.def.group, entry.cr.def.plural);
        let remaining = 0;
        if (served) {
          const version = served.def.versions[0] ?? entry.cr.storageVersion;
          const { items } = await served.store.list('', {});
          for (const it of items) {
            remaining++;
            if (it.metadata.deletionTimestamp) continue;
            try {
              await served.store.delete(it.metadata.namespace ?? '', it.metadata.name!, {}, SYSTEM, version);
            } catch {
              // gone meanwhile, or refused: looked at again on the next round
            }
          }
        }
        if (remaining > 0) return again(50);
        setCondition(status, {
          type: 'Terminating',
          status: 'False',
          reason: 'InstanceDeletionCompleted',
          message: 'removed all instances',
        });
      } else {
        setCondition(status, {
          type: 'Terminating',
          status: 'False',
          reason: 'NeverEstablished',
          message: 'resource was never established',
        });
      }
      if (!deepEqual(status, crd.status)) {
        await this.writeStatus(crd, status);
        return again(0);
      }
      // the last step: without the finalizer (and no other) the definition is removed
      const next = clone(crd);
      next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
      try {
        await this.store.update('', name, next, SYSTEM, 'v1');
      } catch (e) {
        if (e instanceof StatusError && e.code === 409) return again(0);
        if (e instanceof StatusError && e.code === 404) return done();
        throw e;
      }
      done();
      this.enqueue(name);
    };
    setImmediate(() => void step().catch(retry));
  }
}

const controllers = new WeakMap<Registry, CrdController>();

/** Starts the controller of custom resource definitions: resumes serving stored ones, then watches. */
export function startCrdController(registry: Registry): CrdController {
  controllers.get(registry)?.stop();
  const c = new CrdController(registry);
  controllers.set(registry, c);
  c.start();
  return c;
}
