// The generic store: every verb of every kind, on top of the storage layer, with the
// kind's strategy for what differs. Resource-version semantics (doc1's three tables),
// chunked lists, watch filtering and two-phase deletion live in a file per verb
// (store-list.ts, store-watch.ts, store-create.ts, store-update.ts, store-delete.ts); what
// they share is StoreCore (store-core.ts).
import { errors } from '../errors/status.ts';
import type { KObject } from '../storage/types.ts';
import { parseRv } from './list-options.ts';
import { StoreCore } from './store-core.ts';
import { createObject } from './store-create.ts';
import { deleteCollection, deleteObject } from './store-delete.ts';
import { listObjects } from './store-list.ts';
import type {
  AppliedOwnership,
  DeleteParams,
  ListParams,
  ListResult,
  WatchParams,
  WatchSink,
} from './store-types.ts';
import { type UpdateOptions, updateObject } from './store-update.ts';
import { startWatch } from './store-watch.ts';
import type { RequestContext } from './types.ts';

export {
  type Continue,
  decodeContinue,
  encodeContinue,
  parseRv,
  validateListOptions,
} from './list-options.ts';
export type {
  AppliedOwnership,
  DeleteParams,
  ListParams,
  ListResult,
  Namespaces,
  StoreOptions,
  WatchParams,
  WatchSink,
} from './store-types.ts';

export class GenericStore extends StoreCore {
  async get(namespace: string, name: string, resourceVersion?: string): Promise<KObject> {
    // get: unset = Most Recent; 0 = Any; other = Not older than. One store: the first two
    // are the current state; the third waits for the version when it is not reached yet.
    if (resourceVersion !== undefined && resourceVersion !== '') {
      const n = parseRv(resourceVersion);
      if (n !== 0) await this.waitForRv(n);
    }
    const live = this.def.strategy.live;
    const o = live ? await live.get(name) : this.storage.get(this.key(namespace, name))?.obj;
    if (!o) throw errors.notFound(this.def.group, this.def.plural, name);
    return o;
  }

  /** store-list.ts */
  list(namespace: string, p: ListParams): Promise<ListResult> {
    return listObjects(this, namespace, p);
  }

  /** store-watch.ts; returns the cancel function. */
  watch(namespace: string, p: WatchParams, sink: WatchSink): () => void {
    return startWatch(this, namespace, p, sink);
  }

  /** store-create.ts */
  create(
    namespace: string,
    obj: KObject,
    ctx: RequestContext,
    version: string,
    opts: { applied?: AppliedOwnership } = {},
  ): Promise<KObject> {
    return createObject(this, namespace, obj, ctx, version, opts);
  }

  /**
   * Replaces an object (PUT, and the last step of PATCH). `subresource` is '' or 'status'.
   * Returns the object and whether it was created (store-update.ts).
   */
  update(
    namespace: string,
    name: string,
    obj: KObject,
    ctx: RequestContext,
    version: string,
    subresource = '',
    opts: UpdateOptions = {},
  ): Promise<{ obj: KObject; created: boolean }> {
    return updateObject(this, namespace, name, obj, ctx, version, subresource, opts);
  }

  /**
   * Deletes one object. Returns the object (still present while finalizers remain) and
   * whether it is gone from storage (store-delete.ts).
   */
  delete(
    namespace: string,
    name: string,
    p: DeleteParams,
    ctx: RequestContext,
    version: string,
  ): Promise<{ obj: KObject; deleted: boolean }> {
    return deleteObject(this, namespace, name, p, ctx, version);
  }

  deleteCollection(
    namespace: string,
    lp: ListParams,
    p: DeleteParams,
    ctx: RequestContext,
    version: string,
  ): Promise<KObject[]> {
    return deleteCollection(this, namespace, lp, p, ctx, version);
  }
}
