// Serving custom resources: one ResourceDef per established CustomResourceDefinition, with
// `custom: true` (no strategic merge patch, no Protobuf). Per served version: the structural
// schema (pruning and type checks in the decoder), value validation, defaulting, the
// `status` and `scale` subresources and the printer columns of the Table form. Conversion
// between versions is `None`: only apiVersion changes. The printer columns are in
// custom-columns.ts, the scale subresource in custom-scale.ts, the shapes in custom-types.ts.
import { DEFAULT_COLUMNS } from '../content/table.ts';
import { errors, type StatusCause, StatusError } from '../errors/status.ts';
import { str } from '../schema/dsl.ts';
import { objectMeta } from '../schema/meta.ts';
import type { Schema } from '../schema/types.ts';
import { type ValueSchema, validateValue } from '../schema/validate.ts';
import type { KObject } from '../storage/types.ts';
import { clone, deepEqual } from '../util/object.ts';
import { printerColumn } from './custom-columns.ts';
import { schemaRules } from './custom-rules.ts';
import { validateRules } from './custom-rules-eval.ts';
import { scaleAccess } from './custom-scale.ts';
import type {
  AcceptedNames,
  CrdSpec,
  CrdVersion,
  CustomResource,
  ServedVersion,
  ServingState,
} from './custom-types.ts';
import type { Registry } from './registry.ts';
import { versionPriority } from './registry.ts';
import type { ResourceDef, Strategy, VersionDescriptor } from './types.ts';

/** Verbs of a custom resource, in the order Kubernetes lists them in discovery. */
export const CUSTOM_RESOURCE_VERBS = [
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'create',
  'update',
  'watch',
];

export type {
  AcceptedNames,
  CrdSpec,
  CrdVersion,
  CustomResource,
  PrinterColumn,
  ScaleSpec,
  ServedVersion,
  ServingState,
} from './custom-types.ts';

// ------------------------------------------------------------------ building

export function sortByPriority(vs: string[]): string[] {
  return [...vs].sort((a, b) => {
    const pa = versionPriority(a);
    const pb = versionPriority(b);
    for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pb[i]! - pa[i]!;
    return a < b ? -1 : 1;
  });
}

function servedVersion(v: CrdVersion): ServedVersion {
  const raw = (v.schema?.openAPIV3Schema ?? {
    type: 'object',
    'x-orch-preserve-unknown-fields': true,
  }) as ValueSchema;
  const schema = clone(raw);
  const props = schema.properties ?? {};
  const metaSchema = props.metadata as ValueSchema | undefined;
  const decode: Schema = {
    ...schema,
    type: 'object',
    properties: {
      ...props,
      apiVersion: props.apiVersion ?? str(),
      kind: props.kind ?? str(),
      metadata: objectMeta,
    },
  };
  const cols = v.additionalPrinterColumns ?? [];
  return {
    name: v.name,
    decode,
    schema,
    metaSchema,
    status: !!v.subresources?.status,
    scale: v.subresources?.scale,
    columns: cols.length ? [DEFAULT_COLUMNS[0]!, ...cols.map(printerColumn)] : undefined,
    deprecated: v.deprecated,
    deprecationWarning: v.deprecationWarning,
    rules: schemaRules(schema),
  };
}

/** The ResourceDef and per-version details of a custom resource, from its definition and accepted names. */
export function buildCustomResource(
  crd: KObject,
  accepted: AcceptedNames,
  state: ServingState,
): CustomResource {
  const spec = crd.spec as CrdSpec;
  const versions = new Map<string, ServedVersion>();
  for (const v of spec.versions ?? []) versions.set(v.name, servedVersion(v));
  const storageVersion = spec.versions.find((v) => v.storage)?.name ?? spec.versions[0]?.name ?? 'v1';
  const served = sortByPriority(spec.versions.filter((v) => v.served).map((v) => v.name));
  const subresources: string[] = [];
  if (spec.versions.some((v) => v.served && v.subresources?.status)) subresources.push('status');
  if (spec.versions.some((v) => v.served && v.subresources?.scale)) subresources.push('scale');
  const preferred = versions.get(served[0] ?? storageVersion);
  const cr: CustomResource = { def: undefined as unknown as ResourceDef, versions, storageVersion, state };
  const schemas: Record<string, Schema> = {};
  for (const [name, v] of versions) schemas[name] = v.decode;
  const def: ResourceDef = {
    group: spec.group,
    versions: served,
    kind: accepted.kind,
    listKind: accepted.listKind || `${accepted.kind}List`,
    plural: accepted.plural,
    singular: accepted.singular || accepted.kind.toLowerCase(),
    namespaced: spec.scope === 'Namespaced',
    shortNames: accepted.shortNames?.length ? [...accepted.shortNames] : undefined,
    categories: accepted.categories?.length ? [...accepted.categories] : undefined,
    verbs: CUSTOM_RESOURCE_VERBS,
    subresources,
    schema: versions.get(storageVersion)?.decode,
    schemas,
    strategy: { ...customStrategy(cr), scale: scaleAccess(cr) },
    custom: true,
  };
  // what each version is; deprecated ones get their Warning, the audit annotation and the gauge
  def.versionInfo = versionDescriptors(spec);
  // objects stored before a default was added get it when read (get, list, watch)
  for (const [name, v] of versions) {
    const d = def.versionInfo[name];
    if (d && hasDefaults(v.schema)) d.onRead = (o) => withDefaults(o, v);
  }
  // Table: the columns of the preferred version (the one clients use by default)
  def.strategy.table = preferred?.columns;
  cr.def = def;
  return cr;
}

/**
 * What each version of the definition is (served, storage, deprecated), with the warning a
 * request to a deprecated version gets: its `deprecationWarning`, else Kubernetes' default,
 * `<group>/<version> <Kind> is deprecated; use <group>/<version> <Kind>` naming the
 * highest-priority served version above it that is not deprecated (no `use` part without one).
 */
function versionDescriptors(spec: CrdSpec): Record<string, VersionDescriptor> {
  const out: Record<string, VersionDescriptor> = {};
  for (const v of spec.versions ?? []) {
    const d: VersionDescriptor = { served: !!v.served, storage: !!v.storage };
    if (!v.schema?.openAPIV3Schema) d.schemaless = true;
    if (v.deprecated) {
      d.deprecated = true;
      d.warning = v.deprecationWarning ?? defaultDeprecationWarning(v.name, spec);
    }
    out[v.name] = d;
  }
  return out;
}

function defaultDeprecationWarning(version: string, spec: CrdSpec): string {
  const kind = spec.names.kind;
  const text = `${spec.group}/${version} ${kind} is deprecated`;
  const candidates = (spec.versions ?? [])
    .filter((v) => v.served && !v.deprecated && v.name !== version)
    .map((v) => v.name);
  const ordered = sortByPriority([version, ...candidates]);
  const above = ordered.slice(0, ordered.indexOf(version));
  return above.length ? `${text}; use ${spec.group}/${above[0]} ${kind}` : text;
}

// ------------------------------------------------------------------ strategy

function versionOf(o: KObject): string {
  const av = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const i = av.lastIndexOf('/');
  return i >= 0 ? av.slice(i + 1) : av;
}

function customStrategy(cr: CustomResource): Strategy {
  const info = (o: KObject): ServedVersion =>
    cr.versions.get(versionOf(o)) ?? cr.versions.get(cr.storageVersion)!;
  const prepareUpdate = (o: KObject, old: KObject) => {
    const v = info(o);
    if (v.status) {
      if (old.status !== undefined) o.status = clone(old.status);
      else delete o.status;
    }
    normalize(o, v);
    // any change outside metadata is a new generation
    const gen = old.metadata.generation ?? 1;
    o.metadata.generation = deepEqual(nonMeta(o), nonMeta(old)) ? gen : gen + 1;
  };
  return {
    tracksGeneration: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    prepareForCreate(o: KObject) {
      if (cr.state.terminating)
        throw new StatusError(
          405,
          'MethodNotAllowed',
          'create not allowed while custom resource definition is terminating',
          {
            group: cr.def.group,
            kind: cr.def.plural,
          },
        );
      const v = info(o);
      if (v.status) delete o.status;
      normalize(o, v);
      o.metadata.generation = 1;
    },
    prepareForUpdate: prepareUpdate,
    prepareForStatusUpdate(o: KObject, old: KObject) {
      const v = info(o);
      if (!v.status) throw errors.pathNotFound(`status of ${cr.def.plural} in version ${v.name}`);
      const status = o.status;
      const managedFields = o.metadata.managedFields;
      const rv = o.metadata.resourceVersion;
      for (const k of Object.keys(o)) delete o[k];
      Object.assign(o, clone(old));
      o.apiVersion = `${cr.def.group}/${v.name}`;
      o.metadata.resourceVersion = rv;
      if (managedFields !== undefined) o.metadata.managedFields = managedFields;
      if (status === undefined) delete o.status;
      else o.status = status;
      normalize(o, v);
    },
    prepareForSubresource: { scale: prepareUpdate },
    validate: (o: KObject) => validateCustomResource(o, info(o)),
    validateUpdate: (o: KObject, old: KObject) => validateCustomResource(o, info(o), old),
  };
}

function nonMeta(o: KObject): Record<string, unknown> {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

const ENVELOPE = new Set(['apiVersion', 'kind', 'metadata']);

/** Drops non-nullable nulls that have no default, then applies defaults (as Kubernetes does after pruning). */
function normalize(o: KObject, v: ServedVersion): void {
  pruneNulls(o, v.schema, ENVELOPE);
  applyDefaults(o, v.schema, ENVELOPE);
}

/** Whether a schema declares a default anywhere. */
function hasDefaults(s: Schema | undefined): boolean {
  if (!s) return false;
  if (s.default !== undefined) return true;
  if (s.properties && Object.values(s.properties).some(hasDefaults)) return true;
  if (hasDefaults(s.items)) return true;
  return typeof s.additionalProperties === 'object' && hasDefaults(s.additionalProperties);
}

/** A read object with its version's defaults: a defaulted copy, or the object itself when none applies. */
function withDefaults(o: KObject, v: ServedVersion): KObject {
  const c = clone(o);
  applyDefaults(c, v.schema, ENVELOPE);
  return deepEqual(c, o) ? o : c;
}

/** A property's schema (own properties only: keys come from clients), else additionalProperties. */
function childSchema(s: Schema | undefined, k: string): Schema | undefined {
  if (!s) return undefined;
  if (s.properties && Object.hasOwn(s.properties, k)) return s.properties[k];
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

export function pruneNulls(x: unknown, s: Schema | undefined, skip?: Set<string>): void {
  if (Array.isArray(x)) {
    for (const it of x) pruneNulls(it, s?.items);
  } else if (x !== null && typeof x === 'object') {
    const o = x as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (skip?.has(k)) continue;
      const c = childSchema(s, k);
      if (o[k] === null && c && !c.nullable && c.default === undefined) delete o[k];
      else pruneNulls(o[k], c);
    }
  }
}

const nonNullableNull = (v: unknown, s: Schema | undefined) => v === null && !!s && !s.nullable;

export function applyDefaults(x: unknown, s: Schema | undefined, skip?: Set<string>): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      if (nonNullableNull(x[i], s.items) && s.items?.default !== undefined) x[i] = clone(s.items.default);
      applyDefaults(x[i], s.items);
    }
  } else if (x !== null && typeof x === 'object') {
    const o = x as Record<string, unknown>;
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (prop.default === undefined || skip?.has(k)) continue;
      if (!Object.hasOwn(o, k) || o[k] === undefined || nonNullableNull(o[k], prop))
        o[k] = clone(prop.default);
    }
    for (const k of Object.keys(o)) {
      if (skip?.has(k)) continue;
      const prop = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
      if (prop) applyDefaults(o[k], prop);
      else if (typeof s.additionalProperties === 'object') {
        const ap = s.additionalProperties;
        if (nonNullableNull(o[k], ap) && ap.default !== undefined) o[k] = clone(ap.default);
        applyDefaults(o[k], ap);
      }
    }
  }
}

function validateCustomResource(o: KObject, v: ServedVersion, old?: KObject): StatusCause[] {
  const causes = validateValue(o, v.schema, '', { skipRootKeys: ['apiVersion', 'kind', 'metadata'] });
  const ms = v.metaSchema;
  if (ms?.properties) {
    for (const k of ['name', 'generateName']) {
      const s = Object.hasOwn(ms.properties, k) ? ms.properties[k] : undefined;
      const val = o.metadata[k];
      if (s && val !== undefined) causes.push(...validateValue(val, s, `metadata.${k}`));
    }
  }
  if (!v.rules.root) return causes;
  // rules see typed values: a value of the wrong type or outside its enum blocks them (as in Kubernetes)
  if (causes.some((c) => c.reason === 'FieldValueTypeInvalid' || c.reason === 'FieldValueNotSupported'))
    causes.push({
      reason: 'FieldValueInvalid',
      field: '<nil>',
      message:
        'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    });
  else causes.push(...validateRules(v.rules, o, old));
  return causes;
}
// ------------------------------------------------------------------ installing

/** Serves (or re-serves, after a change of the definition) a custom resource. */
export function installCustomResource(registry: Registry, cr: CustomResource): void {
  registry.remove(cr.def.group, cr.def.plural);
  registry.add(cr.def);
}

/** Stops serving a custom resource. */
export function uninstallCustomResource(registry: Registry, def: ResourceDef): void {
  const cur = registry.byResource(def.group, def.plural);
  if (cur && cur.def === def) registry.remove(def.group, def.plural);
}
