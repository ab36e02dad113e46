// The store's update verb (PUT, and the last step of PATCH): preconditions, server-owned
// metadata, the kind's preparation, admission, validation and the write.
import { errors } from '../errors/status.ts';
import type { KObject, ObjectMeta, StoredObject } from '../storage/types.ts';
import { deepEqual } from '../util/object.ts';
import { parseRv } from './list-options.ts';
import type { StoreCore } from './store-core.ts';
import { createObject } from './store-create.ts';
import type { AppliedOwnership } from './store-types.ts';
import { apiVersionOf, type RequestContext, type WriteAdmissionRequest } from './types.ts';

export interface UpdateOptions {
  forceAllowCreate?: boolean;
  expectRv?: number;
  applied?: AppliedOwnership;
}

/**
 * Replaces an object (PUT, and the last step of PATCH). `subresource` is '' or 'status'.
 * Returns the object and whether it was created.
 */
export async function updateObject(
  store: StoreCore,
  namespace: string,
  name: string,
  obj: KObject,
  ctx: RequestContext,
  version: string,
  subresource: string,
  opts: UpdateOptions,
): Promise<{ obj: KObject; created: boolean }> {
  const asked = version;
  ({ obj, version } = store.toStorage(obj, version));
  const m = (obj.metadata ??= {});
  bindName(store, m, namespace, name);
  const cur = store.storage.get(store.key(namespace, name));
  if (!cur) {
    if (!subresource && (store.def.strategy.allowCreateOnUpdate || opts.forceAllowCreate)) {
      delete m.resourceVersion;
      return {
        obj: await createObject(store, namespace, obj, ctx, version, { applied: opts.applied }),
        created: true,
      };
    }
    throw errors.notFound(store.def.group, store.def.plural, name);
  }
  const old = cur.obj;
  checkUpdatePreconditions(store, m, cur, name, opts);
  carryOverMetadata(m, old.metadata);
  obj.apiVersion = apiVersionOf(store.def.group, version);
  obj.kind = store.def.kind;
  prepareUpdate(store, obj, old, ctx, subresource);
  const w: WriteAdmissionRequest = { operation: 'UPDATE', namespace, name, object: obj, oldObject: old };
  obj = (await store.admitMutate(ctx, w))!;
  store.recordOwnership(obj, ctx, version, subresource, old, opts.applied, asked);
  store.validateAll(obj, ctx, old, subresource);
  await ctx.admission?.validate({ ...w, object: obj });
  // A write that changes nothing is not a write: same object, same resourceVersion.
  if (unchanged(obj, old)) return { obj: old, created: false };
  if (ctx.dryRun)
    return {
      obj: { ...obj, metadata: { ...obj.metadata, resourceVersion: old.metadata.resourceVersion } },
      created: false,
    };
  // Finalization: once the last finalizer is gone from an object being deleted, it is removed.
  if (
    obj.metadata.deletionTimestamp &&
    !obj.metadata.finalizers?.length &&
    !store.def.strategy.gracefulDelete?.(obj)
  ) {
    try {
      await store.storage.update(store.bucket, cur.key, obj, cur.rv);
      const d = await store.storage.delete(store.bucket, cur.key);
      store.def.strategy.afterDelete?.(d.obj);
      return { obj: d.obj, created: false };
    } catch (e) {
      throw store.mapStorageError(e, name);
    }
  }
  try {
    const u = await store.storage.update(store.bucket, cur.key, obj, opts.expectRv ?? cur.rv);
    return { obj: u.obj, created: false };
  } catch (e) {
    throw store.mapStorageError(e, name);
  }
}

/** The object's name and namespace are the URL's (a different one is a 400). */
function bindName(store: StoreCore, m: ObjectMeta, namespace: string, name: string): void {
  if (m.name !== undefined && m.name !== name)
    throw errors.badRequest(
      `the name of the object (${m.name}) does not match the name on the URL (${name})`,
    );
  m.name = name;
  if (store.def.namespaced) {
    if (m.namespace && m.namespace !== namespace)
      throw errors.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    m.namespace = namespace;
  } else delete m.namespace;
}

/** The object's resourceVersion (required unless the kind allows unconditional updates) and uid. */
function checkUpdatePreconditions(
  store: StoreCore,
  m: ObjectMeta,
  cur: StoredObject,
  name: string,
  opts: UpdateOptions,
): void {
  const old = cur.obj;
  if (m.resourceVersion) {
    const want = parseRv(m.resourceVersion);
    if (want !== cur.rv) throw errors.staleUpdate(store.def.group, store.def.plural, name);
  } else if (!store.def.strategy.allowUnconditionalUpdate && opts.expectRv === undefined) {
    throw errors.invalid({ group: store.def.group, kind: store.def.kind }, name, [
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.resourceVersion',
        message: 'Invalid value: 0x0: must be specified for an update',
      },
    ]);
  }
  if (m.uid && m.uid !== old.metadata.uid)
    throw errors.conflict(
      store.def.group,
      store.def.plural,
      name,
      `Precondition failed: UID in precondition: ${m.uid}, UID in object meta: ${old.metadata.uid}`,
    );
}

/** Server-owned metadata is carried over from the stored object. */
function carryOverMetadata(m: ObjectMeta, old: ObjectMeta): void {
  m.uid = old.uid;
  m.creationTimestamp = old.creationTimestamp;
  if (old.deletionTimestamp) {
    m.deletionTimestamp = old.deletionTimestamp;
    if (old.deletionGracePeriodSeconds !== undefined)
      m.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  } else {
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
  }
  if (old.generation !== undefined) m.generation = old.generation;
}

/** The kind's preparation of an update: of the object, of its status, or of another subresource. */
function prepareUpdate(
  store: StoreCore,
  obj: KObject,
  old: KObject,
  ctx: RequestContext,
  subresource: string,
): void {
  const m = obj.metadata;
  const s = store.def.strategy;
  const subPrepare = subresource ? s.prepareForSubresource?.[subresource] : undefined;
  if (subPrepare) {
    subPrepare(obj, old, ctx);
  } else if (subresource === 'status') {
    if (s.prepareForStatusUpdate) s.prepareForStatusUpdate(obj, old, ctx);
    else {
      // only status changes through the status subresource
      const status = obj.status;
      for (const k of Object.keys(obj)) if (k !== 'status' && k !== 'metadata') delete obj[k];
      for (const [k, v] of Object.entries(old)) if (k !== 'status' && k !== 'metadata') obj[k] = v;
      obj.metadata = { ...old.metadata, resourceVersion: m.resourceVersion };
      if (status === undefined) delete obj.status;
      else obj.status = status;
    }
  } else {
    s.prepareForUpdate?.(obj, old, ctx);
    if (s.tracksGeneration !== false && m.generation !== undefined) {
      const specOf = (o: KObject) => {
        const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
        return rest;
      };
      if (!deepEqual(specOf(obj), specOf(old))) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
  }
}

/** Whether an update changes nothing but the resourceVersion it carries. */
function unchanged(obj: KObject, old: KObject): boolean {
  const { resourceVersion: _r1, ...mNew } = obj.metadata;
  const { resourceVersion: _r2, ...mOld } = old.metadata;
  return deepEqual({ ...obj, metadata: mNew }, { ...old, apiVersion: obj.apiVersion, metadata: mOld });
}
