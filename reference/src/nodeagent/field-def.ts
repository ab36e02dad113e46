// The shape of a node agent configuration field's definition (./fields.ts holds the table).

export type FieldKind =
  | 'bool'
  | 'string'
  | 'int32'
  | 'int64'
  | 'float64'
  /** a Go duration string */
  | 'duration'
  | 'stringList'
  /** map of string to string */
  | 'stringMap'
  /** map of string to bool */
  | 'boolMap'
  /** map of string to list of string */
  | 'stringListMap'
  /** map of resource name to quantity (a string, or a number) */
  | 'resourceList'
  | 'object'
  /** a list of objects */
  | 'objectList';

/** Text formats checked beyond the JSON type. */
export type Format =
  | 'cpuList'
  | 'quantity'
  | 'absoluteCgroup'
  | 'minorVersion'
  | 'sysctlPattern'
  | 'evictionThreshold'
  | 'percentage';

export interface FieldDef {
  name: string;
  kind: FieldKind;
  /** The default applied when the field is absent (a copy is made). */
  default?: unknown;
  required?: boolean;
  min?: number;
  max?: number;
  /** The value must be above this. */
  above?: number;
  /** Allowed values of a string (or of each item of a string list). */
  values?: readonly string[];
  /** Allowed keys of a map. */
  keys?: readonly string[];
  /** Format of a string, of each list item, or of each map value. */
  format?: Format;
  /** The map's keys are eviction signal names. */
  signalKeys?: true;
  /** Fields of an object, or of each item of an object list. */
  fields?: readonly FieldDef[];
  row: string;
  beyond?: string;
}

/** Eviction signals of the kubelet 1.28 (doc3 names the maps "keyed by signal name"). */
export const EVICTION_SIGNALS = [
  'memory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
  'allocatableMemory.available',
] as const;

/** A field definition. */
export const f = (name: string, kind: FieldKind, row: string, more: Partial<FieldDef> = {}): FieldDef => ({
  name,
  kind,
  row,
  ...more,
});

export const PORT = { min: 1, max: 65535 };
export const K8S = 'follows the kubelet 1.28';
