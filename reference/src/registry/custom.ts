// Serving custom resources: one ResourceDef per established CustomResourceDefinition, with
// `custom: true` (no strategic merge patch, no Protobuf). Per served version: the structural
// schema (pruning and type checks in the decoder), value validation, defaulting, the
// `status` and `scale` subresources and the printer columns of the Table form. Conversion
// between versions is `None`: only apiVersion changes.
import { DEFAULT_COLUMNS } from '../content/table.ts';
import { errors, type StatusCause, StatusError } from '../errors/status.ts';
import { str } from '../schema/dsl.ts';
import { objectMeta } from '../schema/meta.ts';
import type { Schema } from '../schema/types.ts';
import { type ValueSchema, validateValue } from '../schema/validate.ts';
import type { KObject } from '../storage/types.ts';
import { clone, deepEqual } from '../util/object.ts';
import { type SchemaRules, schemaRules, validateRules } from './custom-rules.ts';
import type { Registry } from './registry.ts';
import { versionPriority } from './registry.ts';
import type { ResourceDef, ScaleAccess, Strategy, TableColumn, VersionDescriptor } from './types.ts';

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

export interface AcceptedNames {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: Record<string, unknown>; scale?: ScaleSpec };
  additionalPrinterColumns?: PrinterColumn[];
}

export interface CrdSpec {
  group: string;
  names: AcceptedNames;
  scope: string;
  versions: CrdVersion[];
  conversion?: { strategy?: string };
  preserveUnknownFields?: boolean;
}

/** Mutable serving state shared with the CRD controller. */
export interface ServingState {
  /** The definition is being deleted: no new custom resources. */
  terminating: boolean;
}

export interface ServedVersion {
  name: string;
  /** Root schema for the decoder: the CRD schema plus apiVersion, kind and ObjectMeta. */
  decode: Schema;
  /** The CRD's own schema (value validation, defaults). */
  schema: ValueSchema;
  /** Root `metadata` schema of the CRD (may restrict name and generateName). */
  metaSchema?: ValueSchema;
  status: boolean;
  scale?: ScaleSpec;
  columns?: TableColumn[];
  deprecated?: boolean;
  deprecationWarning?: string;
  /** The schema's validation rules, compiled. */
  rules: SchemaRules;
}

export interface CustomResource {
  def: ResourceDef;
  versions: Map<string, ServedVersion>;
  storageVersion: string;
  state: ServingState;
}

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

// ------------------------------------------------------------------ printer columns

function printerColumn(c: PrinterColumn): TableColumn {
  const type = (
    ['integer', 'number', 'boolean', 'date', 'string'].includes(c.type) ? c.type : 'string'
  ) as TableColumn['type'];
  const column: TableColumn = {
    name: c.name,
    type,
    description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
    priority: c.priority ?? 0,
    cell: (o) => cellFor(type, evalJsonPath(o, c.jsonPath)),
  };
  if (c.format) column.format = c.format;
  return column;
}

function cellFor(type: string, found: { value: unknown } | undefined): unknown {
  if (!found) return null;
  const v = found.value;
  if (v === null || v === undefined) return type === 'string' ? printText(v) : null;
  switch (type) {
    case 'string':
      return printText(v);
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date': {
      if (typeof v !== 'string') return null;
      const t = Date.parse(v);
      if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || !Number.isFinite(t)) return '<invalid>';
      return humanDuration(Date.now() - t);
    }
  }
  return null;
}

function printText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A duration as Kubernetes prints ages (`45s`, `3m20s`, `5h`, `3d4h`, `2y10d`). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8)
    return hours % 24 === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 365 * 8)
    return days % 365 === 0 ? `${Math.trunc(days / 365)}y` : `${Math.trunc(days / 365)}y${days % 365}d`;
  return `${Math.trunc(days / 365)}y`;
}

type Segment =
  | { key: string }
  | { index: number }
  | { all: true }
  | { filter: { path: string[]; value: unknown } };

/** Parses the simple JSONPath forms printer columns use: `.a.b`, `.a[0]`, `.a['k.x']`, `.a[*]`, `.a[?(@.k=="v")]`. */
export function parseJsonPath(path: string): Segment[] | undefined {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  const segs: Segment[] = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '.') {
      i++;
      let key = '';
      while (i < p.length && p[i] !== '.' && p[i] !== '[') {
        if (p[i] === '\\' && i + 1 < p.length) {
          key += p[i + 1];
          i += 2;
        } else key += p[i++];
      }
      if (key) segs.push({ key });
    } else if (c === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) return undefined;
      const inner = p.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') segs.push({ all: true });
      else if (/^-?\d+$/.test(inner)) segs.push({ index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) segs.push({ key: inner.slice(1, -1) });
      else {
        const m = /^\?\(@((?:\.[\w-]+)+)\s*==\s*(?:"([^"]*)"|'([^']*)'|(-?\d+(?:\.\d+)?|true|false))\)$/.exec(
          inner,
        );
        if (!m) return undefined;
        const value = m[2] ?? m[3] ?? JSON.parse(m[4]!);
        segs.push({ filter: { path: m[1]!.slice(1).split('.'), value } });
      }
    } else return undefined;
  }
  return segs;
}

/** The first value a simple JSONPath finds in an object (undefined when nothing matches). */
export function evalJsonPath(o: unknown, path: string): { value: unknown } | undefined {
  const segs = parseJsonPath(path);
  if (!segs) return undefined;
  let cur: unknown[] = [o];
  for (const s of segs) {
    const next: unknown[] = [];
    for (const x of cur) {
      if ('key' in s) {
        if (x !== null && typeof x === 'object' && !Array.isArray(x) && s.key in (x as object))
          next.push((x as Record<string, unknown>)[s.key]);
      } else if ('index' in s) {
        if (Array.isArray(x)) {
          const i = s.index < 0 ? x.length + s.index : s.index;
          if (i >= 0 && i < x.length) next.push(x[i]);
        }
      } else if ('all' in s) {
        if (Array.isArray(x)) next.push(...x);
        else if (x !== null && typeof x === 'object') next.push(...Object.values(x));
      } else {
        if (!Array.isArray(x)) continue;
        for (const it of x) {
          let v: unknown = it;
          for (const k of s.filter.path)
            v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
          if (v === s.filter.value) next.push(it);
        }
      }
    }
    cur = next;
  }
  return cur.length ? { value: cur[0] } : undefined;
}

// ------------------------------------------------------------------ scale subresource

const SCALE_API_VERSION = 'autoscaling/v1';

function pathSegments(p: string): string[] {
  return p.replace(/^\./, '').split('.').filter(Boolean);
}

function getPath(o: unknown, path: string): unknown {
  let cur = o;
  for (const k of pathSegments(path)) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

function setPath(o: Record<string, unknown>, path: string, value: unknown): void {
  const segs = pathSegments(path);
  let cur = o;
  for (const k of segs.slice(0, -1)) {
    const next = cur[k];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[segs[segs.length - 1]!] = value;
}

function toScale(o: KObject, sc: ScaleSpec): Record<string, unknown> {
  const specReplicas = getPath(o, sc.specReplicasPath);
  const statusReplicas = getPath(o, sc.statusReplicasPath);
  const metadata: Record<string, unknown> = { name: o.metadata.name };
  if (o.metadata.namespace) metadata.namespace = o.metadata.namespace;
  metadata.uid = o.metadata.uid;
  metadata.resourceVersion = o.metadata.resourceVersion;
  metadata.creationTimestamp = o.metadata.creationTimestamp;
  const spec: Record<string, unknown> = {};
  if (typeof specReplicas === 'number' && Math.trunc(specReplicas) !== 0)
    spec.replicas = Math.trunc(specReplicas);
  const status: Record<string, unknown> = {
    replicas: typeof statusReplicas === 'number' ? Math.trunc(statusReplicas) : 0,
  };
  if (sc.labelSelectorPath) {
    const sel = getPath(o, sc.labelSelectorPath);
    if (typeof sel === 'string' && sel) status.selector = sel;
  }
  return { kind: 'Scale', apiVersion: SCALE_API_VERSION, metadata, spec, status };
}

/** The scale subresource of a custom resource: per version, the paths its definition names. */
function scaleAccess(cr: CustomResource): ScaleAccess {
  return {
    toScale: (o, version) => {
      const sc = cr.versions.get(version)?.scale;
      return sc ? (toScale(o, sc) as KObject) : undefined;
    },
    setReplicas: (o, replicas, version) => {
      const sc = cr.versions.get(version)?.scale;
      if (sc) setPath(o as Record<string, unknown>, sc.specReplicasPath, replicas);
    },
    patchTypes: ['application/json-patch+json', 'application/merge-patch+json'],
  };
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
