// The deployment controller's status: the replica counts of the ReplicaSets, and the
// Available, Progressing and ReplicaFailure conditions with 1.28's reasons and messages.
import type { KObject } from '../storage/types.ts';
import { deepEqual } from '../util/object.ts';
import {
  compact,
  condition,
  type DeploymentState,
  type DeploymentStatus,
  dStatus,
  getCondition,
  hasDeadline,
  maxUnavailable,
  removeCondition,
  replicasOf,
  rsReplicas,
  rsStatus,
  setCondition,
  specOf,
  sum,
  writeStatus,
} from './deployment-util.ts';
import { keyOf } from './informer.ts';
import type { Condition } from './replicaset.ts';

/** Kubernetes' calculateStatus. */
function calculateStatus(
  st: DeploymentState,
  all: KObject[],
  newRS: KObject | undefined,
  d: KObject,
): DeploymentStatus {
  const available = sum(all, (rs) => rsStatus(rs).availableReplicas ?? 0);
  const total = sum(all, rsReplicas);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: sum(all, (rs) => rsStatus(rs).replicas ?? 0),
    updatedReplicas: newRS ? (rsStatus(newRS).replicas ?? 0) : 0,
    readyReplicas: sum(all, (rs) => rsStatus(rs).readyReplicas ?? 0),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
    conditions: structuredClone(dStatus(d).conditions ?? []),
    collisionCount: dStatus(d).collisionCount,
  };
  const now = st.env.now();
  if (available >= replicasOf(d) - maxUnavailable(d))
    setCondition(
      status,
      condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now),
    );
  else
    setCondition(
      status,
      condition(
        'Available',
        'False',
        'MinimumReplicasUnavailable',
        'Deployment does not have minimum availability.',
        now,
      ),
    );
  return status;
}

export const complete = (d: KObject, s: DeploymentStatus) =>
  (s.updatedReplicas ?? 0) === replicasOf(d) &&
  (s.replicas ?? 0) === replicasOf(d) &&
  (s.availableReplicas ?? 0) === replicasOf(d) &&
  (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
function progressing(d: KObject, s: DeploymentStatus) {
  const o = dStatus(d);
  return (
    (s.updatedReplicas ?? 0) > (o.updatedReplicas ?? 0) ||
    (s.replicas ?? 0) - (s.updatedReplicas ?? 0) < (o.replicas ?? 0) - (o.updatedReplicas ?? 0) ||
    (s.readyReplicas ?? 0) > (o.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (o.availableReplicas ?? 0)
  );
}

function timedOut(st: DeploymentState, d: KObject, s: DeploymentStatus): boolean {
  const c = getCondition(s, 'Progressing');
  if (!c || !hasDeadline(d)) return false;
  if (c.reason === 'ProgressDeadlineExceeded') return true;
  if (c.reason === 'NewReplicaSetAvailable') return false;
  const from = Date.parse(c.lastUpdateTime ?? '') || 0;
  return from + specOf(d).progressDeadlineSeconds! * 1000 < st.env.now();
}

/** Kubernetes' syncDeploymentStatus: the status of the ReplicaSets, written when it differs. */
export async function syncStatus(
  st: DeploymentState,
  all: KObject[],
  newRS: KObject | undefined,
  d: KObject,
): Promise<void> {
  const status = calculateStatus(st, all, newRS, d);
  if (!deepEqual(compact(status), compact(dStatus(d)))) await writeStatus(st, d, status);
}

/** Kubernetes' syncRolloutStatus: the status and the Progressing and ReplicaFailure conditions. */
export async function syncRolloutStatus(
  st: DeploymentState,
  all: KObject[],
  newRS: KObject | undefined,
  d: KObject,
): Promise<void> {
  const status = calculateStatus(st, all, newRS, d);
  if (!hasDeadline(d)) removeCondition(status, 'Progressing');
  const cur = getCondition(dStatus(d), 'Progressing');
  const done = status.replicas === status.updatedReplicas && cur?.reason === 'NewReplicaSetAvailable';
  const now = st.env.now();
  const rsName = newRS?.metadata.name;
  if (hasDeadline(d) && !done) {
    if (complete(d, status)) {
      const msg = rsName
        ? `ReplicaSet "${rsName}" has successfully progressed.`
        : `Deployment "${d.metadata.name}" has successfully progressed.`;
      setCondition(status, condition('Progressing', 'True', 'NewReplicaSetAvailable', msg, now));
    } else if (progressing(d, status)) {
      const msg = rsName
        ? `ReplicaSet "${rsName}" is progressing.`
        : `Deployment "${d.metadata.name}" is progressing.`;
      const c = condition('Progressing', 'True', 'ReplicaSetUpdated', msg, now);
      const old = getCondition(status, 'Progressing');
      if (old) {
        if (old.status === 'True') c.lastTransitionTime = old.lastTransitionTime;
        removeCondition(status, 'Progressing');
      }
      setCondition(status, c);
    } else if (timedOut(st, d, status)) {
      const msg = rsName
        ? `ReplicaSet "${rsName}" has timed out progressing.`
        : `Deployment "${d.metadata.name}" has timed out progressing.`;
      setCondition(status, condition('Progressing', 'False', 'ProgressDeadlineExceeded', msg, now));
    }
  }
  // the ReplicaSets' failure, the new one's first
  const failure = [newRS, ...all.filter((rs) => rs !== newRS)]
    .flatMap((rs) => (rs ? (rsStatus(rs).conditions ?? []) : []))
    .find((c) => c.type === 'ReplicaFailure');
  if (failure)
    setCondition(status, {
      type: 'ReplicaFailure',
      status: failure.status,
      lastUpdateTime: failure.lastTransitionTime,
      lastTransitionTime: failure.lastTransitionTime,
      reason: failure.reason,
      message: failure.message,
    });
  else removeCondition(status, 'ReplicaFailure');
  if (deepEqual(compact(status), compact(dStatus(d)))) {
    requeueStuck(st, d, status);
    return;
  }
  await writeStatus(st, d, status);
}

/** A Deployment still progressing is looked at again when its deadline passes. */
function requeueStuck(st: DeploymentState, d: KObject, s: DeploymentStatus) {
  const c = getCondition(s, 'Progressing');
  if (
    !c ||
    !hasDeadline(d) ||
    c.reason === 'NewReplicaSetAvailable' ||
    c.reason === 'ProgressDeadlineExceeded'
  )
    return;
  if (complete(d, s)) return;
  const at = (Date.parse(c.lastUpdateTime ?? '') || 0) + specOf(d).progressDeadlineSeconds! * 1000;
  st.queue.addAfter(keyOf(d), Math.max(at - st.env.now(), 0) + 1000);
}

/** Kubernetes' checkPausedConditions: Progressing says Unknown while paused, and when resumed. */
export async function pausedConditions(st: DeploymentState, ctx: { d: KObject }): Promise<void> {
  const d = ctx.d;
  if (!hasDeadline(d)) return;
  const cur = getCondition(dStatus(d), 'Progressing');
  if (cur?.reason === 'ProgressDeadlineExceeded') return;
  const paused = !!specOf(d).paused;
  const pausedCond = cur?.reason === 'DeploymentPaused';
  let c: Condition | undefined;
  if (paused && !pausedCond)
    c = condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused', st.env.now());
  else if (!paused && pausedCond)
    c = condition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed', st.env.now());
  if (!c) return;
  const status = structuredClone(dStatus(d));
  setCondition(status, c);
  ctx.d = await writeStatus(st, d, status);
}
