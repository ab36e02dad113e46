// Registry contracts: a resource definition (names, scope, versions, schema) plus one
// strategy per kind (defaults, validation, field selectors, table columns, hooks).
import type { StatusCause, StatusError } from '../errors/status.ts';
import type { Schema } from '../schema/types.ts';
import type { KObject } from '../storage/types.ts';
import type { MaybePromise } from '../util/maybe-async.ts';
import type { GarbageCollectionPolicy } from './gc-finalizers.ts';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/**
 * A question to the authorizers: who does what to which object or path. Asked by the
 * authorization stage for each request, and by the review kinds (which live here, below it).
 */
export interface AuthorizationAttributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, impersonate, ... (HTTP verbs lower-cased for paths) */
  verb: string;
  /** True for API resources, false for other paths (`/healthz`, `/version`, discovery). */
  resourceRequest: boolean;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** The request path (non-resource requests). */
  path: string;
}

/** Everything a request carries below the HTTP layer. */
export interface RequestContext {
  user: UserInfo;
  /** Warnings to send back as `Warning: 299 - "..."` headers. */
  warnings: string[];
  dryRun: boolean;
  fieldManager?: string;
  userAgent?: string;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /** The request's audit event: any stage may annotate it. */
  audit?: { annotate(key: string, value: string): void };
  /** Admission of this request's writes (absent for the server's own writes). */
  admission?: WriteAdmission;
}

export type WriteOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What the store knows of a write when it asks admission. */
export interface WriteAdmissionRequest {
  operation: WriteOperation;
  namespace: string;
  name: string;
  object?: KObject;
  oldObject?: KObject;
}

/**
 * Admission as the store sees it: called after the strategy prepared the object (mutate may
 * return a replacement) and after validation (validate). The pipeline's admission stage
 * implements it for each request; the registry knows nothing of plugins.
 */
/** A write's admission; each phase answers at once when every plugin of it did. */
export interface WriteAdmission {
  mutate(w: WriteAdmissionRequest): MaybePromise<KObject | undefined>;
  validate(w: WriteAdmissionRequest): MaybePromise<void>;
}

export type { TableColumn } from '../content/table.ts';

import type { TableColumn } from '../content/table.ts';

/** The `scale` subresource of a kind: how its Scale is read from and written into an object. */
export interface ScaleAccess {
  /** The `autoscaling/v1` Scale of an object read at `version`; undefined when that version serves none. */
  toScale(obj: KObject, version: string): KObject | undefined;
  /** Writes the replicas of a Scale into (a copy of) the object. */
  setReplicas(obj: KObject, replicas: number, version: string): void;
  /** Patch types the subresource accepts. */
  patchTypes: readonly string[];
}

export interface Strategy {
  /** Sets defaults and server-owned fields on a new object (status cleared where a status subresource exists). */
  prepareForCreate?(obj: KObject, ctx: RequestContext): void;
  /** Carries over what an update of the main resource may not change (status, ...). */
  prepareForUpdate?(obj: KObject, old: KObject, ctx: RequestContext): void;
  /** Same for the status subresource: only status may change. */
  prepareForStatusUpdate?(obj: KObject, old: KObject, ctx: RequestContext): void;
  /** Same for other subresources that take the kind's own object (e.g. a namespace's `finalize`). */
  prepareForSubresource?: Record<string, (obj: KObject, old: KObject, ctx: RequestContext) => void>;
  validate?(obj: KObject, ctx: RequestContext): StatusCause[];
  validateUpdate?(obj: KObject, old: KObject, ctx: RequestContext): StatusCause[];
  /** The validation of an update through a subresource of its own (a pod's `binding`), instead of validateUpdate. */
  validateSubresource?: Record<string, (obj: KObject, old: KObject, ctx: RequestContext) => StatusCause[]>;
  /** Values of kind-specific field selectors (beyond metadata.name and metadata.namespace). */
  fieldLabels?: Record<string, (obj: KObject) => string | undefined>;
  /** Custom table columns (otherwise Name and Created At). */
  table?: TableColumn[];
  /** Server-side effects after a committed create (e.g. nothing) or delete (e.g. release ports). */
  afterCreate?(obj: KObject): void;
  afterDelete?(obj: KObject): void;
  /** True when a delete request should only mark the object (namespaces: finalize contents first). */
  gracefulDelete?(obj: KObject): boolean;
  /** Changes made when the deletion mark is set (e.g. a namespace's phase becomes Terminating). */
  prepareForDelete?(obj: KObject): void;
  /** Called after the deletion mark is stored (e.g. start finalizing a namespace's contents). */
  onDeleteRequested?(obj: KObject): void;
  /**
   * The garbage collection a delete without propagationPolicy asks for at `version` (the
   * version the request names): DeleteDependents unless said otherwise.
   */
  defaultGarbageCollectionPolicy?(version: string): GarbageCollectionPolicy;
  /** A warning for a delete (or delete collection) request at `version` with these options, if any. */
  deleteWarning?(propagationPolicy: string | undefined, version: string): string | undefined;
  /** Whether DELETE answers with the deleted object rather than a success Status. */
  returnDeletedObject?: boolean;
  /** Refuses the deletion of some objects (e.g. the system priority classes): the error to answer, or undefined. */
  refuseDelete?(obj: KObject): StatusError | undefined;
  /** Rule for metadata.name (default: DNS subdomain). */
  nameRule?: 'subdomain' | 'label' | 'label1035' | 'path';
  /** Whether PUT may create the object when it does not exist. */
  allowCreateOnUpdate?: boolean;
  /** Whether an update with no resourceVersion is allowed (unconditional update). */
  allowUnconditionalUpdate?: boolean;
  /**
   * The fields of the kind's zero value that a create is compared with when ownership is
   * recorded (merged over `{metadata: {}, spec: {}, status: {}}` as the schema has them): Go
   * struct fields present though empty, lists that are null, values the server sets itself.
   */
  zeroValue?(): Record<string, unknown>;
  /** The `scale` subresource, for kinds that list it. */
  scale?: ScaleAccess;
  /** Whether `generation` follows spec changes (true for kinds with spec/status). */
  tracksGeneration?: boolean;
  /**
   * Kinds that are never stored (the review APIs): a create answers 201 with the object this
   * returns (its status computed from the request); nothing is written, and only `create` is
   * served.
   */
  review?(
    obj: KObject,
    ctx: RequestContext,
    at: { namespace: string; version: string },
  ): MaybePromise<KObject>;
  /**
   * Kinds whose objects are computed when read, never stored (ComponentStatus): get answers
   * `get(name)` (404 when undefined), list answers `list()` filtered by the selectors.
   */
  live?: { get(name: string): Promise<KObject | undefined>; list(): Promise<KObject[]> };
}

export interface ResourceDef {
  group: string;
  /** Versions served, preferred first. */
  versions: string[];
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: string[];
  /** Subresources, e.g. `status`, `eviction`. */
  subresources: string[];
  schema?: Schema;
  /** Per-version schemas (custom resources); `schema` applies to versions not listed. */
  schemas?: Record<string, Schema>;
  strategy: Strategy;
  /** Content types (besides JSON) that the kind can be encoded in. */
  protobuf?: boolean;
  /** Custom resources: no strategic merge patch, no protobuf. */
  custom?: boolean;
  /** What is known of each version beyond its being served (deprecation, removal, replacement). */
  versionInfo?: Record<string, VersionDescriptor>;
  /**
   * The resource keeps its objects in another resource's storage, converted (core `events`
   * and `events.orch.io` events are one set of objects): every object written through either
   * is read, listed and watched through both.
   */
  storedAs?: StoredAs;
}

/** A served version of a resource, as discovery, OpenAPI and the deprecation warnings see it. */
export interface VersionDescriptor {
  served: boolean;
  /** The version objects are stored in. */
  storage: boolean;
  deprecated?: boolean;
  /** The release that deprecated the version (e.g. `1.26`). */
  deprecatedIn?: string;
  /** The release that removes the version (e.g. `1.29`). */
  removedIn?: string;
  /** The group/version and kind that replace it (`flowcontrol.orch.io/v1beta3 FlowSchema`). */
  replacement?: string;
  /** The whole Warning text, when the version names its own (a custom resource's `deprecationWarning`). */
  warning?: string;
  schema?: Schema;
  /** A custom resource version whose definition declares no schema (published as a bare object). */
  schemaless?: boolean;
  /** Conversion between this version's shape and the storage version's (identity when absent). */
  toStorage?(obj: KObject): KObject;
  fromStorage?(obj: KObject): KObject;
  /**
   * What every object read in this version goes through after conversion (a custom
   * resource's schema defaults, applied to objects stored before the default was set). It
   * returns a new object, or the one given when nothing changes; it never alters its argument.
   */
  onRead?(obj: KObject): KObject;
}

export interface StoredAs {
  group: string;
  plural: string;
  /** This resource's object in the storage resource's shape (apiVersion and kind included). */
  toStorage(obj: KObject): KObject;
  /** A stored object in this resource's shape. */
  fromStorage(obj: KObject): KObject;
}

/** The schema of a resource at a version: its descriptor's, a custom resource's per-version one, or the kind's. */
export function schemaFor(def: ResourceDef, version: string): Schema | undefined {
  return def.versionInfo?.[version]?.schema ?? def.schemas?.[version] ?? def.schema;
}

/** The version a resource's objects are stored in (its descriptors say; else none is distinguished). */
export function storageVersionOf(def: ResourceDef): string | undefined {
  if (!def.versionInfo) return undefined;
  return Object.entries(def.versionInfo).find(([, d]) => d.storage)?.[0];
}

/**
 * The warning a request to a deprecated version gets, as Kubernetes words it:
 * `<group>/<version> <Kind> is deprecated in v1.X+, unavailable in v1.Y+; use <replacement>`.
 */
export function deprecationWarning(def: ResourceDef, version: string): string | undefined {
  const d = def.versionInfo?.[version];
  if (!d?.deprecated) return undefined;
  if (d.warning !== undefined) return d.warning;
  let w = `${apiVersionOf(def.group, version)} ${def.kind} is deprecated`;
  if (d.deprecatedIn) w += ` in v${d.deprecatedIn}+`;
  if (d.removedIn) w += `, unavailable in v${d.removedIn}+`;
  if (d.replacement) w += `; use ${d.replacement}`;
  return w;
}

export function bucketName(def: ResourceDef): string {
  if (def.storedAs) return `${def.storedAs.group || 'core'}/${def.storedAs.plural}`;
  return `${def.group || 'core'}/${def.plural}`;
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}
