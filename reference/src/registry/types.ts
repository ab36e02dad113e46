// Registry contracts: a resource definition (names, scope, versions, schema) plus one
// strategy per kind (defaults, validation, field selectors, table columns, hooks).
import type { StatusCause } from '../errors/status.ts';
import type { Schema } from '../schema/types.ts';
import type { KObject } from '../storage/types.ts';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
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
}

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description?: string;
  priority?: number;
  /** Cell value for an object. */
  cell: (obj: KObject) => unknown;
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
  /** Whether DELETE answers with the deleted object rather than a success Status. */
  returnDeletedObject?: boolean;
  /** Rule for metadata.name (default: DNS subdomain). */
  nameRule?: 'subdomain' | 'label' | 'label1035' | 'path';
  /** Whether PUT may create the object when it does not exist. */
  allowCreateOnUpdate?: boolean;
  /** Whether an update with no resourceVersion is allowed (unconditional update). */
  allowUnconditionalUpdate?: boolean;
  /** Whether `generation` follows spec changes (true for kinds with spec/status). */
  tracksGeneration?: boolean;
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
}

export function bucketName(def: ResourceDef): string {
  return `${def.group || 'core'}/${def.plural}`;
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}
