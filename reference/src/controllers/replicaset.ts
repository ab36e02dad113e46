// The replicaset controller (Kubernetes' `replicaset`): each ReplicaSet has spec.replicas
// active pods. It adopts the orphan pods its selector matches and releases the pods it owns
// that the selector no longer matches; it makes missing pods from the template (through
// admission, named `<replicaset>-<5 random>`, owned by the ReplicaSet as controller) in
// batches of 1, 2, 4, ... and deletes surplus ones, pending and not-ready and newest first;
// and it writes status: replicas, fullyLabeledReplicas, readyReplicas, availableReplicas
// (zeros left out, as 1.28 does), observedGeneration, and a ReplicaFailure condition while
// pods cannot be made or deleted. A ReplicaSet being deleted only has its status written.
import { type LabelSelectorObj, selectorMatches } from '../registry/kinds/common.ts';
import type { KObject } from '../storage/types.ts';
import { deepEqual } from '../util/object.ts';
import { rfc3339 } from '../util/time.ts';
import { ControllerClient, type ControllerEnv, isConflict, isNotFound } from './client.ts';
import { Expectations } from './expectations.ts';
import { type Informer, inform, keyOf } from './informer.ts';
import {
  claimOwned,
  controllerRef,
  controllerRefOf,
  deletionOrder,
  isActive,
  isAvailable,
  isReady,
  podFromTemplate,
} from './pods.ts';
import type { Controller } from './types.ts';
import { WorkQueue } from './work-queue.ts';

/** The most pods made or deleted in one pass (Kubernetes' BurstReplicas). */
const BURST = 500;

interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelectorObj;
  template?: { metadata?: { labels?: Record<string, string> }; spec?: unknown };
}
export interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  reason?: string;
  message?: string;
}
interface ReplicaSetStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

const specOf = (rs: KObject) => (rs.spec ?? {}) as ReplicaSetSpec;

/** The status without its zero counts (1.28 leaves them out; replicas stays). */
function compact(
  s: Required<Omit<ReplicaSetStatus, 'conditions'>> & { conditions: Condition[] },
): ReplicaSetStatus {
  const out: ReplicaSetStatus = { replicas: s.replicas };
  if (s.fullyLabeledReplicas) out.fullyLabeledReplicas = s.fullyLabeledReplicas;
  if (s.readyReplicas) out.readyReplicas = s.readyReplicas;
  if (s.availableReplicas) out.availableReplicas = s.availableReplicas;
  if (s.observedGeneration) out.observedGeneration = s.observedGeneration;
  if (s.conditions.length) out.conditions = s.conditions;
  return out;
}

/** The controller's state, shared by its parts. */
interface RsState {
  env: ControllerEnv;
  client: ControllerClient;
  expectations: Expectations;
  replicaSets?: Informer;
  pods?: Informer;
  queue: WorkQueue;
}

export function startReplicaSetController(env: ControllerEnv): Controller {
  const st = {
    env,
    client: new ControllerClient(env, 'replicaset-controller'),
    expectations: new Expectations(env.now),
  } as RsState;
  const { expectations } = st;
  const queue = new WorkQueue('replicaset controller', (key) => sync(st, key));
  st.queue = queue;
  st.replicaSets = inform(env.registry, 'apps', 'replicasets', (ev) => queue.add(keyOf(ev.obj)));
  st.pods = inform(env.registry, '', 'pods', (ev) => {
    const pod = ev.obj;
    const owners = new Set(replicaSetsFor(st, pod));
    if (ev.prev) for (const k of replicaSetsFor(st, ev.prev)) owners.add(k);
    const ref = controllerRefOf(pod);
    const ownerKey = ref ? `${pod.metadata.namespace}/${ref.name}` : undefined;
    if (ownerKey && owners.has(ownerKey)) {
      if (ev.type === 'ADDED') expectations.creationObserved(ownerKey);
      if (ev.type === 'DELETED' || (pod.metadata.deletionTimestamp && !ev.prev?.metadata.deletionTimestamp))
        expectations.deletionObserved(ownerKey, keyOf(pod));
    }
    for (const k of owners) queue.add(k);
  });
  return {
    stop() {
      queue.stop();
      st.replicaSets?.stop();
      st.pods?.stop();
    },
  };
}

const podsIn = (st: RsState, ns: string): KObject[] =>
  [...(st.pods?.cache.values() ?? [])].filter((p) => p.metadata.namespace === ns);

/** The ReplicaSets a pod may belong to: its controller, or (an orphan) those whose selector matches it. */
function replicaSetsFor(st: RsState, pod: KObject): string[] {
  const ref = controllerRefOf(pod);
  const ns = pod.metadata.namespace ?? '';
  if (ref) {
    if (ref.kind !== 'ReplicaSet' || !ref.apiVersion.startsWith('apps/')) return [];
    const rs = st.replicaSets?.cache.get(`${ns}/${ref.name}`);
    return rs && rs.metadata.uid === ref.uid ? [`${ns}/${ref.name}`] : [];
  }
  return [...(st.replicaSets?.cache.values() ?? [])]
    .filter((rs) => rs.metadata.namespace === ns && selectorMatches(specOf(rs).selector, pod.metadata.labels))
    .map(keyOf);
}

/** Adopts matching orphans and releases owned pods the selector no longer matches (Kubernetes' ClaimPods). */
function claim(st: RsState, rs: KObject, candidates: KObject[]): Promise<KObject[]> {
  return claimOwned(st.client, rs, specOf(rs).selector, candidates, {
    owner: { group: 'apps', plural: 'replicasets', apiVersion: 'apps/v1', kind: 'ReplicaSet' },
    owned: { group: '', plural: 'pods' },
  });
}

/** Makes or deletes pods toward spec.replicas; the first error, if any. */
async function manage(st: RsState, key: string, rs: KObject, active: KObject[]): Promise<Error | undefined> {
  const diff = active.length - (specOf(rs).replicas ?? 1);
  if (diff < 0) return createPods(st, key, rs, Math.min(-diff, BURST));
  if (diff > 0)
    return deletePods(st, key, rs, [...active].sort(deletionOrder).slice(0, Math.min(diff, BURST)));
  return undefined;
}

/** Makes `count` pods from the template, in batches of 1, 2, 4, ...; the first failure stops it. */
async function createPods(st: RsState, key: string, rs: KObject, count: number): Promise<Error | undefined> {
  const { expectations } = st;
  const spec = specOf(rs);
  const ns = rs.metadata.namespace!;
  let remaining = count;
  expectations.expectCreations(key, remaining);
  const ref = controllerRef(rs, 'apps/v1', 'ReplicaSet');
  // slow start: a batch of 1, then 2, 4, ...; the first failure stops it
  for (let batch = 1; remaining > 0; batch *= 2) {
    const n = Math.min(batch, remaining);
    const results = await Promise.allSettled(
      Array.from({ length: n }, () =>
        st.client.create('', 'pods', ns, podFromTemplate(spec.template ?? {}, ns, ref)),
      ),
    );
    remaining -= n;
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    for (const _ of failed) expectations.creationObserved(key);
    if (failed.length) {
      // the pods never sent are not waited for either
      for (let i = 0; i < remaining; i++) expectations.creationObserved(key);
      return failed[0]!.reason as Error;
    }
  }
  return undefined;
}

/** Deletes the `doomed` pods together; the first error other than one already gone. */
async function deletePods(
  st: RsState,
  key: string,
  rs: KObject,
  doomed: KObject[],
): Promise<Error | undefined> {
  const { expectations } = st;
  const ns = rs.metadata.namespace!;
  expectations.expectDeletions(key, doomed.map(keyOf));
  let first: Error | undefined;
  await Promise.all(
    doomed.map(async (p) => {
      try {
        await st.client.delete('', 'pods', ns, p.metadata.name!, p.metadata.uid);
      } catch (e) {
        expectations.deletionObserved(key, keyOf(p));
        if (!isNotFound(e) && !isConflict(e)) first ??= e as Error;
      }
    }),
  );
  return first;
}

/** One ReplicaSet: its pods claimed, made or deleted toward spec.replicas, and its status written. */
async function sync(st: RsState, key: string): Promise<void> {
  const { expectations } = st;
  const rs = st.replicaSets?.cache.get(key);
  if (!rs) {
    expectations.forget(key);
    return;
  }
  const spec = specOf(rs);
  const ns = rs.metadata.namespace!;
  const now = st.env.now();
  const active = await claim(st, rs, podsIn(st, ns).filter(isActive));
  let failure: Error | undefined;
  if (expectations.satisfied(key) && !rs.metadata.deletionTimestamp)
    failure = await manage(st, key, rs, active);
  // the status of what is there now (pods made or deleted in this pass count from the next one)
  const old = (rs.status ?? {}) as ReplicaSetStatus;
  const status = statusOf(rs, old, active, failure, now);
  if (!deepEqual(status, old)) {
    const latest = st.client.get('apps', 'replicasets', ns, rs.metadata.name!);
    if (latest && latest.metadata.uid === rs.metadata.uid)
      await st.client.update('apps', 'replicasets', { ...latest, status }, 'v1', 'status');
  }
  if (failure) throw failure;
  // pods that are ready but not yet available become so later
  if ((spec.minReadySeconds ?? 0) > 0 && (status.readyReplicas ?? 0) !== (status.availableReplicas ?? 0))
    st.queue.addAfter(key, spec.minReadySeconds! * 1000);
}

/** The status of the active pods, with a ReplicaFailure condition while pods cannot be made or deleted. */
function statusOf(
  rs: KObject,
  old: ReplicaSetStatus,
  active: KObject[],
  failure: Error | undefined,
  now: number,
): ReplicaSetStatus {
  const spec = specOf(rs);
  const templateLabels = spec.template?.metadata?.labels ?? {};
  const conditions = (old.conditions ?? []).filter((c) => c.type !== 'ReplicaFailure');
  const oldFailure = old.conditions?.find((c) => c.type === 'ReplicaFailure');
  if (failure)
    conditions.push(
      oldFailure ?? {
        type: 'ReplicaFailure',
        status: 'True',
        lastTransitionTime: rfc3339(now),
        reason: (spec.replicas ?? 1) > active.length ? 'FailedCreate' : 'FailedDelete',
        message: failure.message,
      },
    );
  return compact({
    replicas: active.length,
    fullyLabeledReplicas: active.filter((p) =>
      Object.entries(templateLabels).every(([k, v]) => p.metadata.labels?.[k] === v),
    ).length,
    readyReplicas: active.filter(isReady).length,
    availableReplicas: active.filter((p) => isAvailable(p, spec.minReadySeconds ?? 0, now)).length,
    observedGeneration: rs.metadata.generation ?? 0,
    conditions,
  });
}
