// What a controller sees of one resource: its objects as stored when the controller starts,
// then every change from that revision on (the store's own watch, as Kubernetes' informers
// list and watch through the API). The handler runs synchronously inside the store's commit:
// it only queues work, and nothing it throws reaches the writer.
import type { Registry } from '../registry/registry.ts';
import type { EventType, KObject } from '../storage/types.ts';

export interface InformerEvent {
  /** `ADDED` for the objects found at the start too. */
  type: EventType;
  obj: KObject;
  /** The object before the change (MODIFIED, DELETED). */
  prev?: KObject;
}

export type InformerHandler = (ev: InformerEvent) => void;

export interface Informer {
  /** The objects found at the start, then kept up to date: by `namespace/name` (`/name` cluster-wide). */
  readonly cache: Map<string, KObject>;
  stop(): void;
}

/** An informer for a controller that reads single objects only: no cache kept for it. */
export interface Follower {
  /** The object as stored now (`namespace` '' cluster-wide). */
  get(namespace: string, name: string): KObject | undefined;
  stop(): void;
}

export const keyOf = (o: KObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/**
 * One watch and one cache a resource, shared by every controller that follows it (as
 * Kubernetes' shared informers are): a change is keyed and cached once, then handed to each
 * handler in the order they came.
 */
interface Shared {
  /** Made once a handler asks for one, not before (a cache of every ConfigMap costs each write). */
  cache?: Map<string, KObject>;
  /** Replaced, never changed, when a handler comes or goes (a change is handed to those there when it came). */
  handlers: ((ev: InformerEvent) => void)[];
  cancel: () => void;
}

const shared = new WeakMap<Registry, Map<string, Shared>>();

/** Follows resource `group/plural` (undefined when the server does not have it). */
export function inform(
  registry: Registry,
  group: string,
  plural: string,
  handler: InformerHandler,
): Informer | undefined {
  const f = subscribe(registry, group, plural, handler, true);
  return f && { cache: f.shared.cache!, stop: f.stop };
}

/**
 * Follows resource `group/plural` as inform() does, for a controller that reads only the
 * objects it is told of: no cache is kept for it (undefined when the server does not have
 * the resource).
 */
export function follow(
  registry: Registry,
  group: string,
  plural: string,
  handler: InformerHandler,
): Follower | undefined {
  const f = subscribe(registry, group, plural, handler, false);
  if (!f) return undefined;
  const store = f.served.store;
  return { get: (namespace, name) => store.getStored(namespace, name)?.obj, stop: f.stop };
}

function subscribe(
  registry: Registry,
  group: string,
  plural: string,
  handler: InformerHandler,
  cached: boolean,
) {
  const served = registry.byResource(group, plural);
  if (!served) return undefined;
  const byBucket = shared.get(registry) ?? new Map<string, Shared>();
  shared.set(registry, byBucket);
  const bucket = served.store.bucket;
  const s = byBucket.get(bucket) ?? start(registry, bucket, byBucket);
  if (cached) s.cache ??= current(registry, bucket);
  const safe = (ev: InformerEvent) => {
    try {
      handler(ev);
    } catch (e) {
      console.error(`controller: handling a change of ${plural} failed:`, e);
    }
  };
  const found = s.cache ? [...s.cache.values()] : stored(registry, bucket);
  s.handlers = [...s.handlers, safe];
  for (const obj of found) safe({ type: 'ADDED', obj });
  const stop = () => {
    s.handlers = s.handlers.filter((h) => h !== safe);
    if (s.handlers.length > 0) return;
    s.cancel();
    if (byBucket.get(bucket) === s) byBucket.delete(bucket);
  };
  return { shared: s, served, stop };
}

/** The store's objects of a bucket now. */
function stored(registry: Registry, bucket: string): KObject[] {
  return registry.storage.list(bucket, `${bucket}/`).map((o) => o.obj);
}

/** The store's objects of a bucket now, by key. */
function current(registry: Registry, bucket: string): Map<string, KObject> {
  const cache = new Map<string, KObject>();
  for (const obj of stored(registry, bucket)) cache.set(keyOf(obj), obj);
  return cache;
}

/** Every change of a bucket from now on, to the cache (when kept) and each handler. */
function start(registry: Registry, bucket: string, byBucket: Map<string, Shared>): Shared {
  const storage = registry.storage;
  const s: Shared = { handlers: [], cancel: () => {} };
  s.cancel = storage.watch(bucket, storage.revision(), (ev) => {
    const cache = s.cache;
    if (cache) {
      const k = keyOf(ev.obj);
      if (ev.type === 'DELETED') cache.delete(k);
      else cache.set(k, ev.obj);
    }
    const e: InformerEvent = { type: ev.type, obj: ev.obj, prev: ev.prev };
    for (const h of s.handlers) h(e);
  });
  byBucket.set(bucket, s);
  return s;
}
