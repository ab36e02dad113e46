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

/** Follows resource `group/plural` (undefined when the server does not have it). */
export function inform(
  registry: Registry,
  group: string,
  plural: string,
  handler: InformerHandler,
): Informer | undefined {
  const served = registry.byResource(group, plural);
  if (!served) return undefined;
  const storage = registry.storage;
  const bucket = served.store.bucket;
  const cache = new Map<string, KObject>();
  const safe = (ev: InformerEvent) => {
    try {
      handler(ev);
    } catch (e) {
      console.error(`controller: handling a change of ${plural} failed:`, e);
    }
  };
  const rv = storage.revision();
  const found = storage.list(bucket, `${bucket}/`, rv);
  for (const s of found) cache.set(keyOf(s.obj), s.obj);
  const cancel = storage.watch(bucket, rv, (ev) => {
    const k = keyOf(ev.obj);
    if (ev.type === 'DELETED') cache.delete(k);
    else cache.set(k, ev.obj);
    safe({ type: ev.type, obj: ev.obj, prev: ev.prev });
  });
  for (const s of found) safe({ type: 'ADDED', obj: s.obj });
  return {
    cache,
    stop: cancel,
  };
}
