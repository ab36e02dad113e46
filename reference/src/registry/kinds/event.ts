// Events: core/v1 `events` (involvedObject, source, first/last timestamps, count) and
// `events.orch.io/v1` (regarding, note, eventTime, series; the old fields renamed
// `deprecated*`). One set of objects: events.orch.io events are stored as core events and
// converted field by field (doc2: every persisted object stays reachable through every
// served version), so an event written through either API is read, listed and watched
// through both.
import type { StatusCause } from '../../errors/status.ts';
import { int, obj, str, time } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import type { TableColumn } from '../types.ts';
import {
  Causes,
  immutable,
  microTime,
  type ObjectReference,
  objectReferenceFields,
  qualifiedName,
  since,
} from './common.ts';
import { defineKind, printed } from './define.ts';

const objectReference = obj(objectReferenceFields);
const REASON_MAX = 128;
const ACTION_MAX = 128;
const INSTANCE_MAX = 128;
const NOTE_MAX = 1024;
const TYPES = ['Normal', 'Warning'];

// ------------------------------------------------------------------ core/v1

const coreSchema = objectSchema({
  involvedObject: objectReference,
  reason: str(),
  message: str(),
  source: obj({ component: str(), host: str() }),
  firstTimestamp: time(),
  lastTimestamp: time(),
  count: int(),
  type: str(),
  eventTime: microTime(),
  series: obj({ count: int(), lastObservedTime: microTime() }),
  action: str(),
  related: objectReference,
  reportingComponent: str(),
  reportingInstance: str(),
});

interface CoreEvent {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  type?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  action?: string;
  reportingComponent?: string;
  reportingInstance?: string;
}

/**
 * Namespace agreement and, for events carrying `eventTime`, the fields the newer API requires:
 * an event of either API seen with the core field names, the causes naming `names`' fields.
 */
function validateCommon(
  ns: string,
  e: CoreEvent,
  names: { regarding: string; controller: string; note: string },
): Causes {
  const causes = new Causes();
  const rns = e.involvedObject?.namespace ?? '';
  if (!e.eventTime) {
    if (rns === '' ? ns !== '' && ns !== 'default' : ns !== rns)
      causes.invalid(`${names.regarding}.namespace`, rns, 'does not match event.namespace');
    return causes;
  }
  if (rns === '' && ns !== 'default' && ns !== 'orch-system')
    causes.invalid(`${names.regarding}.namespace`, rns, 'does not match event.namespace');
  if (rns !== '' && ns !== rns)
    causes.invalid(`${names.regarding}.namespace`, rns, 'does not match event.namespace');
  if (!e.reportingComponent) causes.required(names.controller);
  else causes.push(...qualifiedName(names.controller, e.reportingComponent));
  if (!e.reportingInstance) causes.required('reportingInstance');
  else if (e.reportingInstance.length > INSTANCE_MAX)
    causes.invalid('reportingInstance', '', `can have at most ${INSTANCE_MAX} characters`);
  if (!e.action) causes.required('action');
  else if (e.action.length > ACTION_MAX)
    causes.invalid('action', '', `can have at most ${ACTION_MAX} characters`);
  if (!e.reason) causes.required('reason');
  else if (e.reason.length > REASON_MAX)
    causes.invalid('reason', '', `can have at most ${REASON_MAX} characters`);
  if ((e.message ?? '').length > NOTE_MAX)
    causes.invalid(names.note, '', `can have at most ${NOTE_MAX} characters`);
  return causes;
}

function validateCore(o: KObject): StatusCause[] {
  const e = o as unknown as CoreEvent;
  const causes = validateCommon(o.metadata.namespace ?? '', e, {
    regarding: 'involvedObject',
    controller: 'reportingComponent',
    note: 'message',
  });
  if (e.type && !TYPES.includes(e.type) && e.eventTime)
    causes.invalid('type', '', `has invalid value: ${e.type}`);
  return causes;
}

/** Cells of the event table, shared by both APIs once mapped to the core field names. */
function eventColumns(view: (o: KObject) => CoreEvent): TableColumn[] {
  const firstSeen = (e: CoreEvent) => (e.firstTimestamp ? since(e.firstTimestamp) : since(e.eventTime));
  const lastSeen = (e: CoreEvent) => {
    if (e.series) return since(e.series.lastObservedTime);
    return e.lastTimestamp ? since(e.lastTimestamp) : firstSeen(e);
  };
  const count = (e: CoreEvent) => (e.series ? (e.series.count ?? 0) : e.count || 1);
  const target = (e: CoreEvent) => {
    const kind = (e.involvedObject?.kind ?? '').toLowerCase();
    return e.involvedObject?.name ? `${kind}/${e.involvedObject.name}` : kind;
  };
  const source = (e: CoreEvent) => {
    const component = e.source?.component || e.reportingComponent || '';
    const instance = e.source?.host || e.reportingInstance || '';
    return instance ? `${component}, ${instance}` : component;
  };
  return printed('event', {
    'Last Seen': (o) => lastSeen(view(o)),
    Type: (o) => view(o).type ?? '',
    Reason: (o) => view(o).reason ?? '',
    Object: (o) => target(view(o)),
    Subobject: (o) => view(o).involvedObject?.fieldPath ?? '',
    Source: (o) => source(view(o)),
    Message: (o) => (view(o).message ?? '').trim(),
    'First Seen': (o) => firstSeen(view(o)),
    Count: (o) => count(view(o)),
  });
}

export const eventDef = defineKind({
  group: '',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  protobuf: true,
  schema: coreSchema,
  defaultGarbageCollectionPolicy: () => 'Unsupported',
  allowCreateOnUpdate: true,
  fieldLabels: {
    ...referenceLabels('involvedObject'),
    reason: (o) => String(o.reason ?? ''),
    reportingComponent: (o) => String(o.reportingComponent ?? ''),
    source: (o) => (o.source as { component?: string } | undefined)?.component ?? '',
    type: (o) => String(o.type ?? ''),
  },
  table: eventColumns((o) => o as unknown as CoreEvent),
  validate: validateCore,
});

// ------------------------------------------------------------------ events.orch.io/v1

const v1Schema = objectSchema({
  eventTime: microTime(),
  series: obj({ count: int(), lastObservedTime: microTime() }),
  reportingController: str(),
  reportingInstance: str(),
  action: str(),
  reason: str(),
  regarding: objectReference,
  related: objectReference,
  note: str(),
  type: str(),
  deprecatedSource: obj({ component: str(), host: str() }),
  deprecatedFirstTimestamp: time(),
  deprecatedLastTimestamp: time(),
  deprecatedCount: int(),
});

interface V1Event {
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource?: { component?: string; host?: string };
  deprecatedFirstTimestamp?: string;
  deprecatedLastTimestamp?: string;
  deprecatedCount?: number;
}

function validateSeries(e: V1Event): StatusCause[] {
  const causes = new Causes();
  if (e.series) {
    if ((e.series.count ?? 0) < 2) causes.invalid('series.count', '', 'should be at least 2');
    if (!e.series.lastObservedTime) causes.required('series.lastObservedTime');
  }
  return causes;
}

function validateV1Base(o: KObject): Causes {
  return validateCommon(o.metadata.namespace ?? '', asCore(o), {
    regarding: 'regarding',
    controller: 'reportingController',
    note: 'note',
  });
}

function validateV1Create(o: KObject): StatusCause[] {
  const e = o as unknown as V1Event;
  const causes = validateV1Base(o);
  causes.push(...validateSeries(e));
  if (!e.eventTime) causes.required('eventTime');
  if (e.type !== 'Normal' && e.type !== 'Warning')
    causes.invalid('type', '', `has invalid value: ${e.type ?? ''}`);
  if (e.deprecatedFirstTimestamp) causes.invalid('deprecatedFirstTimestamp', '', 'needs to be unset');
  if (e.deprecatedLastTimestamp) causes.invalid('deprecatedLastTimestamp', '', 'needs to be unset');
  if (e.deprecatedCount) causes.invalid('deprecatedCount', '', 'needs to be unset');
  if (e.deprecatedSource?.component || e.deprecatedSource?.host)
    causes.invalid('deprecatedSource', '', 'needs to be unset');
  return causes;
}

function validateV1Update(o: KObject, old: KObject): StatusCause[] {
  const e = o as unknown as V1Event;
  const p = old as unknown as V1Event;
  const causes = validateV1Base(o);
  if (JSON.stringify(e.series) !== JSON.stringify(p.series)) causes.push(...validateSeries(e));
  const fields: (keyof V1Event)[] = [
    'regarding',
    'reason',
    'note',
    'deprecatedSource',
    'deprecatedFirstTimestamp',
    'deprecatedLastTimestamp',
    'deprecatedCount',
    'type',
    'eventTime',
    'action',
    'related',
    'reportingController',
    'reportingInstance',
  ];
  for (const f of fields) causes.push(...immutable(f, e[f] ?? null, p[f] ?? null));
  return causes;
}

/** The v1 object seen with the core field names (for the shared table). */
function asCore(o: KObject): CoreEvent {
  const e = o as unknown as V1Event;
  return {
    involvedObject: e.regarding,
    reason: e.reason,
    message: e.note,
    source: e.deprecatedSource,
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    count: e.deprecatedCount,
    type: e.type,
    eventTime: e.eventTime,
    series: e.series,
    action: e.action,
    reportingComponent: e.reportingController,
    reportingInstance: e.reportingInstance,
  };
}

/** events.orch.io/v1 field <- core/v1 field (the rest have the same name in both). */
const RENAMED: [keyof V1Event, keyof CoreEvent][] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
  ['reportingController', 'reportingComponent'],
];
const SAME = ['eventTime', 'series', 'action', 'reason', 'related', 'reportingInstance', 'type'];

function convert(o: KObject, apiVersion: string, pairs: [string, string][]): KObject {
  const src = o as Record<string, unknown>;
  const out: KObject = { apiVersion, kind: 'Event', metadata: o.metadata };
  for (const [to, from] of pairs) if (src[from] !== undefined) out[to] = src[from];
  return out;
}

/** A core/v1 event in the events.orch.io/v1 shape. */
export function coreToV1(o: KObject): KObject {
  return convert(o, 'events.orch.io/v1', [...RENAMED, ...SAME.map((f) => [f, f] as [string, string])]);
}

/** An events.orch.io/v1 event in the core/v1 shape (how it is stored). */
export function v1ToCore(o: KObject): KObject {
  return convert(o, 'v1', [
    ...RENAMED.map(([v1, core]) => [core, v1] as [string, string]),
    ...SAME.map((f) => [f, f] as [string, string]),
  ]);
}

export const eventsV1Def = defineKind({
  group: 'events.orch.io',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  protobuf: true,
  schema: v1Schema,
  storedAs: { group: '', plural: 'events', toStorage: v1ToCore, fromStorage: coreToV1 },
  defaultGarbageCollectionPolicy: () => 'Unsupported',
  allowCreateOnUpdate: true,
  fieldLabels: {
    ...referenceLabels('regarding'),
    reason: (o) => String(o.reason ?? ''),
    reportingController: (o) => String(o.reportingController ?? ''),
    type: (o) => String(o.type ?? ''),
  },
  table: eventColumns(asCore),
  validate: validateV1Create,
  validateUpdate: validateV1Update,
});

/** Field selectors on the fields of an object reference (`<prefix>.kind`, `<prefix>.name`, ...). */
function referenceLabels(prefix: 'involvedObject' | 'regarding'): Record<string, (o: KObject) => string> {
  const out: Record<string, (o: KObject) => string> = {};
  for (const f of Object.keys(objectReferenceFields) as (keyof ObjectReference)[])
    out[`${prefix}.${f}`] = (o) => (o[prefix] as ObjectReference | undefined)?.[f] ?? '';
  return out;
}
