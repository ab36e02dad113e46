// The store's create verb: server-set metadata, admission, validation and the write (a
// generated name is retried on a clash).
import { randomBytes, randomUUID } from 'node:crypto';
import { errors } from '../errors/status.ts';
import { KeyExistsError, type KObject } from '../storage/types.ts';
import { isPromise } from '../util/maybe-async.ts';
import { rfc3339 } from '../util/time.ts';
import type { StoreCore } from './store-core.ts';
import type { AppliedOwnership } from './store-types.ts';
import { apiVersionOf, type RequestContext, type WriteAdmissionRequest } from './types.ts';

export async function createObject(
  store: StoreCore,
  namespace: string,
  obj: KObject,
  ctx: RequestContext,
  version: string,
  opts: { applied?: AppliedOwnership } = {},
): Promise<KObject> {
  const asked = version;
  ({ obj, version } = store.toStorage(obj, version));
  const m = (obj.metadata ??= {});
  if (store.def.namespaced) {
    if (m.namespace && namespace && m.namespace !== namespace)
      throw errors.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    m.namespace = namespace || m.namespace;
  } else if (m.namespace) {
    delete m.namespace;
  }
  if (m.resourceVersion)
    throw errors.badRequest('resourceVersion should not be set on objects to be created');
  const ns = m.namespace ?? '';
  // a missing namespace is looked for again after the mutating admission (NamespaceAutoProvision)
  store.ensureNamespace(ns, true, !!ctx.admission);
  // generateName applies only when no name is given; only a generated name is retried on a clash
  const generated = !m.name && !!m.generateName;
  if (generated) m.name = m.generateName + randomSuffix();
  m.uid = randomUUID();
  m.creationTimestamp = rfc3339(store.now());
  // (a delete of a field that is not there still calls into V8's runtime: looked at first)
  if (m.deletionTimestamp !== undefined) delete m.deletionTimestamp;
  if (m.deletionGracePeriodSeconds !== undefined) delete m.deletionGracePeriodSeconds;
  if (store.def.strategy.tracksGeneration !== false) m.generation = 1;
  else delete m.generation;
  obj.apiVersion = apiVersionOf(store.def.group, version);
  obj.kind = store.def.kind;
  store.def.strategy.prepareForCreate?.(obj, ctx);
  const w: WriteAdmissionRequest = { operation: 'CREATE', namespace: ns, name: m.name ?? '', object: obj };
  // admission that answers at once is not awaited (see AdmissionChain)
  const mutated = store.admitMutate(ctx, w);
  obj = (isPromise(mutated) ? await mutated : mutated)!;
  store.ensureNamespace(ns, true);
  store.recordOwnership(obj, ctx, version, '', undefined, opts.applied, asked);
  store.validateAll(obj, ctx);
  const validated = ctx.admission?.validate({ ...w, object: obj });
  if (isPromise(validated)) await validated;
  if (ctx.dryRun) {
    if (store.storage.get(store.key(ns, obj.metadata.name!)))
      throw errors.alreadyExists(store.def.group, store.def.plural, obj.metadata.name!);
    return obj;
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const s = await store.storage.create(store.bucket, store.key(ns, obj.metadata.name!), obj);
      store.def.strategy.afterCreate?.(s.obj);
      return s.obj;
    } catch (e) {
      if (e instanceof KeyExistsError) {
        if (generated && attempt < 5) {
          obj.metadata.name = m.generateName + randomSuffix();
          continue;
        }
        throw errors.alreadyExists(store.def.group, store.def.plural, obj.metadata.name!);
      }
      throw e;
    }
  }
}

function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  const b = randomBytes(5);
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[b[i]! % alphabet.length];
  return s;
}
