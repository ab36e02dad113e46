// Schema type to expression type (doc2's table): one declared message type per object node with
// properties (so field access is type checked), maps for additionalProperties, lists for arrays,
// scalars by type and format, `dyn` for int-or-string and for nodes without a structure. A custom
// resource's root, like an embedded resource, implicitly has apiVersion, kind and
// metadata.{name,generateName}. Unknown fields (preserve-unknown-fields) are not declared, so not
// reachable. Each declaration also carries the size bounds the cost estimator uses.
import type { ValueSchema } from '../schema/validate.ts';
import { escapeName } from './escaping.ts';
import type { ListType } from './list-types.ts';
import { MAX_REQUEST_SIZE_BYTES, maxItems, maxProperties, maxStringSize, minSerializedSize } from './size.ts';

export const TIMESTAMP = 'google.protobuf.Timestamp';
export const DURATION = 'google.protobuf.Duration';

export type DeclKind =
  | 'message'
  | 'map'
  | 'list'
  | 'int'
  | 'double'
  | 'string'
  | 'bytes'
  | 'bool'
  | 'timestamp'
  | 'duration'
  | 'dyn';

/** A message value: a Map of escaped field names to values, one class per declared type. */
export type MessageClass = new () => Map<string, unknown>;

export interface DeclField {
  /** The name as expressions spell it (escaped). */
  cel: string;
  type: DeclType;
}

export interface DeclType {
  kind: DeclKind;
  /** The type as the evaluator's registry names it (`int`, `list<string>`, `Object.spec`, ...). */
  name: string;
  /** message: fields by JSON property name (only reachable ones). */
  fields?: Map<string, DeclField>;
  /** message: the class of its values. */
  ctor?: MessageClass;
  /** list items, map values. */
  elem?: DeclType;
  /**
   * Upper bound of the size (string length, list items, map entries) for cost estimation, as
   * Kubernetes declares it (its MaxElements: 0 for numbers, booleans and objects).
   */
  maxSize: number;
  /**
   * Shortest JSON text of a value of this node (bounds the number of items a request can hold),
   * as Kubernetes counts it (its MinSerializedSize).
   */
  minSize: number;
  /** The schema node's type as Kubernetes prints it in a validation error (`object`, `string`, ...). */
  schemaType: string;
  /** list: its x-orch-list-type when set or map. */
  listType?: ListType;
}

export interface MessageDeclaration {
  name: string;
  ctor: MessageClass;
  fields: Record<string, string>;
}

const scalar = (kind: DeclKind, name: string, s: ValueSchema | undefined, schemaType: string): DeclType => ({
  kind,
  name,
  maxSize:
    kind === 'string' || kind === 'bytes' || kind === 'timestamp' || kind === 'duration'
      ? maxStringSize(s, kind)
      : kind === 'dyn' && s?.['x-orch-int-or-string']
        ? MAX_REQUEST_SIZE_BYTES - 2
        : 0,
  minSize: minSerializedSize(s),
  schemaType,
});

/** Whether Kubernetes declares a type for this node (a node it leaves out adds nothing to the size of its object). */
function declaredInKubernetes(s: ValueSchema): boolean {
  if (s['x-orch-int-or-string']) return true;
  switch (s.type) {
    case 'array':
      return !!s.items && declaredInKubernetes(s.items as ValueSchema);
    case 'object':
      return typeof s.additionalProperties === 'object' && s.additionalProperties !== null
        ? declaredInKubernetes(s.additionalProperties as ValueSchema)
        : true;
    case 'string':
    case 'boolean':
    case 'number':
    case 'integer':
      return true;
    default:
      return false;
  }
}

/** Shortest JSON text of an object: `{}` and each required property without a default. */
function objectMinSize(
  s: ValueSchema,
  props: Record<string, ValueSchema>,
  fields: Map<string, DeclField>,
): number {
  let size = 2;
  for (const k of s.required ?? []) {
    const p = props[k];
    const f = fields.get(k);
    if (!p || p.default !== undefined || !declaredInKubernetes(p)) continue;
    size += Buffer.byteLength(k) + (f ? f.type.minSize : minSerializedSize(p)) + 4;
  }
  return size;
}

/**
 * A resource root (and an embedded resource) as Kubernetes declares it: apiVersion, kind and
 * metadata.{name,generateName} always readable; a schema that declares all of them (as strings
 * and an object) is taken as it is, any other gets plain ones in their place.
 */
function withTypeAndObjectMeta(props: Record<string, ValueSchema>): Record<string, ValueSchema> {
  const meta = props.metadata;
  const mp = (meta?.properties ?? {}) as Record<string, ValueSchema>;
  if (
    props.kind?.type === 'string' &&
    props.apiVersion?.type === 'string' &&
    meta?.type === 'object' &&
    mp.name?.type === 'string' &&
    mp.generateName?.type === 'string'
  )
    return props;
  const str: ValueSchema = { type: 'string' };
  return {
    ...props,
    kind: str,
    apiVersion: str,
    metadata: { type: 'object', properties: { name: str, generateName: str } },
  };
}

/**
 * How a schema's property names are spelled in expressions: escaped as custom resource rules
 * spell them (the default), or as they are (types the server declares itself, such as the
 * admission request, whose `namespace` field is written `request.namespace`). Undefined: the
 * property is not visible.
 */
export type FieldNames = (property: string) => string | undefined;

/** Property names as they are. */
export const PLAIN_NAMES: FieldNames = (k) => k;

/**
 * The declared type of a schema node; every message type met is added to `out` (children before
 * parents, the order the registry needs). `root`: the node is a resource root (apiVersion, kind and
 * metadata implicit).
 */
export function declare(
  s: ValueSchema | undefined,
  name: string,
  out: MessageDeclaration[],
  root = false,
  names: FieldNames = escapeName,
): DeclType {
  const schemaType = s?.type ?? '';
  if (!s) return scalar('dyn', 'dyn', s, schemaType);
  if (s['x-orch-int-or-string']) return scalar('dyn', 'dyn', s, schemaType);
  switch (s.type) {
    case 'boolean':
      return scalar('bool', 'bool', s, schemaType);
    case 'integer':
      return scalar('int', 'int', s, schemaType);
    case 'number':
      return scalar('double', 'double', s, schemaType);
    case 'string':
      return declareString(s, schemaType);
    case 'array':
      return declareList(s, name, out, names, schemaType);
    case 'object':
      break;
    default:
      if (!root) return scalar('dyn', 'dyn', s, schemaType);
  }
  return declareObject(s, name, out, root, names);
}

/** A string, or the type its format names. */
function declareString(s: ValueSchema, schemaType: string): DeclType {
  switch (s.format) {
    case 'byte':
      return scalar('bytes', 'bytes', s, schemaType);
    case 'date':
    case 'date-time':
    case 'datetime':
      return scalar('timestamp', TIMESTAMP, s, schemaType);
    case 'duration':
      return scalar('duration', DURATION, s, schemaType);
    default:
      return scalar('string', 'string', s, schemaType);
  }
}

function declareList(
  s: ValueSchema,
  name: string,
  out: MessageDeclaration[],
  names: FieldNames,
  schemaType: string,
): DeclType {
  const elem = declare(s.items as ValueSchema | undefined, `${name}.items`, out, false, names);
  const lt = s['x-orch-list-type'];
  const listType: ListType | undefined =
    lt === 'set'
      ? { kind: 'set' }
      : lt === 'map'
        ? { kind: 'map', keys: (s['x-orch-list-map-keys'] ?? []).map((k) => names(k) ?? k) }
        : undefined;
  return {
    kind: 'list',
    listType,
    name: `list<${elem.name}>`,
    elem,
    maxSize: maxItems(s, elem.minSize),
    minSize: minSerializedSize(s),
    schemaType,
  };
}

/** An object: a map (additionalProperties only), a message (properties, or an embedded resource), or dyn. */
function declareObject(
  s: ValueSchema,
  name: string,
  out: MessageDeclaration[],
  root: boolean,
  names: FieldNames,
): DeclType {
  const embedded = root || s['x-orch-embedded-resource'] === true;
  const props = s.properties ?? {};
  const hasProps = Object.keys(props).length > 0;
  if (!embedded && !hasProps && typeof s.additionalProperties === 'object') {
    const elem = declare(
      s.additionalProperties as ValueSchema,
      `${name}.additionalProperties`,
      out,
      false,
      names,
    );
    return {
      kind: 'map',
      name: `map<string, ${elem.name}>`,
      elem,
      maxSize: maxProperties(s, elem.minSize),
      minSize: minSerializedSize(s),
      schemaType: 'object',
    };
  }
  if (!embedded && !hasProps && !s['x-orch-preserve-unknown-fields'] && s.additionalProperties === undefined)
    return { ...scalar('dyn', 'dyn', s, 'object'), kind: 'dyn' };
  return declareMessage(s, name, out, embedded, names);
}

/** A message type of the object's properties (with apiVersion, kind and metadata when embedded). */
function declareMessage(
  s: ValueSchema,
  name: string,
  out: MessageDeclaration[],
  embedded: boolean,
  names: FieldNames,
): DeclType {
  const props = s.properties ?? {};
  const fields = new Map<string, DeclField>();
  const own = props as Record<string, ValueSchema>;
  const all = embedded ? withTypeAndObjectMeta(own) : own;
  for (const [k, child] of Object.entries(all)) {
    const cel = names(k);
    if (!cel) continue;
    fields.set(k, { cel, type: declare(child, `${name}.${cel}`, out, false, names) });
  }
  const ctor = { [name]: class extends Map<string, unknown> {} }[name]!;
  const decl: Record<string, string> = {};
  for (const f of fields.values()) decl[f.cel] = f.type.name;
  out.push({ name, ctor, fields: decl });
  return {
    kind: 'message',
    name,
    fields,
    ctor,
    maxSize: 0,
    minSize: objectMinSize(s, all, fields),
    schemaType: 'object',
  };
}
