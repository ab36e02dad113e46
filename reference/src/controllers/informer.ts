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

export const keyOf = (o: KObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/**
 * One watch and one cache a resource, shared by every controller that follows it (as
 * Kubernetes' shared informers are): a change is keyed and cached once, then handed to each
 * handler in the order they came.
 */
interface Shared {
  cache: Map<string, KObject>;
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
  const served = registry.byResource(group, plural);
  if (!served) return undefined;
  const byBucket = shared.get(registry) ?? new Map<string, Shared>();
  shared.set(registry, byBucket);
  const bucket = served.store.bucket;
  let s = byBucket.get(bucket);
  if (!s) s = follow(registry, bucket, byBucket);
  const safe = (ev: InformerEvent) => {
    try {
      handler(ev);
    } catch (e) {
      console.error(`controller: handling a change of ${plural} failed:`, e);
    }
  };
  const found = [...s.cache.values()];
  s.handlers = [...s.handlers, safe];
  for (const obj of found) safe({ type: 'ADDED', obj });
  const own = s;
  return {
    cache: own.cache,
    stop: () => {
      own.handlers = own.handlers.filter((h) => h !== safe);
      if (own.handlers.length > 0) return;
      own.cancel();
      if (byBucket.get(bucket) === own) byBucket.delete(bucket);
    },
  };
}

/** The store's objects of a bucket now, then every change from this revision on. */
function follow(registry: Registry, bucket: string, byBucket: Map<string, Shared>): Shared {
  const storage = registry.storage;
  const cache = new Map<string, KObject>();
  const rv = storage.revision();
  for (const o of storage.list(bucket, `${bucket}/`, rv)) cache.set(keyOf(o.obj), o.obj);
  const s: Shared = { cache, handlers: [], cancel: () => {} };
  s.cancel = storage.watch(bucket, rv, (ev) => {
    const k = keyOf(ev.obj);
    if (ev.type === 'DELETED') cache.delete(k);
    else cache.set(k, ev.obj);
    const e: InformerEvent = { type: ev.type, obj: ev.obj, prev: ev.prev };
    for (const h of s.handlers) h(e);
  });
  byBucket.set(bucket, s);
  return s;
}
