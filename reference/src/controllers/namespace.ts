// The namespace controller (Kubernetes' `namespace`): a namespace marked for deletion has its
// content deleted (a background delete collection of every namespaced resource that can be
// deleted), then loses the `orch` finalizer (through `finalize`) once nothing is left, and
// goes. Meanwhile its status carries 1.28's five deletion conditions: discovery, group version
// parsing and content deletion (False while they work), content remaining and finalizers
// remaining (True with what remains, by resource and by finalizer). As in 1.28, a namespace is
// looked at 5 s after each change of it (so that writes racing with the deletion land first),
// and what remains again after a second (1.28's estimate for content held by finalizers).
import { NAMESPACE_FINALIZER } from '../registry/kinds/namespace.ts';
import type { Served } from '../registry/registry.ts';
import type { KObject } from '../storage/types.ts';
import { rfc3339 } from '../util/time.ts';
import { ControllerClient, type ControllerEnv, isConflict, isNotFound } from './client.ts';
import { inform } from './informer.ts';
import type { Condition } from './replicaset.ts';
import type { Controller } from './types.ts';
import { WorkQueue } from './work-queue.ts';

/** Kubernetes' namespaceDeletionGracePeriod (the default wait). */
const GRACE_MS = 5000;
const REMAINING_RETRY_MS = 1000;

/** The conditions in 1.28's order, with their reason and message when all is well. */
const OK: [type: string, reason: string, message: string][] = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  [
    'NamespaceDeletionGroupVersionParsingFailure',
    'ParsedGroupVersions',
    'All legacy kube types successfully parsed',
  ],
  [
    'NamespaceDeletionContentFailure',
    'ContentDeleted',
    'All content successfully deleted, may be waiting on finalization',
  ],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

interface NamespaceStatus {
  phase?: string;
  conditions?: Condition[];
}

/** Kubernetes' updateConditions: each condition set to its new value, its transition time kept unless its status changes. */
function updateConditions(status: NamespaceStatus, failing: Condition[], now: number): boolean {
  let changed = false;
  const conditions = [...(status.conditions ?? []).map((c) => ({ ...c }))];
  for (const [type, reason, message] of OK) {
    const want = failing.find((c) => c.type === type) ?? { type, status: 'False', reason, message };
    const old = conditions.find((c) => c.type === type);
    if (!old) {
      conditions.push({
        type,
        status: want.status,
        lastTransitionTime: rfc3339(now),
        reason: want.reason,
        message: want.message,
      });
      changed = true;
    } else if (old.status !== want.status || old.reason !== want.reason || old.message !== want.message) {
      if (old.status !== want.status) old.lastTransitionTime = rfc3339(now);
      old.status = want.status;
      old.reason = want.reason;
      old.message = want.message;
      changed = true;
    }
  }
  status.conditions = conditions;
  return changed;
}

/** The controller's state, shared by its parts. */
interface NsState {
  env: ControllerEnv;
  client: ControllerClient;
  queue: WorkQueue;
}

/** `graceMs`: how long after a namespace's deletion it is emptied (other servers and etcd members see the deletion meanwhile). */
export function startNamespaceController(env: ControllerEnv, graceMs = GRACE_MS): Controller {
  const st = { env, client: new ControllerClient(env, 'namespace-controller') } as NsState;
  const queue = new WorkQueue('namespace controller', (name) => sync(st, name));
  st.queue = queue;
  const namespaces = inform(env.registry, '', 'namespaces', (ev) => {
    if (ev.type !== 'DELETED' && ev.obj.metadata.deletionTimestamp)
      queue.addAfter(ev.obj.metadata.name!, graceMs);
  });
  return {
    stop() {
      queue.stop();
      namespaces?.stop();
    },
  };
}

/** The namespaced resources a namespace's deletion empties (as discovery lists them: deletable, stored). */
function contentResources(env: ControllerEnv): Served[] {
  return env.registry
    .all()
    .filter(
      ({ def }) =>
        def.namespaced &&
        def.verbs.includes('delete') &&
        !def.storedAs &&
        !def.strategy.review &&
        !def.strategy.live,
    );
}

/** What a namespace's deletion left: by resource and by finalizer, and the deletions that failed. */
interface Remaining {
  byResource: Map<string, number>;
  byFinalizer: Map<string, number>;
  failures: string[];
}

/** Deletes what it can; what remains, by resource and by finalizer, and the deletions that failed. */
async function deleteContent(st: NsState, ns: string): Promise<Remaining> {
  const byResource = new Map<string, number>();
  const byFinalizer = new Map<string, number>();
  const failures: string[] = [];
  for (const served of contentResources(st.env)) {
    const { def } = served;
    try {
      await st.client.deleteCollection(def.group, def.plural, ns, 'Background');
    } catch (e) {
      if (!isNotFound(e)) failures.push((e as Error).message);
    }
    const left: KObject[] = (await served.store.list(ns, {})).items;
    if (!left.length) continue;
    byResource.set(`${def.plural}.${def.group}`, left.length);
    for (const o of left)
      for (const f of o.metadata.finalizers ?? []) byFinalizer.set(f, (byFinalizer.get(f) ?? 0) + 1);
  }
  return { byResource, byFinalizer, failures };
}

/** The conditions that are not as when all is well: content and finalizers remaining, deletions failed. */
function failingConditions({ byResource, byFinalizer, failures }: Remaining): Condition[] {
  const failing: Condition[] = [];
  const list = (m: Map<string, number>, what: (k: string, n: number) => string) =>
    [...m]
      .map(([k, n]) => what(k, n))
      .sort()
      .join(', ');
  if (byResource.size)
    failing.push({
      type: 'NamespaceContentRemaining',
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: ${list(byResource, (r, n) => `${r} has ${n} resource instances`)}`,
    });
  if (byFinalizer.size)
    failing.push({
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${list(byFinalizer, (f, n) => `${f} in ${n} resource instances`)}`,
    });
  if (failures.length)
    failing.push({
      type: 'NamespaceDeletionContentFailure',
      status: 'True',
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${failures.length} remaining: ${failures.sort().join(', ')}`,
    });
  return failing;
}

/** A namespace being deleted: its content deleted, its conditions written, and once empty its finalizer removed. */
async function sync(st: NsState, name: string): Promise<void> {
  const { client } = st;
  const ns = client.get('', 'namespaces', '', name);
  if (!ns?.metadata.deletionTimestamp) return;
  const finalizers = (ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
  if (!finalizers.includes(NAMESPACE_FINALIZER)) return;
  const remaining = await deleteContent(st, name);
  const { byResource, failures } = remaining;
  const now = st.env.now();
  const failing = failingConditions(remaining);
  const latest = client.get('', 'namespaces', '', name);
  if (!latest) return;
  const status = structuredClone((latest.status ?? {}) as NamespaceStatus);
  if (updateConditions(status, failing, now)) {
    try {
      await client.update('', 'namespaces', { ...latest, status }, 'v1', 'status');
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
  if (failures.length) throw new Error(failing.find((c) => c.reason === 'ContentDeletionFailed')!.message);
  if (byResource.size) {
    st.queue.addAfter(name, REMAINING_RETRY_MS);
    return;
  }
  await finalize(st, name);
}

/** An empty namespace: its own finalizer goes (through `finalize`), and with it the namespace. */
async function finalize(st: NsState, name: string): Promise<void> {
  const cur = st.client.get('', 'namespaces', '', name);
  if (!cur) return;
  const spec = (cur.spec ?? {}) as { finalizers?: string[] };
  const next = {
    ...cur,
    spec: { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER) },
  };
  try {
    await st.client.update('', 'namespaces', next, 'v1', 'finalize');
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}
