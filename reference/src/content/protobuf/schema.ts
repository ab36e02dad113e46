// Message descriptions of the Kubernetes types that have a Protobuf encoding, with the field
// numbers and types Kubernetes declares (k8s.io/apimachinery meta/v1 and runtime, core/v1,
// coordination/v1, events/v1), so that real Protobuf clients decode what we send.
//
// Go semantics that matter on the wire (gogo-generated marshalling):
// - a field backed by a Go value (string, int, struct, metav1.Time) is always written, even
//   when it holds its zero value; a field backed by a Go pointer (`ptr`) is written only when set;
// - maps are repeated entry messages {key = 1, value = 2}, sorted by key (bytewise);
// - metav1.Time is a Timestamp {seconds = 1, nanos = 2} carrying whole seconds (nanos 0), a zero
//   Time is an empty message; metav1.MicroTime keeps the nanoseconds (microsecond precision);
// - FieldsV1 is a message whose field 1 (`Raw`) holds the JSON text of the field set.

export type ScalarType = 'string' | 'bytes' | 'rawbytes' | 'bool' | 'int32' | 'int64' | 'double';
/** `time`/`microtime`: metav1.Time and metav1.MicroTime; `fieldsV1`: metav1.FieldsV1. */
export type SpecialType = 'time' | 'microtime' | 'fieldsV1';

export interface FieldDef {
  /** JSON property name. */
  json: string;
  /** Protobuf field number. */
  no: number;
  type: ScalarType | SpecialType | { msg: string };
  repeated?: boolean;
  /** `map<string, type>` (type: string or bytes). */
  map?: boolean;
  /** Backed by a Go pointer: written only when set (otherwise the zero value is written). */
  ptr?: boolean;
  /** Kept in the JSON form even when it holds its zero value (no `omitempty` effect). */
  keep?: boolean;
  /** A Go struct embedded inline: its fields sit beside the others in the JSON form. */
  inline?: boolean;
}

/**
 * Messages whose JSON form is not an object of their fields (codec.ts `ADAPTERS`): a Quantity
 * is its string, an IntOrString a number or a string, a Duration Go's duration text, a
 * RawExtension or apiextensions JSON any JSON value (its bytes are the JSON text), the
 * JSONSchemaPropsOr* unions a schema or an array/bool, a named slice (`ExtraValue`) the array.
 */
export type Adapt =
  | 'quantity'
  | 'intOrString'
  | 'duration'
  | 'rawJSON'
  | 'schemaOrArray'
  | 'schemaOrBool'
  | 'schemaOrStringArray'
  | 'array';

export interface MessageDef {
  name: string;
  fields: FieldDef[];
  adapt?: Adapt;
}

const s = (json: string, no: number, extra: Partial<FieldDef> = {}): FieldDef => ({
  json,
  no,
  type: 'string',
  ...extra,
});
const m = (json: string, no: number, msg: string, extra: Partial<FieldDef> = {}): FieldDef => ({
  json,
  no,
  type: { msg },
  ...extra,
});
const metadata: FieldDef = { json: 'metadata', no: 1, type: { msg: 'ObjectMeta' }, keep: true };
const listOf = (name: string, item: string): MessageDef => ({
  name,
  fields: [
    { json: 'metadata', no: 1, type: { msg: 'ListMeta' }, keep: true },
    { json: 'items', no: 2, type: { msg: item }, repeated: true },
  ],
});

export const MESSAGES: MessageDef[] = [
  // ---------------------------------------------------------------- runtime
  { name: 'runtime.TypeMeta', fields: [s('apiVersion', 1), s('kind', 2)] },
  {
    name: 'runtime.Unknown',
    fields: [
      m('typeMeta', 1, 'runtime.TypeMeta'),
      { json: 'raw', no: 2, type: 'rawbytes', ptr: true },
      s('contentEncoding', 3),
      s('contentType', 4),
    ],
  },
  { name: 'runtime.RawExtension', fields: [{ json: 'raw', no: 1, type: 'rawbytes', ptr: true }] },

  // ---------------------------------------------------------------- meta/v1
  { name: 'WatchEvent', fields: [s('type', 1), m('object', 2, 'runtime.RawExtension')] },
  {
    name: 'OwnerReference',
    fields: [
      s('kind', 1),
      s('name', 3),
      s('uid', 4),
      s('apiVersion', 5),
      { json: 'controller', no: 6, type: 'bool', ptr: true },
      { json: 'blockOwnerDeletion', no: 7, type: 'bool', ptr: true },
    ],
  },
  {
    name: 'ManagedFieldsEntry',
    fields: [
      s('manager', 1),
      s('operation', 2),
      s('apiVersion', 3),
      { json: 'time', no: 4, type: 'time', ptr: true },
      s('fieldsType', 6),
      { json: 'fieldsV1', no: 7, type: 'fieldsV1', ptr: true },
      s('subresource', 8),
    ],
  },
  {
    name: 'ObjectMeta',
    fields: [
      s('name', 1),
      s('generateName', 2),
      s('namespace', 3),
      s('selfLink', 4),
      s('uid', 5),
      s('resourceVersion', 6),
      { json: 'generation', no: 7, type: 'int64' },
      { json: 'creationTimestamp', no: 8, type: 'time' },
      { json: 'deletionTimestamp', no: 9, type: 'time', ptr: true },
      { json: 'deletionGracePeriodSeconds', no: 10, type: 'int64', ptr: true },
      s('labels', 11, { map: true }),
      s('annotations', 12, { map: true }),
      m('ownerReferences', 13, 'OwnerReference', { repeated: true }),
      s('finalizers', 14, { repeated: true }),
      m('managedFields', 17, 'ManagedFieldsEntry', { repeated: true }),
    ],
  },
  {
    name: 'ListMeta',
    fields: [
      s('selfLink', 1),
      s('resourceVersion', 2),
      s('continue', 3),
      { json: 'remainingItemCount', no: 4, type: 'int64', ptr: true },
    ],
  },
  { name: 'StatusCause', fields: [s('reason', 1), s('message', 2), s('field', 3)] },
  {
    name: 'StatusDetails',
    fields: [
      s('name', 1),
      s('group', 2),
      s('kind', 3),
      m('causes', 4, 'StatusCause', { repeated: true }),
      { json: 'retryAfterSeconds', no: 5, type: 'int32' },
      s('uid', 6),
    ],
  },
  {
    name: 'Status',
    fields: [
      { json: 'metadata', no: 1, type: { msg: 'ListMeta' }, keep: true },
      s('status', 2),
      s('message', 3),
      s('reason', 4),
      m('details', 5, 'StatusDetails', { ptr: true }),
      { json: 'code', no: 6, type: 'int32' },
    ],
  },
  { name: 'Preconditions', fields: [s('uid', 1, { ptr: true }), s('resourceVersion', 2, { ptr: true })] },
  {
    name: 'DeleteOptions',
    fields: [
      { json: 'gracePeriodSeconds', no: 1, type: 'int64', ptr: true },
      m('preconditions', 2, 'Preconditions', { ptr: true }),
      { json: 'orphanDependents', no: 3, type: 'bool', ptr: true },
      s('propagationPolicy', 4, { ptr: true }),
      s('dryRun', 5, { repeated: true }),
    ],
  },

  // ---------------------------------------------------------------- core/v1
  {
    name: 'ObjectReference',
    fields: [
      s('kind', 1),
      s('namespace', 2),
      s('name', 3),
      s('uid', 4),
      s('apiVersion', 5),
      s('resourceVersion', 6),
      s('fieldPath', 7),
    ],
  },
  { name: 'LocalObjectReference', fields: [s('name', 1)] },
  {
    name: 'ConfigMap',
    fields: [
      metadata,
      s('data', 2, { map: true }),
      { json: 'binaryData', no: 3, type: 'bytes', map: true },
      { json: 'immutable', no: 4, type: 'bool', ptr: true },
    ],
  },
  listOf('ConfigMapList', 'ConfigMap'),
  {
    name: 'Secret',
    fields: [
      metadata,
      { json: 'data', no: 2, type: 'bytes', map: true },
      s('type', 3),
      s('stringData', 4, { map: true }),
      { json: 'immutable', no: 5, type: 'bool', ptr: true },
    ],
  },
  listOf('SecretList', 'Secret'),
  { name: 'NamespaceSpec', fields: [s('finalizers', 1, { repeated: true })] },
  {
    name: 'NamespaceCondition',
    fields: [
      s('type', 1),
      s('status', 2),
      { json: 'lastTransitionTime', no: 4, type: 'time' },
      s('reason', 5),
      s('message', 6),
    ],
  },
  {
    name: 'NamespaceStatus',
    fields: [s('phase', 1), m('conditions', 2, 'NamespaceCondition', { repeated: true })],
  },
  {
    name: 'Namespace',
    fields: [metadata, m('spec', 2, 'NamespaceSpec'), m('status', 3, 'NamespaceStatus')],
  },
  listOf('NamespaceList', 'Namespace'),
  {
    name: 'ServiceAccount',
    fields: [
      metadata,
      m('secrets', 2, 'ObjectReference', { repeated: true }),
      m('imagePullSecrets', 3, 'LocalObjectReference', { repeated: true }),
      { json: 'automountServiceAccountToken', no: 4, type: 'bool', ptr: true },
    ],
  },
  listOf('ServiceAccountList', 'ServiceAccount'),
  { name: 'EventSource', fields: [s('component', 1), s('host', 2)] },
  {
    name: 'EventSeries',
    fields: [
      { json: 'count', no: 1, type: 'int32', keep: true },
      { json: 'lastObservedTime', no: 2, type: 'microtime' },
    ],
  },
  {
    name: 'Event',
    fields: [
      metadata,
      m('involvedObject', 2, 'ObjectReference'),
      s('reason', 3),
      s('message', 4),
      m('source', 5, 'EventSource'),
      { json: 'firstTimestamp', no: 6, type: 'time' },
      { json: 'lastTimestamp', no: 7, type: 'time' },
      { json: 'count', no: 8, type: 'int32' },
      s('type', 9),
      { json: 'eventTime', no: 10, type: 'microtime' },
      m('series', 11, 'EventSeries', { ptr: true }),
      s('action', 12),
      m('related', 13, 'ObjectReference', { ptr: true }),
      s('reportingComponent', 14),
      s('reportingInstance', 15),
    ],
  },
  listOf('EventList', 'Event'),

  // ---------------------------------------------------------------- events/v1
  {
    name: 'events.Event',
    fields: [
      metadata,
      { json: 'eventTime', no: 2, type: 'microtime' },
      m('series', 3, 'EventSeries', { ptr: true }),
      s('reportingController', 4),
      s('reportingInstance', 5),
      s('action', 6),
      s('reason', 7),
      m('regarding', 8, 'ObjectReference'),
      m('related', 9, 'ObjectReference', { ptr: true }),
      s('note', 10),
      s('type', 11),
      m('deprecatedSource', 12, 'EventSource'),
      { json: 'deprecatedFirstTimestamp', no: 13, type: 'time' },
      { json: 'deprecatedLastTimestamp', no: 14, type: 'time' },
      { json: 'deprecatedCount', no: 15, type: 'int32' },
    ],
  },
  listOf('events.EventList', 'events.Event'),

  // ---------------------------------------------------------------- coordination/v1
  {
    name: 'LeaseSpec',
    fields: [
      s('holderIdentity', 1, { ptr: true }),
      { json: 'leaseDurationSeconds', no: 2, type: 'int32', ptr: true },
      { json: 'acquireTime', no: 3, type: 'microtime', ptr: true },
      { json: 'renewTime', no: 4, type: 'microtime', ptr: true },
      { json: 'leaseTransitions', no: 5, type: 'int32', ptr: true },
    ],
  },
  { name: 'Lease', fields: [metadata, m('spec', 2, 'LeaseSpec')] },
  listOf('LeaseList', 'Lease'),
];

/** `<apiVersion>/<kind>` -> message, for every kind with a Protobuf encoding. */
export const KIND_MESSAGES: Record<string, string> = {
  'v1/Status': 'Status',
  'v1/Namespace': 'Namespace',
  'v1/NamespaceList': 'NamespaceList',
  'v1/ConfigMap': 'ConfigMap',
  'v1/ConfigMapList': 'ConfigMapList',
  'v1/Secret': 'Secret',
  'v1/SecretList': 'SecretList',
  'v1/ServiceAccount': 'ServiceAccount',
  'v1/ServiceAccountList': 'ServiceAccountList',
  'v1/Event': 'Event',
  'v1/EventList': 'EventList',
  'events.orch.io/v1/Event': 'events.Event',
  'events.orch.io/v1/EventList': 'events.EventList',
  'coordination.orch.io/v1/Lease': 'Lease',
  'coordination.orch.io/v1/LeaseList': 'LeaseList',
};
