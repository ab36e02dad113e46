// The deployment controller's ReplicaSets: claiming them, finding or creating the new one
// (with its revision and annotations), scaling them and deleting the old ones beyond the
// revision history.
import type { KObject } from '../storage/types.ts';
import { deepEqual } from '../util/object.ts';
import { isNamespaceTerminating, isNotFound, reasonOf } from './client.ts';
import {
  byCreation,
  condition,
  DESIRED_REPLICAS,
  type DeploymentSpec,
  type DeploymentState,
  dStatus,
  getCondition,
  hasDeadline,
  inNamespace,
  isRolling,
  MAX_REPLICAS,
  MAX_REVISION_HISTORY_CHARS,
  maxSurge,
  NOT_COPIED,
  REVISION,
  REVISION_HISTORY,
  replicasOf,
  revisionOf,
  rsReplicas,
  rsSpec,
  rsStatus,
  setCondition,
  specOf,
  sum,
  TEMPLATE_HASH_LABEL,
  withoutHash,
  writeStatus,
} from './deployment-util.ts';
import { claimOwned, controllerRef, controllerRefOf } from './pods.ts';
import { templateHash } from './template-hash.ts';

/** The Deployment's ReplicaSets: adopted orphans matching its selector, released ones that no longer match. */
export function claimReplicaSets(st: DeploymentState, d: KObject): Promise<KObject[]> {
  return claimOwned(st.client, d, specOf(d).selector, inNamespace(st.replicaSets, d.metadata.namespace!), {
    owner: { group: 'apps', plural: 'deployments', apiVersion: 'apps/v1', kind: 'Deployment' },
    owned: { group: 'apps', plural: 'replicasets' },
  });
}

/** Writes a ReplicaSet's size and replica annotations when they differ (Kubernetes' scaleReplicaSet). */
export async function scaleReplicaSet(
  st: DeploymentState,
  rs: KObject,
  size: number,
  d: KObject,
): Promise<KObject> {
  const desired = String(replicasOf(d));
  const max = String(replicasOf(d) + maxSurge(d));
  const a = rs.metadata.annotations ?? {};
  if (rsReplicas(rs) === size && a[DESIRED_REPLICAS] === desired && a[MAX_REPLICAS] === max) return rs;
  const next = structuredClone(rs);
  (next.spec as DeploymentSpec).replicas = size;
  next.metadata.annotations = { ...a, [DESIRED_REPLICAS]: desired, [MAX_REPLICAS]: max };
  return st.client.update('apps', 'replicasets', next);
}

/**
 * Finds the new ReplicaSet (and brings its annotations up to date), or creates it when asked;
 * the Deployment's revision annotation and Progressing condition follow (Kubernetes'
 * getNewReplicaSet). `ctx.d` is updated in place with what was written.
 */
export async function newReplicaSet(
  st: DeploymentState,
  ctx: { d: KObject },
  rss: KObject[],
  create: boolean,
): Promise<{ newRS?: KObject; oldRSs: KObject[] }> {
  const d = ctx.d;
  const template = withoutHash(specOf(d).template);
  const sorted = [...rss].sort(byCreation);
  const newRS = sorted.find((rs) => deepEqual(withoutHash(rsSpec(rs).template), template));
  const oldRSs = sorted.filter((rs) => rs !== newRS);
  const revision = String(Math.max(0, ...oldRSs.map(revisionOf)) + 1);
  const now = st.env.now();
  if (newRS) return { newRS: await updateNewReplicaSet(st, ctx, newRS, revision, now), oldRSs };
  if (!create) return { oldRSs };
  return { newRS: await createNewReplicaSet(st, ctx, oldRSs, revision, template, now), oldRSs };
}

/** The existing new ReplicaSet, its annotations and minReadySeconds brought up to date; the Deployment's revision and Progressing condition follow. */
async function updateNewReplicaSet(
  st: DeploymentState,
  ctx: { d: KObject },
  newRS: KObject,
  revision: string,
  now: number,
): Promise<KObject> {
  const d = ctx.d;
  const next = structuredClone(newRS);
  const changed = setReplicaSetAnnotations(d, next, revision, true);
  if (changed || (rsSpec(next).minReadySeconds ?? 0) !== (specOf(d).minReadySeconds ?? 0)) {
    const spec = next.spec as DeploymentSpec;
    if (specOf(d).minReadySeconds) spec.minReadySeconds = specOf(d).minReadySeconds;
    else delete spec.minReadySeconds;
    return st.client.update('apps', 'replicasets', next);
  }
  await recordNewReplicaSet(st, ctx, newRS.metadata.annotations?.[REVISION] ?? '', true, {
    reason: 'FoundNewReplicaSet',
    message: `Found new replica set "${newRS.metadata.name}"`,
    now,
  });
  return newRS;
}

/**
 * The Deployment's revision annotation and its Progressing condition (True, with this reason;
 * with `unlessSet`, only when it has none yet), written when either changed.
 */
async function recordNewReplicaSet(
  st: DeploymentState,
  ctx: { d: KObject },
  revision: string,
  unlessSet: boolean,
  progressing: { reason: string; message: string; now: number },
): Promise<void> {
  const d = ctx.d;
  const status = structuredClone(dStatus(d));
  let write = setRevision(d, revision);
  if (hasDeadline(d) && !(unlessSet && getCondition(status, 'Progressing'))) {
    setCondition(
      status,
      condition('Progressing', 'True', progressing.reason, progressing.message, progressing.now),
    );
    write = true;
  }
  if (write) ctx.d = await writeStatus(st, d, status);
}

/** The ReplicaSet for the Deployment's template, named after its hash (Kubernetes' getNewReplicaSet, creating). */
function replicaSetFor(d: KObject, oldRSs: KObject[], revision: string): KObject {
  const hash = templateHash(specOf(d).template, dStatus(d).collisionCount);
  const tpl = structuredClone(specOf(d).template ?? {});
  tpl.metadata = {
    ...(tpl.metadata ?? {}),
    labels: { ...(tpl.metadata?.labels ?? {}), [TEMPLATE_HASH_LABEL]: hash },
  };
  const selector = structuredClone(specOf(d).selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [TEMPLATE_HASH_LABEL]: hash };
  const rs: KObject = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: d.metadata.namespace,
      labels: { ...tpl.metadata.labels },
      ownerReferences: [controllerRef(d, 'apps/v1', 'Deployment')],
    },
    spec: {
      replicas: 0,
      ...(specOf(d).minReadySeconds ? { minReadySeconds: specOf(d).minReadySeconds } : {}),
      selector,
      template: tpl,
    },
  };
  (rs.spec as DeploymentSpec).replicas = newReplicas(d, [...oldRSs, rs], rs);
  setReplicaSetAnnotations(d, rs, revision, false);
  return rs;
}

/** Creates the new ReplicaSet; the Deployment's revision and Progressing condition follow. */
async function createNewReplicaSet(
  st: DeploymentState,
  ctx: { d: KObject },
  oldRSs: KObject[],
  revision: string,
  template: unknown,
  now: number,
): Promise<KObject> {
  const d = ctx.d;
  const rs = replicaSetFor(d, oldRSs, revision);
  let made: KObject;
  try {
    made = await st.client.create('apps', 'replicasets', d.metadata.namespace!, rs);
  } catch (e) {
    await createFailed(st, ctx, rs, template, e, now);
    throw e;
  }
  await recordNewReplicaSet(st, ctx, revision, false, {
    reason: 'NewReplicaSetCreated',
    message: `Created new replica set "${made.metadata.name}"`,
    now,
  });
  return made;
}

/** What a failed creation of the new ReplicaSet leaves in the Deployment's status (the error is thrown on by the caller). */
async function createFailed(
  st: DeploymentState,
  ctx: { d: KObject },
  rs: KObject,
  template: unknown,
  e: unknown,
  now: number,
): Promise<void> {
  const d = ctx.d;
  if (reasonOf(e) === 'AlreadyExists') {
    const existing = st.client.get('apps', 'replicasets', d.metadata.namespace!, rs.metadata.name!);
    // ours already (a pass that did not see it yet): it is taken up on the next pass
    if (
      existing &&
      controllerRefOf(existing)?.uid === d.metadata.uid &&
      deepEqual(withoutHash(rsSpec(existing).template), template)
    )
      return;
    // another template has this hash: count the collision, which gives another hash
    const status = {
      ...structuredClone(dStatus(d)),
      collisionCount: (dStatus(d).collisionCount ?? 0) + 1,
    };
    ctx.d = await writeStatus(st, d, status);
    return;
  }
  if (isNamespaceTerminating(e)) return;
  if (hasDeadline(d)) {
    const status = structuredClone(dStatus(d));
    setCondition(
      status,
      condition(
        'Progressing',
        'False',
        'ReplicaSetCreateError',
        `Failed to create new replica set "${rs.metadata.name}": ${(e as Error).message}`,
        now,
      ),
    );
    ctx.d = await writeStatus(st, d, status);
  }
}

/** Sets the Deployment's revision annotation (on `d` itself); whether it changed. */
function setRevision(d: KObject, revision: string): boolean {
  if (d.metadata.annotations?.[REVISION] === revision) return false;
  d.metadata.annotations = { ...(d.metadata.annotations ?? {}), [REVISION]: revision };
  return true;
}

/** Kubernetes' SetNewReplicaSetAnnotations on `rs` (in place); whether anything changed. */
function setReplicaSetAnnotations(d: KObject, rs: KObject, revision: string, exists: boolean): boolean {
  const a = { ...(rs.metadata.annotations ?? {}) };
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {}))
    if (!NOT_COPIED.has(k) && a[k] !== v) {
      a[k] = v;
      changed = true;
    }
  const old = a[REVISION];
  const oldRev = old === undefined ? 0 : Number(old);
  if (old !== undefined && !Number.isSafeInteger(oldRev)) {
    rs.metadata.annotations = a;
    return changed;
  }
  if (oldRev < Number(revision)) {
    a[REVISION] = revision;
    changed = true;
    if (old !== undefined) {
      // a rollback to this template: the revisions it had are kept
      const history = a[REVISION_HISTORY] ? a[REVISION_HISTORY].split(',') : [];
      history.push(old);
      while (history.join(',').length > MAX_REVISION_HISTORY_CHARS) history.shift();
      a[REVISION_HISTORY] = history.join(',');
    }
  }
  if (!exists) {
    a[DESIRED_REPLICAS] = String(replicasOf(d));
    a[MAX_REPLICAS] = String(replicasOf(d) + maxSurge(d));
    changed = true;
  }
  rs.metadata.annotations = a;
  return changed;
}

/** How many replicas the new ReplicaSet may have now (Kubernetes' NewRSNewReplicas). */
export function newReplicas(d: KObject, all: KObject[], rs: KObject): number {
  if (!isRolling(d)) return replicasOf(d);
  const current = sum(all, rsReplicas);
  const maxTotal = replicasOf(d) + maxSurge(d);
  if (current >= maxTotal) return rsReplicas(rs);
  return rsReplicas(rs) + Math.min(maxTotal - current, replicasOf(d) - rsReplicas(rs));
}

/** Old ReplicaSets without pods beyond revisionHistoryLimit go, oldest first (Kubernetes' cleanupDeployment). */
export async function cleanup(st: DeploymentState, oldRSs: KObject[], d: KObject): Promise<void> {
  const limit = specOf(d).revisionHistoryLimit ?? 10;
  const candidates = oldRSs
    .filter((rs) => !rs.metadata.deletionTimestamp)
    .sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
  let excess = candidates.length - limit;
  for (const rs of candidates) {
    if (excess <= 0) break;
    const status = rsStatus(rs);
    if (
      rsReplicas(rs) !== 0 ||
      (status.replicas ?? 0) !== 0 ||
      (status.observedGeneration ?? 0) < (rs.metadata.generation ?? 0)
    )
      continue;
    try {
      await st.client.delete(
        'apps',
        'replicasets',
        rs.metadata.namespace!,
        rs.metadata.name!,
        rs.metadata.uid,
      );
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    excess--;
  }
}
