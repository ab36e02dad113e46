// What the watch cases share: a room (a fresh namespace with a model of the ConfigMaps written
// in it), watch readers that fail with Expected/Actual, and event summaries. Expected events
// come from the writes the case made (the model), never from another answer of the server.
// A stream is compared as the events of the room's own objects: what a live cluster's
// controllers write into the namespace (the root-CA publisher's ConfigMap) is left out.
import { randomBytes } from 'node:crypto';
import { check, checkStatus, deepEqual, show } from '../../harness/src/assert.ts';
import type { Client, RequestOptions, Response } from '../../harness/src/client.ts';
import { configMap, dropNamespace, paths } from '../../harness/src/fixtures.ts';
import { OwnObjects } from '../../harness/src/own-objects.ts';
import { type WatchEvent, WatchStream } from '../../harness/src/watch.ts';

export type Data = Record<string, string>;
export type Labels = Record<string, string>;

/** An object as the model knows it after the room's last write to it. */
export interface Live {
  data: Data;
  rv: string;
  uid: string;
  labels?: Labels;
}

/** The event a watcher must see for one write. */
export interface Expected {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  data: Data;
  /** The resourceVersion the write returned (unknown for a delete answered with a Status). */
  rv?: string;
  /** The write changed nothing (same version): no event is due. */
  noop?: boolean;
}

export type PatchKind = 'merge' | 'json' | 'strategic';

const PATCH_TYPES: Record<PatchKind, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** The event types doc1 names; a deletion (type name not shown) is any other but ERROR. */
const NAMED = new Set(['ADDED', 'MODIFIED', 'BOOKMARK']);

export class Room {
  /** The model: ConfigMap name -> what the last write made of it. */
  readonly objects = new Map<string, Live>();
  /** Every write of the room, as the event it must produce. */
  readonly log: Expected[] = [];
  private readonly streams: WatchStream[] = [];
  /** The names the room writes: its own objects. */
  readonly own: OwnObjects;

  private constructor(
    readonly client: Client,
    readonly ns: string,
  ) {
    this.own = new OwnObjects(ns);
  }

  static async open(client: Client, prefix = 'watch'): Promise<Room> {
    const ns = `${prefix}-${randomBytes(5).toString('hex')}`;
    const r = await client.post(paths.namespaces(), {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
    checkStatus(r, 201, undefined, `setup: create namespace ${ns}`);
    return new Room(client, ns);
  }

  async close(): Promise<void> {
    for (const s of this.streams) s.close();
    await dropNamespace(this.client, this.ns);
  }

  get path(): string {
    return paths.configmaps(this.ns);
  }

  one(name: string): string {
    return paths.configmap(this.ns, name);
  }

  /** Opens a watch (closed with the room); query values as in RequestOptions. */
  async watch(query: RequestOptions['query'] = {}, path = this.path): Promise<WatchStream> {
    const s = await WatchStream.open(this.client, { path, query });
    this.streams.push(s);
    return s;
  }

  /** A watch that must be accepted: 200, else the case fails with the answer. */
  async watchOk(
    query: RequestOptions['query'] = {},
    path = this.path,
    why = 'the watch is accepted',
  ): Promise<WatchStream> {
    const s = await this.watch(query, path);
    if (s.status !== 200) {
      await s.waitEnd(5_000).catch(() => {});
      check(false, 'HTTP 200 and a stream of events', `HTTP ${s.status} ${show(s.events[0])}`, why);
    }
    return s;
  }

  private record(type: Expected['type'], name: string, r: Response): Expected {
    const m = r.json?.metadata ?? {};
    const data: Data = { ...(r.json?.data ?? {}) };
    const before = this.objects.get(name);
    this.objects.set(name, { data, rv: String(m.resourceVersion), uid: String(m.uid), labels: m.labels });
    const e: Expected = { type, name, data, rv: String(m.resourceVersion) };
    // an update that changed nothing keeps the version (Kubernetes writes nothing): no event
    if (type === 'MODIFIED' && before?.rv === e.rv) return { ...e, noop: true };
    this.log.push(e);
    return e;
  }

  async create(name: string, data: Data = {}, labels?: Labels): Promise<Expected> {
    this.own.add(name);
    const r = await this.client.post(this.path, configMap(name, data, labels));
    checkStatus(r, 201, undefined, `setup: create ConfigMap ${name}`);
    return this.record('ADDED', name, r);
  }

  /** PUT of the whole object with the resourceVersion the model holds. */
  async update(name: string, data: Data, labels?: Labels): Promise<Expected> {
    const cur = this.live(name);
    const body = configMap(name, data, labels);
    const r = await this.client.put(this.one(name), {
      ...body,
      metadata: { ...body.metadata, resourceVersion: cur.rv },
    });
    checkStatus(r, 200, undefined, `setup: update (PUT) ConfigMap ${name}`);
    return this.record('MODIFIED', name, r);
  }

  /** Replaces the data with a PATCH of the given kind. */
  async patch(name: string, data: Data, kind: PatchKind = 'merge'): Promise<Expected> {
    const cur = this.live(name);
    let body: unknown;
    if (kind === 'json') body = [{ op: 'add', path: '/data', value: data }];
    else {
      const d: Record<string, string | null> = { ...data };
      for (const k of Object.keys(cur.data)) if (!(k in data)) d[k] = null;
      body = { data: d };
    }
    const r = await this.client.patch(this.one(name), body, PATCH_TYPES[kind]);
    checkStatus(r, 200, undefined, `setup: ${kind} PATCH of ConfigMap ${name}`);
    return this.record('MODIFIED', name, r);
  }

  async remove(name: string): Promise<Expected> {
    const cur = this.live(name);
    const r = await this.client.delete(this.one(name));
    checkStatus(r, [200, 202], undefined, `setup: delete ConfigMap ${name}`);
    this.objects.delete(name);
    const e: Expected = { type: 'DELETED', name, data: cur.data };
    this.log.push(e);
    return e;
  }

  /** Creates a fresh object whose event marks the end of what a case waits for. */
  sentinel(labels?: Labels): Promise<Expected> {
    return this.create(`zz-end-${randomBytes(3).toString('hex')}`, { end: 'true' }, labels);
  }

  live(name: string): Live {
    const cur = this.objects.get(name);
    if (!cur) throw new Error(`the case's model has no ConfigMap ${name}`);
    return cur;
  }

  /** The events of the room's own objects, in order (and those naming none: BOOKMARK, ERROR). */
  mine(events: WatchEvent[]): WatchEvent[] {
    return this.own.events(events);
  }

  /** The model's state: name -> data. */
  state(): Map<string, Data> {
    return new Map([...this.objects].map(([k, v]) => [k, v.data]));
  }
}

export async function withRoom<T>(
  client: Client,
  fn: (room: Room) => Promise<T>,
  prefix = 'watch',
): Promise<T> {
  const room = await Room.open(client, prefix);
  try {
    return await fn(room);
  } finally {
    await room.close();
  }
}

export const nameOf = (e: WatchEvent): string | undefined => e.object?.metadata?.name;
export const rvOf = (e: WatchEvent): string | undefined => e.object?.metadata?.resourceVersion;
export const isBookmark = (e: WatchEvent) => e.type === 'BOOKMARK';
/**
 * How long a watch-list stream may take to its BOOKMARK. doc1 sets no bound ("sent once state
 * is at least as new as the read started"); kube-apiserver 1.28's watch cache of a resource
 * reaches the version of the read with the next change it sees of that resource, which on a
 * busy machine took longer than the usual 8 s.
 */
export const INITIAL_EVENTS_BOOKMARK_MS = 20_000;
export const isError = (e: WatchEvent) => e.type === 'ERROR';
/** A deletion event for the MUST-level laws: doc1 does not name its type, so any type but the named ones and ERROR. */
export const isDeletionType = (t: string) => !NAMED.has(t) && t !== 'ERROR';

/** One line per event, for failure messages. */
export function line(e: WatchEvent | Expected): string {
  const o = (e as WatchEvent).object;
  if (o !== undefined) {
    const name = o?.metadata?.name ?? o?.kind ?? '?';
    return `${e.type} ${name} ${JSON.stringify(o?.data ?? (e.type === 'ERROR' ? { code: o?.code, reason: o?.reason } : {}))} @${o?.metadata?.resourceVersion ?? '-'}`;
  }
  const x = e as Expected;
  return `${x.type} ${x.name} ${JSON.stringify(x.data)} @${x.rv ?? '(any)'}`;
}

export function lines(es: (WatchEvent | Expected)[]): string {
  return es.length ? `[${es.map(line).join(', ')}]` : '[] (no events)';
}

/**
 * Reads events (BOOKMARKs included) until one satisfies `pred`; returns all of them, the
 * matching one last. A stream that ends, breaks or falls silent fails the case.
 */
export async function readUntil(
  s: WatchStream,
  /** Whether to stop at this event, given all events read so far (this one included). */
  pred: (e: WatchEvent, read: WatchEvent[]) => boolean,
  what: string,
  timeoutMs = 8_000,
): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let e: WatchEvent;
    try {
      e = await s.next(Math.max(1, deadline - Date.now()));
    } catch (err) {
      check(false, what, `${(err as Error).message}; events read: ${lines(out)}`);
    }
    out.push(e);
    if (pred(e, out)) return out;
  }
}

/**
 * Reads until `pred` holds for the events read so far, or the stream ends, or `ms` pass; never
 * fails (the caller judges what it got).
 */
export async function readUntilOrEnd(
  s: WatchStream,
  pred: (read: WatchEvent[]) => boolean,
  ms: number,
): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const deadline = Date.now() + ms;
  while (!pred(out) && Date.now() < deadline) {
    try {
      out.push(await s.next(Math.max(1, deadline - Date.now())));
    } catch {
      return out;
    }
  }
  return out;
}

/** Reads until the change event of the named object (the case's sentinel). */
export function readUntilObject(s: WatchStream, name: string, timeoutMs = 8_000): Promise<WatchEvent[]> {
  return readUntil(
    s,
    (e) => !isBookmark(e) && nameOf(e) === name,
    `the events up to the one for ${name}, in a stream that stays open`,
    timeoutMs,
  );
}

/**
 * Reads until the event of a write (same name and data; a case gives its last write data no
 * other write of that name had), so a wrong version or type is reported by checkEvents.
 */
export function readUntilWrite(s: WatchStream, last: Expected, timeoutMs = 8_000): Promise<WatchEvent[]> {
  return readUntil(
    s,
    (e) => !isBookmark(e) && nameOf(e) === last.name && deepEqual({ ...(e.object?.data ?? {}) }, last.data),
    `the events up to ${line(last)}, in a stream that stays open`,
    timeoutMs,
  );
}

/** Reads events for `ms` (a stream that ends or breaks fails the case unless allowEnd). */
export async function readFor(s: WatchStream, ms: number, allowEnd = false): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return out;
    try {
      out.push(await s.next(left));
    } catch (err) {
      if (s.ended && !s.error && allowEnd) return out;
      if (/no watch event within/.test((err as Error).message)) return out;
      check(
        false,
        `a stream that stays open for ${ms} ms`,
        `${(err as Error).message}; events read: ${lines(out)}`,
      );
    }
  }
}

interface Summary {
  type: string;
  name: string | undefined;
  data: Data;
  rv?: string;
}

function summarize(e: WatchEvent, lenientDelete: boolean): Summary {
  const type = lenientDelete && isDeletionType(e.type) ? 'DELETED' : e.type;
  const s: Summary = { type, name: nameOf(e), data: { ...(e.object?.data ?? {}) } };
  return s;
}

/**
 * The change events (BOOKMARKs left out) are exactly the expected ones, in order: same type,
 * name and data, and the resourceVersion each write returned. With lenientDelete a deletion
 * may carry any type doc1 does not name (its name is "not shown") and its content is not
 * compared (doc1 does not say what a deletion event holds).
 */
export function checkEvents(
  actual: WatchEvent[],
  expected: Expected[],
  why: string,
  o: { lenientDelete?: boolean } = {},
): void {
  const changes = actual.filter((e) => !isBookmark(e));
  // what doc1 leaves open for a deletion (type name, content) is not compared when lenient
  const loose = (type: string) => !!o.lenientDelete && type === 'DELETED';
  const a = changes.map((e, i) => {
    const s = summarize(e, !!o.lenientDelete);
    const want = expected[i];
    // compare versions only where the write told us one
    if (want?.rv !== undefined) s.rv = rvOf(e);
    if (loose(s.type)) s.data = {};
    return s;
  });
  const b = expected.map((x) => ({
    type: x.type,
    name: x.name,
    data: loose(x.type) ? {} : x.data,
    ...(x.rv !== undefined ? { rv: x.rv } : {}),
  }));
  check(deepEqual(a, b), lines(expected), lines(changes), why);
}

/** Fields that carry nothing (null, empty object or array) count as absent. */
export function meaningfulKeys(o: unknown): string[] {
  if (!o || typeof o !== 'object') return [];
  return Object.entries(o as Record<string, unknown>)
    .filter(([, v]) => !isEmpty(v))
    .map(([k]) => k);
}

function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v as object).every(isEmpty);
  return false;
}

/**
 * doc1: "For BOOKMARK the object has the requested kind and apiVersion and only
 * metadata.resourceVersion". Kubernetes also writes empty fields (creationTimestamp: null);
 * those carry nothing and are not counted. `extraMeta` names metadata keys a case allows
 * besides resourceVersion (the initial-events-end annotation).
 */
export function checkBookmarkShape(
  e: WatchEvent,
  kind: string,
  apiVersion: string,
  extraMeta: string[] = [],
): void {
  const o = e.object ?? {};
  const why = 'a BOOKMARK object has the requested kind and apiVersion and only metadata.resourceVersion';
  check(
    o.kind === kind && o.apiVersion === apiVersion,
    `kind ${kind}, apiVersion ${apiVersion}`,
    show(o),
    why,
  );
  const top = meaningfulKeys(o).filter((k) => k !== 'kind' && k !== 'apiVersion' && k !== 'metadata');
  check(top.length === 0, 'no fields but kind, apiVersion and metadata', show(o), why);
  const rv = o.metadata?.resourceVersion;
  check(typeof rv === 'string' && rv !== '', 'a non-empty metadata.resourceVersion', show(o), why);
  const meta = meaningfulKeys(o.metadata).filter((k) => k !== 'resourceVersion' && !extraMeta.includes(k));
  check(meta.length === 0, 'metadata with only resourceVersion', show(o), why);
}

/** The 410 of a watch: the HTTP status, or a Status with code 410 in the stream. */
export async function readGone(
  s: WatchStream,
): Promise<{ form: 'http' | 'event'; before: WatchEvent[]; status: any; event?: WatchEvent }> {
  if (s.status !== 200) {
    await s.waitEnd(5_000).catch(() => {});
    return { form: 'http', before: [], status: s.events[0] };
  }
  const read = await readUntil(
    s,
    (e) => e.object?.kind === 'Status' || isError(e),
    'a Status with code 410 (Gone) in the stream',
    8_000,
  );
  const ev = read[read.length - 1]!;
  return { form: 'event', before: read.slice(0, -1), status: ev.object, event: ev };
}
