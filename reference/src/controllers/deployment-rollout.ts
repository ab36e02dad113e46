// The deployment controller's rollouts: scaling (proportionally when several ReplicaSets
// have pods), RollingUpdate within maxSurge and maxUnavailable, Recreate once the old pods
// are gone.
import type { KObject } from '../storage/types.ts';
import { cleanup, newReplicaSet, newReplicas, scaleReplicaSet } from './deployment-replicasets.ts';
import { complete, syncRolloutStatus } from './deployment-status.ts';
import {
  byCreation,
  DESIRED_REPLICAS,
  type DeploymentState,
  dStatus,
  inNamespace,
  isRolling,
  MAX_REPLICAS,
  maxSurge,
  maxUnavailable,
  replicasOf,
  rsReplicas,
  rsStatus,
  sum,
} from './deployment-util.ts';
import { controllerRefOf } from './pods.ts';

/** Kubernetes' scale: a change of spec.replicas reaches the ReplicaSets. */
export async function scale(
  st: DeploymentState,
  d: KObject,
  newRS: KObject | undefined,
  oldRSs: KObject[],
): Promise<void> {
  const byNewest = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = [...byNewest, ...(newRS ? [newRS] : [])].filter((rs) => rsReplicas(rs) > 0);
  const target = replicasOf(d);
  if (active.length <= 1) {
    const one = active[0] ?? newRS ?? byNewest[0];
    if (one && rsReplicas(one) !== target) await scaleReplicaSet(st, one, target, d);
    return;
  }
  const saturated =
    newRS &&
    newRS.metadata.annotations?.[DESIRED_REPLICAS] === String(target) &&
    rsReplicas(newRS) === target &&
    (rsStatus(newRS).availableReplicas ?? 0) === target;
  if (saturated) {
    for (const old of oldRSs.filter((rs) => rsReplicas(rs) > 0)) await scaleReplicaSet(st, old, 0, d);
    return;
  }
  if (!isRolling(d)) return;
  const allowed = target > 0 ? target + maxSurge(d) : 0;
  const toAdd = allowed - sum(active, rsReplicas);
  // larger first; among equal ones the newer first when growing, the older first when shrinking
  const sorted = [...active].sort(
    (a, b) => rsReplicas(b) - rsReplicas(a) || (toAdd > 0 ? byCreation(b, a) : byCreation(a, b)),
  );
  const sizes = new Map<KObject, number>();
  let added = 0;
  for (const rs of sorted) {
    let proportion = 0;
    if (toAdd !== 0 && rsReplicas(rs) !== 0 && toAdd !== added) {
      const annotated = Number(rs.metadata.annotations?.[MAX_REPLICAS] ?? Number.NaN);
      const base = Number.isSafeInteger(annotated) && annotated > 0 ? annotated : (dStatus(d).replicas ?? 0);
      const fraction =
        target === 0
          ? -rsReplicas(rs)
          : Math.round((rsReplicas(rs) * (target + maxSurge(d))) / (base || 1)) - rsReplicas(rs);
      proportion = toAdd > 0 ? Math.min(fraction, toAdd - added) : Math.max(fraction, toAdd - added);
    }
    sizes.set(rs, rsReplicas(rs) + proportion);
    added += proportion;
  }
  for (const [i, rs] of sorted.entries()) {
    let size = sizes.get(rs)!;
    if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
    await scaleReplicaSet(st, rs, size, d);
  }
}

/** A RollingUpdate rollout: the new ReplicaSet grows within maxSurge, the old ones shrink within maxUnavailable. */
export async function rolloutRolling(
  st: DeploymentState,
  ctx: { d: KObject },
  rss: KObject[],
): Promise<void> {
  const { newRS, oldRSs } = await newReplicaSet(st, ctx, rss, true);
  const d = ctx.d;
  const all = [...oldRSs, ...(newRS ? [newRS] : [])];
  // the new ReplicaSet grows within maxSurge
  if (newRS) {
    const want = rsReplicas(newRS) > replicasOf(d) ? replicasOf(d) : newReplicas(d, all, newRS);
    if (want !== rsReplicas(newRS)) {
      const scaled = await scaleReplicaSet(st, newRS, want, d);
      return syncRolloutStatus(
        st,
        all.map((rs) => (rs === newRS ? scaled : rs)),
        scaled,
        d,
      );
    }
  }
  // the old ones shrink within maxUnavailable
  if (
    await reconcileOld(
      st,
      all,
      oldRSs.filter((rs) => rsReplicas(rs) > 0),
      newRS,
      d,
    )
  )
    return syncRolloutStatus(
      st,
      all.map((rs) => st.client.get('apps', 'replicasets', rs.metadata.namespace!, rs.metadata.name!) ?? rs),
      newRS,
      d,
    );
  if (complete(d, dStatus(d))) await cleanup(st, oldRSs, d);
  await syncRolloutStatus(st, all, newRS, d);
}

/** Kubernetes' reconcileOldReplicaSets: whether an old ReplicaSet was scaled down. */
async function reconcileOld(
  st: DeploymentState,
  all: KObject[],
  oldActive: KObject[],
  newRS: KObject | undefined,
  d: KObject,
): Promise<boolean> {
  if (!sum(oldActive, rsReplicas)) return false;
  const allPods = sum(all, rsReplicas);
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const newUnavailable = newRS ? rsReplicas(newRS) - (rsStatus(newRS).availableReplicas ?? 0) : 0;
  const maxScaledDown = allPods - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  // first the pods that are not available, oldest ReplicaSet first
  let cleaned = 0;
  const kept: KObject[] = [];
  for (const rs of [...oldActive].sort(byCreation)) {
    const unhealthy = rsReplicas(rs) - (rsStatus(rs).availableReplicas ?? 0);
    if (cleaned >= maxScaledDown || unhealthy <= 0) {
      kept.push(rs);
      continue;
    }
    const down = Math.min(maxScaledDown - cleaned, unhealthy);
    kept.push(await scaleReplicaSet(st, rs, rsReplicas(rs) - down, d));
    cleaned += down;
  }
  // then available pods, as far as availability allows
  const availableNow = sum([...kept, ...(newRS ? [newRS] : [])], (rs) => rsStatus(rs).availableReplicas ?? 0);
  let scaledDown = 0;
  if (availableNow > minAvailable) {
    const total = availableNow - minAvailable;
    for (const rs of kept.sort(byCreation)) {
      if (scaledDown >= total) break;
      if (rsReplicas(rs) === 0) continue;
      const down = Math.min(rsReplicas(rs), total - scaledDown);
      await scaleReplicaSet(st, rs, rsReplicas(rs) - down, d);
      scaledDown += down;
    }
  }
  return cleaned + scaledDown > 0;
}

/** A Recreate rollout: the old ReplicaSets go to zero, then the new one grows once no old pod runs. */
export async function rolloutRecreate(
  st: DeploymentState,
  ctx: { d: KObject },
  rss: KObject[],
): Promise<void> {
  let { newRS, oldRSs } = await newReplicaSet(st, ctx, rss, false);
  const d = ctx.d;
  let all = [...oldRSs, ...(newRS ? [newRS] : [])];
  const oldActive = oldRSs.filter((rs) => rsReplicas(rs) > 0);
  if (oldActive.length) {
    for (const rs of oldActive) await scaleReplicaSet(st, rs, 0, d);
    return syncRolloutStatus(st, all, newRS, d);
  }
  // the new pods wait until no old pod runs
  const oldUids = new Set(oldRSs.map((rs) => rs.metadata.uid));
  const oldPodsLeft =
    sum(oldRSs, (rs) => rsStatus(rs).replicas ?? 0) > 0 ||
    inNamespace(st.pods, d.metadata.namespace!).some((p) => {
      const ref = controllerRefOf(p);
      const phase = (p.status as { phase?: string } | undefined)?.phase;
      return !!ref && oldUids.has(ref.uid) && phase !== 'Succeeded' && phase !== 'Failed';
    });
  if (oldPodsLeft) return syncRolloutStatus(st, all, newRS, d);
  if (!newRS) {
    ({ newRS, oldRSs } = await newReplicaSet(st, ctx, rss, true));
    all = [...oldRSs, ...(newRS ? [newRS] : [])];
  }
  if (newRS && rsReplicas(newRS) !== replicasOf(ctx.d)) {
    const scaled = await scaleReplicaSet(st, newRS, replicasOf(ctx.d), ctx.d);
    return syncRolloutStatus(
      st,
      all.map((rs) => (rs === newRS ? scaled : rs)),
      scaled,
      ctx.d,
    );
  }
  if (complete(ctx.d, dStatus(ctx.d))) await cleanup(st, oldRSs, ctx.d);
  await syncRolloutStatus(st, all, newRS, ctx.d);
}
