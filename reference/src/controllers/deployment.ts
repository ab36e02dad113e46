// The deployment controller (Kubernetes' `deployment`), as 1.28's does it: a Deployment owns
// ReplicaSets named `<deployment>-<pod-template-hash>`, one per pod template it has had. The
// one whose template is the Deployment's is the new one; a new template gets a new ReplicaSet
// (revision: one more than the old ones', in `deployment.orch.io/revision` on both, the
// Deployment's written through its status). The replicas move from the old ReplicaSets to the
// new one as the strategy says (RollingUpdate within maxSurge and maxUnavailable, Recreate
// once the old pods are gone); a change of spec.replicas alone scales the ReplicaSets
// (proportionally when several have pods); a paused Deployment is only scaled; old ReplicaSets
// without pods beyond revisionHistoryLimit are deleted. Status: observedGeneration, the
// replica counts (zeros left out), collisionCount, and the Available, Progressing and
// ReplicaFailure conditions with 1.28's reasons and messages; a Deployment that makes no
// progress for progressDeadlineSeconds is marked ProgressDeadlineExceeded.
//
// The parts: deployment-replicasets.ts (claiming, the new ReplicaSet, scaling, cleanup),
// deployment-rollout.ts (scale, RollingUpdate, Recreate), deployment-status.ts (status and
// conditions), deployment-util.ts (the state and shapes they share).
import { selectorMatches } from '../registry/kinds/common.ts';
import type { KObject } from '../storage/types.ts';
import { ControllerClient, type ControllerEnv } from './client.ts';
import { claimReplicaSets, cleanup, newReplicaSet } from './deployment-replicasets.ts';
import { rolloutRecreate, rolloutRolling, scale } from './deployment-rollout.ts';
import { pausedConditions, syncStatus } from './deployment-status.ts';
import {
  DESIRED_REPLICAS,
  type DeploymentState,
  inNamespace,
  isRolling,
  replicasOf,
  rsReplicas,
  specOf,
} from './deployment-util.ts';
import { inform, keyOf } from './informer.ts';
import { controllerRefOf, isActive } from './pods.ts';
import type { Controller } from './types.ts';
import { WorkQueue } from './work-queue.ts';

export {
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  REVISION,
  REVISION_HISTORY,
  TEMPLATE_HASH_LABEL,
} from './deployment-util.ts';

export function startDeploymentController(env: ControllerEnv): Controller {
  const st = { env, client: new ControllerClient(env, 'deployment-controller') } as DeploymentState;
  st.queue = new WorkQueue('deployment controller', (key) => sync(st, key));
  const queue = st.queue;
  st.deployments = inform(env.registry, 'apps', 'deployments', (ev) => queue.add(keyOf(ev.obj)));
  st.replicaSets = inform(env.registry, 'apps', 'replicasets', (ev) => {
    const keys = new Set(deploymentsFor(st, ev.obj));
    if (ev.prev) for (const k of deploymentsFor(st, ev.prev)) keys.add(k);
    for (const k of keys) queue.add(k);
  });
  // a Recreate rollout waits for the old pods to go
  st.pods = inform(env.registry, '', 'pods', (ev) => {
    if (ev.type !== 'DELETED' && isActive(ev.obj)) return;
    const ref = controllerRefOf(ev.obj);
    const rs =
      ref?.kind === 'ReplicaSet'
        ? st.replicaSets?.cache.get(`${ev.obj.metadata.namespace}/${ref.name}`)
        : undefined;
    if (rs) for (const k of deploymentsFor(st, rs)) queue.add(k);
  });
  return {
    stop() {
      queue.stop();
      st.deployments?.stop();
      st.replicaSets?.stop();
      st.pods?.stop();
    },
  };
}

/** The Deployments a ReplicaSet (or its pods) may belong to. */
function deploymentsFor(st: DeploymentState, rs: KObject): string[] {
  const ns = rs.metadata.namespace ?? '';
  const ref = controllerRefOf(rs);
  if (ref) {
    if (ref.kind !== 'Deployment' || !ref.apiVersion.startsWith('apps/')) return [];
    const d = st.deployments?.cache.get(`${ns}/${ref.name}`);
    return d && d.metadata.uid === ref.uid ? [keyOf(d)] : [];
  }
  return inNamespace(st.deployments, ns)
    .filter((d) => selectorMatches(specOf(d).selector, rs.metadata.labels))
    .map(keyOf);
}

/** One Deployment brought to what its spec says: a scaling, a rollout, or only its status while it is deleted. */
async function sync(st: DeploymentState, key: string): Promise<void> {
  const cached = st.deployments?.cache.get(key);
  if (!cached) return;
  const ctx = { d: structuredClone(cached) };
  const rss = await claimReplicaSets(st, ctx.d);
  if (ctx.d.metadata.deletionTimestamp) {
    const { newRS, oldRSs } = await newReplicaSet(st, ctx, rss, false);
    return syncStatus(st, [...oldRSs, ...(newRS ? [newRS] : [])], newRS, ctx.d);
  }
  await pausedConditions(st, ctx);
  if (specOf(ctx.d).paused) return scaling(st, ctx, rss);
  const desired = String(replicasOf(ctx.d));
  const scalingEvent = rss.some((rs) => {
    const a = rs.metadata.annotations?.[DESIRED_REPLICAS];
    return rsReplicas(rs) > 0 && a !== undefined && a !== desired;
  });
  if (scalingEvent) return scaling(st, ctx, rss);
  if (isRolling(ctx.d)) return rolloutRolling(st, ctx, rss);
  return rolloutRecreate(st, ctx, rss);
}

/** A change of spec.replicas alone (or a paused Deployment): the ReplicaSets are scaled, not rolled out. */
async function scaling(st: DeploymentState, ctx: { d: KObject }, rss: KObject[]): Promise<void> {
  const { newRS, oldRSs } = await newReplicaSet(st, ctx, rss, false);
  await scale(st, ctx.d, newRS, oldRSs);
  if (specOf(ctx.d).paused) await cleanup(st, oldRSs, ctx.d);
  const fresh = [...oldRSs, ...(newRS ? [newRS] : [])].map(
    (rs) => st.client.get('apps', 'replicasets', rs.metadata.namespace!, rs.metadata.name!) ?? rs,
  );
  const fn = newRS ? fresh.find((rs) => rs.metadata.uid === newRS.metadata.uid) : undefined;
  await syncStatus(st, fresh, fn, ctx.d);
}
