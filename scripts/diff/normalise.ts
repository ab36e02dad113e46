// What of an answer is compared. Each side's own identifiers are mapped to the order in which
// the side first showed them (uids, object versions, generated names), its namespace and custom
// resource group to fixed words, and times to a placeholder (present or absent is compared).
// A list's own version and continue token are placeholders too: a cluster's other writers move
// the list version, and tokens are opaque. Of an error `Status`, the code, status, reason and
// details (name, group, kind, and each cause's reason and field) are compared, not the free-text
// message. Headers are not compared.
import type { Exchange, OpResult } from './execute.ts';

export interface NormaliseContext {
  namespace: string;
  group: string;
  uids: Map<string, string>;
  versions: Map<string, string>;
  generated: Map<string, string>;
}

export function normaliseContext(namespace: string, group: string): NormaliseContext {
  return { namespace, group, uids: new Map(), versions: new Map(), generated: new Map() };
}

function ordinal(m: Map<string, string>, prefix: string, v: string): string {
  let x = m.get(v);
  if (x === undefined) {
    x = `${prefix}#${m.size + 1}`;
    m.set(v, x);
  }
  return x;
}

function words(c: NormaliseContext, s: string): string {
  return s.split(c.namespace).join('NAMESPACE').split(c.group).join('GROUP');
}

function meta(c: NormaliseContext, m: Record<string, unknown>, isList: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) {
    if (k === 'uid' && typeof v === 'string') out[k] = ordinal(c.uids, 'uid', v);
    else if (k === 'resourceVersion' && typeof v === 'string')
      out[k] = isList ? '<list version>' : ordinal(c.versions, 'version', v);
    else if (k === 'continue' && typeof v === 'string') out[k] = v ? '<continue>' : '';
    else if ((k === 'creationTimestamp' || k === 'deletionTimestamp') && v) out[k] = '<time>';
    else if (
      k === 'name' &&
      typeof v === 'string' &&
      typeof m.generateName === 'string' &&
      v !== m.generateName &&
      v.startsWith(m.generateName)
    )
      out[k] = ordinal(c.generated, 'generated', v);
    else if (k === 'managedFields' && Array.isArray(v))
      // Entries are stored sorted by the second of their time (doc2's order, as 1.28 keeps it),
      // so two servers whose writes straddle a second differently order the same entries
      // differently: with the times masked the entries are compared in one order of their own.
      out[k] = v
        .map((e) =>
          e && typeof e === 'object'
            ? value(c, { ...e, ...('time' in e ? { time: '<time>' } : {}) })
            : value(c, e),
        )
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    else out[k] = value(c, v);
  }
  return out;
}

function status(c: NormaliseContext, s: Record<string, any>): Record<string, unknown> {
  const d = s.details ?? {};
  const details: Record<string, unknown> = {};
  for (const k of ['name', 'group', 'kind'] as const)
    if (d[k] !== undefined) details[k] = words(c, String(d[k]));
  if (typeof d.uid === 'string') details.uid = ordinal(c.uids, 'uid', d.uid);
  if (Array.isArray(d.causes))
    details.causes = d.causes
      .map((x: any) => ({
        reason: x?.reason,
        field: x?.field === undefined ? undefined : words(c, String(x.field)),
      }))
      .sort((a: any, b: any) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return {
    kind: 'Status',
    status: s.status,
    code: s.code,
    reason: s.reason,
    ...(Object.keys(details).length ? { details } : {}),
  };
}

/** A JSON value of one side, normalised. */
export function value(c: NormaliseContext, v: unknown): unknown {
  if (typeof v === 'string') return words(c, v);
  if (Array.isArray(v)) return v.map((x) => value(c, x));
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o.kind === 'Status' && typeof o.apiVersion === 'string') return status(c, o);
    const isList = Array.isArray(o.items);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) {
      if (k === 'metadata' && x && typeof x === 'object' && !Array.isArray(x))
        out[k] = meta(c, x as Record<string, unknown>, isList);
      else out[k] = value(c, x);
    }
    return out;
  }
  return v;
}

export interface NormalExchange {
  status: number;
  body?: unknown;
  events?: { type: string; object: unknown }[];
}

export interface NormalResult {
  skipped?: string;
  exchanges: NormalExchange[];
}

function exchange(c: NormaliseContext, x: Exchange): NormalExchange {
  return {
    status: x.status,
    ...(x.body !== undefined ? { body: value(c, x.body) } : {}),
    ...(x.events ? { events: x.events.map((e) => ({ type: e.type, object: value(c, e.object) })) } : {}),
  };
}

/** A side's results of one sequence, normalised in order (the ordinals follow first sight). */
export function normaliseResults(c: NormaliseContext, results: OpResult[]): NormalResult[] {
  return results.map((r) => ({
    ...(r.skipped ? { skipped: r.skipped } : {}),
    exchanges: r.exchanges.map((x) => exchange(c, x)),
  }));
}
