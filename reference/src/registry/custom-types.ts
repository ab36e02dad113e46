// The shapes of a CustomResourceDefinition's spec as the server reads it, and of a custom
// resource being served (per version: its schemas, subresources, columns and rules).
import type { Schema } from '../schema/types.ts';
import type { ValueSchema } from '../schema/validate.ts';
import type { SchemaRules } from './custom-rules.ts';
import type { ResourceDef, TableColumn } from './types.ts';

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
