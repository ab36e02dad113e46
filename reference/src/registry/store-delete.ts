// The store's delete verbs: one object (two-phase while finalizers or a grace period remain)
// and a collection.
import { errors, StatusError } from '../errors/status.ts';
import type { KObject } from '../storage/types.ts';
import { clone } from '../util/object.ts';
import { rfc3339 } from '../util/time.ts';
import { checkPreconditions } from './preconditions.ts';
import type { StoreCore } from './store-core.ts';
import { listObjects } from './store-list.ts';
import type { DeleteParams, ListParams } from './store-types.ts';
import type { RequestContext, WriteAdmissionRequest } from './types.ts';

/**
 * Deletes one object. Returns the object (still present while finalizers remain) and
 * whether it is gone from storage.
 */
export async function deleteObject(
  store: StoreCore,
  namespace: string,
  name: string,
  p: DeleteParams,
  ctx: RequestContext,
  version: string,
): Promise<{ obj: KObject; deleted: boolean }> {
  store.warnOnDelete(p, ctx, version);
  const cur = store.storage.get(store.key(namespace, name));
  if (!cur) throw errors.notFound(store.def.group, store.def.plural, name);
  const old = cur.obj;
  checkPreconditions(store.def.group, store.def.plural, name, p.preconditions, old);
  const refused = store.def.strategy.refuseDelete?.(old);
  if (refused) throw refused;
  const w: WriteAdmissionRequest = { operation: 'DELETE', namespace, name, oldObject: old };
  await store.admitMutate(ctx, w);
  await ctx.admission?.validate(w);
  const graceful = !!store.def.strategy.gracefulDelete?.(old);
  // the garbage collector's finalizers follow the request (a repeated delete may still change them)
  const gc = graceful && old.metadata.deletionTimestamp ? undefined : store.gcFinalizers(old, p, version);
  const pending = ((gc ?? old.metadata.finalizers)?.length ?? 0) > 0 || graceful;
  if (pending) {
    if (old.metadata.deletionTimestamp && !gc) return { obj: old, deleted: false };
    const marked = clone(old);
    if (gc) marked.metadata.finalizers = gc;
    if (!old.metadata.deletionTimestamp) {
      // Kubernetes' markAsDeleting: a kind that tracks generation counts the deletion as a change
      if (marked.metadata.generation) marked.metadata.generation++;
      marked.metadata.deletionTimestamp = rfc3339(store.now());
    }
    marked.metadata.deletionGracePeriodSeconds = 0;
    store.def.strategy.prepareForDelete?.(marked);
    if (ctx.dryRun) return { obj: marked, deleted: false };
    try {
      const u = await store.storage.update(store.bucket, cur.key, marked, cur.rv);
      store.def.strategy.onDeleteRequested?.(u.obj);
      return { obj: u.obj, deleted: false };
    } catch (e) {
      throw store.mapStorageError(e, name);
    }
  }
  if (ctx.dryRun) return { obj: old, deleted: true };
  try {
    const d = await store.storage.delete(store.bucket, cur.key, cur.rv);
    store.def.strategy.afterDelete?.(d.obj);
    return { obj: d.obj, deleted: true };
  } catch (e) {
    throw store.mapStorageError(e, name);
  }
}

/** Deletes the objects the selectors select (those the kind refuses to delete stay); returns them. */
export async function deleteCollection(
  store: StoreCore,
  namespace: string,
  lp: ListParams,
  p: DeleteParams,
  ctx: RequestContext,
  version: string,
): Promise<KObject[]> {
  store.warnOnDelete(p, ctx, version);
  const { items } = await listObjects(store, namespace, {
    labelSelector: lp.labelSelector,
    fieldSelector: lp.fieldSelector,
  });
  const out: KObject[] = [];
  for (const it of items) {
    // objects that may not be deleted (the system priority classes) stay
    if (store.def.strategy.refuseDelete?.(it)) continue;
    try {
      const r = await deleteObject(store, it.metadata.namespace ?? '', it.metadata.name!, p, ctx, version);
      out.push(r.obj);
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) continue;
      throw e;
    }
  }
  return out;
}
