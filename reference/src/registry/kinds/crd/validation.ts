// The CRD validation rules: names, scope, versions, structural schemas, subresources and
// printer columns. A schema node's rules are in schema-structural.ts and schema-openapi.ts,
// the JSON types of its keywords in schema-decode.ts.
import type { StatusCause } from '../../../errors/status.ts';
import { validateValue } from '../../../schema/validate.ts';
import type { KObject } from '../../../storage/types.ts';
import { deepEqual } from '../../../util/object.ts';
import { parseJsonPath } from '../../custom-columns.ts';
import { ruleProblems } from '../../custom-rules-definition.ts';
import type { AcceptedNames, CrdVersion } from '../../custom-types.ts';
import { nameProblem } from '../../validation.ts';
import { checkSchemaTypes } from './schema-decode.ts';
import { openapiRules } from './schema-openapi.ts';
import { type Level, type NodeFacts, structuralRules } from './schema-structural.ts';
import { isConditionTrue, specOf, statusOf } from './shared.ts';
import {
  CrdCauses,
  dns1035,
  goListOfStrings,
  invalid,
  invalidRaw,
  isObj,
  type JSP,
  required,
} from './validation-causes.ts';

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
  const out = new CrdCauses();
  if (!n) return out;
  const check = (field: string, v: string | undefined, mixed: boolean) => {
    if (!v) return;
    const errs = dns1035(mixed ? v.toLowerCase() : v);
    if (errs.length)
      out.invalid(
        `${path}.${field}`,
        v,
        mixed ? `may have mixed case, but should otherwise match: ${errs.join(',')}` : errs.join(','),
      );
  };
  check('plural', n.plural, false);
  check('singular', n.singular, false);
  check('kind', n.kind, true);
  check('listKind', n.listKind, true);
  (n.shortNames ?? []).forEach((s, i) => {
    const errs = dns1035(s);
    if (errs.length) out.invalid(`${path}.shortNames[${i}]`, s, errs.join(','));
  });
  if (n.kind && n.kind === n.listKind)
    out.invalid(`${path}.listKind`, n.listKind, 'kind and listKind may not be the same');
  (n.categories ?? []).forEach((s, i) => {
    const errs = dns1035(s);
    if (errs.length) out.invalid(`${path}.categories[${i}]`, s, errs.join(','));
  });
  return out;
}

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

interface SchemaCtx {
  structural: CrdCauses;
  openapi: CrdCauses;
}

/** Structural-schema and OpenAPI rules of one schema node (Kubernetes' ValidateStructural and ValidateCustomResourceDefinitionOpenAPISchema). */
/** Structural-schema and OpenAPI rules of one schema node and its children (Kubernetes' ValidateStructural and ValidateCustomResourceDefinitionOpenAPISchema). */
function validateSchemaNode(
  s: JSP,
  path: string,
  level: Level,
  ctx: SchemaCtx,
  opts: { insideMeta: boolean; topMeta: boolean },
): void {
  const props = isObj(s.properties) ? (s.properties as Record<string, JSP>) : undefined;
  const facts: NodeFacts = {
    type: typeof s.type === 'string' ? s.type : '',
    props,
    hasProps: !!props && Object.keys(props).length > 0,
    intOrString: s['x-orch-int-or-string'] === true,
    preserve: s['x-orch-preserve-unknown-fields'] === true,
    embedded: s['x-orch-embedded-resource'] === true,
  };
  const embedded = facts.embedded;
  structuralRules(s, path, level, facts, ctx.structural);
  openapiRules(s, path, facts, opts, ctx.openapi);
  const items = isObj(s.items) ? s.items : undefined;
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

/** Defaults must be valid values of their schema. */
function validateDefaults(s: JSP, schemaPath: string, dataPath: string, out: CrdCauses): void {
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
  const out = new CrdCauses();
  if (statusEnabled) {
    if (root.type !== undefined && root.type !== 'object')
      out.invalid(
        `${path}.schema.openAPIV3Schema.type`,
        root.type,
        'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      );
    const extra = Object.keys(root).filter(
      (k) => !ROOT_FIELDS_WITH_STATUS.has(k) && root[k] !== undefined && root[k] !== false && root[k] !== '',
    );
    if (extra.length)
      out.invalidRaw(
        sp,
        'apiextensions.JSONSchemaProps{...}',
        'only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
      );
  }
  if (root.nullable === true) out.forbidden(`${sp}.nullable`, 'nullable cannot be true at the root');
  const ctx: SchemaCtx = { structural: new CrdCauses(), openapi: new CrdCauses() };
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
  const out = new CrdCauses();
  const sc = v.subresources?.scale;
  if (!sc) return out;
  const p = `${path}.subresources`;
  if (!sc.specReplicasPath) out.required(`${p}.scale.specReplicasPath`);
  else {
    const e = validateSimpleJsonPath(sc.specReplicasPath, `${p}.scale.specReplicasPath`);
    if (e.length) out.push(...e);
    else if (!sc.specReplicasPath.startsWith('.spec.'))
      out.invalid(`${p}.scale.specReplicasPath`, sc.specReplicasPath, 'should be a json path under .spec');
  }
  if (!sc.statusReplicasPath) out.required(`${p}.scale.statusReplicasPath`);
  else {
    const e = validateSimpleJsonPath(sc.statusReplicasPath, `${p}.scale.statusReplicasPath`);
    if (e.length) out.push(...e);
    else if (!sc.statusReplicasPath.startsWith('.status.'))
      out.invalid(
        `${p}.scale.statusReplicasPath`,
        sc.statusReplicasPath,
        'should be a json path under .status',
      );
  }
  if (sc.labelSelectorPath) {
    const e = validateSimpleJsonPath(sc.labelSelectorPath, `${p}.scale.labelSelectorPath`);
    if (e.length) out.push(...e);
    else if (!sc.labelSelectorPath.startsWith('.spec.') && !sc.labelSelectorPath.startsWith('.status.'))
      out.invalid(
        `${p}.scale.labelSelectorPath`,
        sc.labelSelectorPath,
        'should be a json path under either .spec or .status',
      );
  }
  return out;
}

function validateColumns(v: CrdVersion, path: string): StatusCause[] {
  const out = new CrdCauses();
  (v.additionalPrinterColumns ?? []).forEach((c, i) => {
    const p = `${path}.additionalPrinterColumns[${i}]`;
    if (!c.name) out.required(`${p}.name`);
    if (!c.type) out.required(`${p}.type`, `must be one of ${PRINTER_TYPES.join(',')}`);
    else if (!PRINTER_TYPES.includes(c.type))
      out.invalid(`${p}.type`, c.type, `must be one of ${PRINTER_TYPES.join(',')}`);
    if (c.format && !PRINTER_FORMATS.includes(c.format))
      out.invalid(`${p}.format`, c.format, `must be one of ${PRINTER_FORMATS.join(',')}`);
    if (!c.jsonPath) out.required(`${p}.JSONPath`);
    else {
      const e = validateSimpleJsonPath(c.jsonPath, `${p}.JSONPath`);
      if (e.length) out.push(...e);
      else if (!parseJsonPath(c.jsonPath))
        out.invalid(`${p}.JSONPath`, c.jsonPath, 'must be a simple json path');
    }
    if (c.priority !== undefined && c.priority < 0)
      out.invalid(`${p}.priority`, c.priority, 'must be greater than or equal to 0');
  });
  return out;
}

export function validateCrd(o: KObject): CrdCauses {
  checkSchemaTypes(o);
  const out = new CrdCauses();
  const spec = specOf(o);
  const names = (spec.names ?? {}) as Partial<AcceptedNames>;
  const name = o.metadata.name ?? '';
  if (name && name !== `${names.plural ?? ''}.${spec.group ?? ''}`)
    out.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group');
  // group
  if (!spec.group) out.required('spec.group');
  else {
    const errs = dns1123Subdomain(spec.group);
    if (errs.length) out.invalid('spec.group', spec.group, errs.join(','));
    else if (spec.group.split('.').length < 2)
      out.invalid('spec.group', spec.group, 'should be a domain with at least one dot');
  }
  // scope
  if (!spec.scope) out.required('spec.scope');
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced')
    out.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']);
  // versions
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  validateVersions(versions, out);
  // names
  if (!names.plural) out.required('spec.names.plural');
  if (!names.singular) out.required('spec.names.singular');
  if (!names.kind) out.required('spec.names.kind');
  if (!names.listKind) out.required('spec.names.listKind');
  out.push(...validateNames(names, 'spec.names'));
  validateConversion(spec.conversion, out);
  // status
  const status = statusOf(o);
  out.push(...validateNames(status.acceptedNames, 'status.acceptedNames'));
  out.push(...validateStoredVersions(status.storedVersions ?? [], versions));
  // preserveUnknownFields
  if (spec.preserveUnknownFields === true)
    out.invalid(
      'spec.preserveUnknownFields',
      true,
      'cannot set to true, set x-orch-preserve-unknown-fields to true in spec.versions[*].schema instead',
    );
  return out;
}

/** Each version (name, deprecation, schema and its rules, subresources, columns); unique names and exactly one storage version. */
function validateVersions(versions: CrdVersion[], out: CrdCauses): void {
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
    if (errs.length) out.invalid(`${p}.name`, v.name ?? '', errs.join(','));
    if (v.deprecationWarning !== undefined) {
      if (!v.deprecated)
        out.invalid(
          `${p}.deprecationWarning`,
          v.deprecationWarning,
          'can only be set for deprecated versions',
        );
      else if (v.deprecationWarning.length > 256)
        out.invalid(`${p}.deprecationWarning`, v.deprecationWarning, 'must be <= 256 characters long');
      else if (v.deprecationWarning.length === 0)
        out.invalid(`${p}.deprecationWarning`, v.deprecationWarning, 'must not be an empty string');
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
  if (!unique) out.invalidRaw('spec.versions', goVersions(versions), 'must contain unique version names');
  if (storageCount !== 1)
    out.invalidRaw(
      'spec.versions',
      goVersions(versions),
      'must have exactly one version marked as storage version',
    );
}

/** spec.conversion: None, or Webhook with its client config and review versions. */
function validateConversion(conversion: unknown, out: CrdCauses): void {
  const conv = conversion as
    | { strategy?: string; webhook?: { clientConfig?: unknown; conversionReviewVersions?: string[] } }
    | undefined;
  if (conv) {
    if (!conv.strategy) out.required('spec.conversion.strategy');
    else if (conv.strategy !== 'None' && conv.strategy !== 'Webhook')
      out.notSupported('spec.conversion.strategy', conv.strategy, ['None', 'Webhook']);
    else if (conv.strategy === 'Webhook') {
      if (!conv.webhook?.clientConfig)
        out.required('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook');
      if (!conv.webhook?.conversionReviewVersions?.length)
        out.required('spec.conversion.conversionReviewVersions');
    } else {
      if (conv.webhook?.clientConfig)
        out.forbidden(
          'spec.conversion.webhookClientConfig',
          'should not be set when strategy is not set to Webhook',
        );
      if (conv.webhook?.conversionReviewVersions?.length)
        out.forbidden(
          'spec.conversion.conversionReviewVersions',
          'should not be set when strategy is not set to Webhook',
        );
    }
  }
}

function validateStoredVersions(stored: string[], versions: CrdVersion[]): StatusCause[] {
  if (stored.length === 0)
    return [invalidRaw('status.storedVersions', '[]string(nil)', 'must have at least one stored version')];
  const out = new CrdCauses();
  const left = new Map(stored.map((v, i) => [v, i] as const));
  for (const v of versions) {
    const has = left.has(v.name);
    if (v.storage && !has)
      out.invalidRaw(
        'status.storedVersions',
        goListOfStrings(stored),
        `must have the storage version ${v.name}`,
      );
    left.delete(v.name);
  }
  for (const [v, i] of left) out.invalid(`status.storedVersions[${i}]`, v, 'must appear in spec.versions');
  return out;
}

export function validateCrdUpdate(o: KObject, old: KObject): StatusCause[] {
  const out = validateCrd(o);
  const spec = specOf(o);
  const oldSpec = specOf(old);
  if (isConditionTrue(old, 'Established')) {
    if (spec.scope !== oldSpec.scope) out.invalid('spec.scope', spec.scope ?? '', 'field is immutable');
    if (spec.names?.kind !== oldSpec.names?.kind)
      out.invalid('spec.names.kind', spec.names?.kind ?? '', 'field is immutable');
  }
  if (spec.group !== oldSpec.group) out.invalid('spec.group', spec.group ?? '', 'field is immutable');
  if (spec.names?.plural !== oldSpec.names?.plural)
    out.invalid('spec.names.plural', spec.names?.plural ?? '', 'field is immutable');
  return out;
}
