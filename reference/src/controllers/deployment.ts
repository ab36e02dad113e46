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
import { selectorMatches, type LabelSelectorObj } from '../registry/kinds/common.ts';
import type { KObject } from '../storage/types.ts';
import { deepEqual } from '../util/object.ts';
import { rfc3339 } from '../util/time.ts';
import {
  ControllerClient,
  type ControllerEnv,
  isNamespaceTerminating,
  isNotFound,
  reasonOf,
} from './client.ts';
import { type Informer, inform, keyOf } from './informer.ts';
import { controllerRef, controllerRefOf, isActive } from './pods.ts';
import type { Condition } from './replicaset.ts';
import { templateHash } from './template-hash.ts';
import type { Controller } from './types.ts';
import { WorkQueue } from './work-queue.ts';

export const REVISION = 'deployment.orch.io/revision';
export const REVISION_HISTORY = 'deployment.orch.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.orch.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.orch.io/max-replicas';
export const TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** Deployment annotations never copied to its ReplicaSets (Kubernetes' annotationsToSkip). */
const NOT_COPIED = new Set([
  'kubectl.orch.io/last-applied-configuration',
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);
const MAX_REVISION_HISTORY_CHARS = 2000;
const NO_DEADLINE = 2 ** 31 - 1;

interface Template {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: unknown;
}
interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelectorObj;
  template?: Template;
  strategy?: {
    type?: string;
    rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
  };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}
interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: Condition[];
  collisionCount?: number;
}
interface RsStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

const specOf = (o: KObject) => (o.spec ?? {}) as DeploymentSpec;
const dStatus = (o: KObject) => (o.status ?? {}) as DeploymentStatus;
const rsSpec = (o: KObject) => (o.spec ?? {}) as DeploymentSpec;
const rsStatus = (o: KObject) => (o.status ?? {}) as RsStatus;
const replicasOf = (o: KObject) => specOf(o).replicas ?? 1;
const rsReplicas = (rs: KObject) => rsSpec(rs).replicas ?? 1;
const revisionOf = (o: KObject): number => {
  const n = Number(o.metadata.annotations?.[REVISION] ?? '');
  return Number.isSafeInteger(n) ? n : 0;
};
const created = (o: KObject) => Date.parse(o.metadata.creationTimestamp ?? '') || 0;
const byCreation = (a: KObject, b: KObject) =>
  created(a) - created(b) || (a.metadata.name! < b.metadata.name! ? -1 : 1);
const sum = (rss: KObject[], f: (rs: KObject) => number) => rss.reduce((n, rs) => n + f(rs), 0);

/** An int-or-percent of `total`, rounded up or down (Kubernetes' GetScaledValueFromIntOrPercent). */
function scaled(v: number | string | undefined, fallback: string, total: number, up: boolean): number {
  const x = v ?? fallback;
  if (typeof x === 'number') return x;
  const pct = Number.parseInt(x, 10);
  if (!Number.isFinite(pct)) return 0;
  return up ? Math.ceil((pct * total) / 100) : Math.floor((pct * total) / 100);
}
const isRolling = (d: KObject) => (specOf(d).strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
/** maxSurge and maxUnavailable resolved (Kubernetes' ResolveFenceposts: both 0 makes maxUnavailable 1). */
function fenceposts(d: KObject): { surge: number; unavailable: number } {
  const ru = specOf(d).strategy?.rollingUpdate ?? {};
  const desired = replicasOf(d);
  const surge = scaled(ru.maxSurge, '25%', desired, true);
  const unavailable = scaled(ru.maxUnavailable, '25%', desired, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}
const maxSurge = (d: KObject) => (isRolling(d) ? fenceposts(d).surge : 0);
function maxUnavailable(d: KObject): number {
  if (!isRolling(d) || replicasOf(d) === 0) return 0;
  return Math.min(fenceposts(d).unavailable, replicasOf(d));
}
const hasDeadline = (d: KObject) => (specOf(d).progressDeadlineSeconds ?? NO_DEADLINE) !== NO_DEADLINE;

/** The template without the hash label (Kubernetes' EqualIgnoreHash). */
function withoutHash(t: Template | undefined): Template {
  const c = structuredClone(t ?? {});
  if (c.metadata?.labels) {
    delete c.metadata.labels[TEMPLATE_HASH_LABEL];
    if (!Object.keys(c.metadata.labels).length) delete c.metadata.labels;
  }
  return c;
}

function condition(type: string, status: string, reason: string, message: string, now: number): Condition {
  const t = rfc3339(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}
/** Kubernetes' SetDeploymentCondition: the same status and reason change nothing; the same status keeps its transition time; the condition goes last. */
function setCondition(s: DeploymentStatus, c: Condition): void {
  const cur = s.conditions?.find((x) => x.type === c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return;
  if (cur && cur.status === c.status) c.lastTransitionTime = cur.lastTransitionTime;
  s.conditions = [...(s.conditions ?? []).filter((x) => x.type !== c.type), c];
}
function removeCondition(s: DeploymentStatus, type: string): void {
  if (s.conditions) s.conditions = s.conditions.filter((x) => x.type !== type);
}
const getCondition = (s: DeploymentStatus, type: string) => s.conditions?.find((c) => c.type === type);

/** The status without zeros and empty lists (every field of 1.28's DeploymentStatus is omitempty). */
function compact(s: DeploymentStatus): DeploymentStatus {
  const out: DeploymentStatus = {};
  for (const [k, v] of Object.entries(s) as [keyof DeploymentStatus, unknown][]) {
    if (v === 0 || v === undefined || (Array.isArray(v) && !v.length)) continue;
    (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

export function startDeploymentController(env: ControllerEnv): Controller {
  const client = new ControllerClient(env, 'deployment-controller');
  let deployments: Informer | undefined;
  let replicaSets: Informer | undefined;
  let pods: Informer | undefined;

  const inNamespace = (i: Informer | undefined, ns: string) =>
    [...(i?.cache.values() ?? [])].filter((o) => o.metadata.namespace === ns);

  /** The Deployments a ReplicaSet (or its pods) may belong to. */
  const deploymentsFor = (rs: KObject): string[] => {
    const ns = rs.metadata.namespace ?? '';
    const ref = controllerRefOf(rs);
    if (ref) {
      if (ref.kind !== 'Deployment' || !ref.apiVersion.startsWith('apps/')) return [];
      const d = deployments?.cache.get(`${ns}/${ref.name}`);
      return d && d.metadata.uid === ref.uid ? [keyOf(d)] : [];
    }
    return inNamespace(deployments, ns)
      .filter((d) => selectorMatches(specOf(d).selector, rs.metadata.labels))
      .map(keyOf);
  };

  /** The Deployment's ReplicaSets: adopted orphans matching its selector, released ones that no longer match. */
  const claimReplicaSets = async (d: KObject): Promise<KObject[]> => {
    const mine: KObject[] = [];
    for (const rs of inNamespace(replicaSets, d.metadata.namespace!)) {
      const ref = controllerRefOf(rs);
      const matches = selectorMatches(specOf(d).selector, rs.metadata.labels);
      if (ref) {
        if (ref.uid !== d.metadata.uid) continue;
        if (matches) mine.push(rs);
        else if (!d.metadata.deletionTimestamp) await setOwner(rs, undefined, ref.uid);
        continue;
      }
      if (!matches || d.metadata.deletionTimestamp || rs.metadata.deletionTimestamp) continue;
      const fresh = client.get('apps', 'deployments', d.metadata.namespace!, d.metadata.name!);
      if (!fresh || fresh.metadata.uid !== d.metadata.uid || fresh.metadata.deletionTimestamp) continue;
      const adopted = await setOwner(rs, controllerRef(d, 'apps/v1', 'Deployment'));
      if (adopted) mine.push(adopted);
    }
    return mine;
  };
  const setOwner = async (rs: KObject, ref: ReturnType<typeof controllerRef> | undefined, drop?: string) => {
    const next = structuredClone(rs);
    const others = ((next.metadata.ownerReferences ?? []) as { uid: string }[]).filter(
      (r) => r.uid !== (ref?.uid ?? drop),
    );
    const owners = ref ? [...others, ref] : others;
    if (owners.length) next.metadata.ownerReferences = owners;
    else delete next.metadata.ownerReferences;
    try {
      return await client.update('apps', 'replicasets', next);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };

  /** Writes a ReplicaSet's size and replica annotations when they differ (Kubernetes' scaleReplicaSet). */
  const scaleReplicaSet = async (rs: KObject, size: number, d: KObject): Promise<KObject> => {
    const desired = String(replicasOf(d));
    const max = String(replicasOf(d) + maxSurge(d));
    const a = rs.metadata.annotations ?? {};
    if (rsReplicas(rs) === size && a[DESIRED_REPLICAS] === desired && a[MAX_REPLICAS] === max) return rs;
    const next = structuredClone(rs);
    (next.spec as DeploymentSpec).replicas = size;
    next.metadata.annotations = { ...a, [DESIRED_REPLICAS]: desired, [MAX_REPLICAS]: max };
    return client.update('apps', 'replicasets', next);
  };

  /**
   * Finds the new ReplicaSet (and brings its annotations up to date), or creates it when asked;
   * the Deployment's revision annotation and Progressing condition follow (Kubernetes'
   * getNewReplicaSet). `d` is updated in place with what was written.
   */
  const newReplicaSet = async (
    ctx: { d: KObject },
    rss: KObject[],
    create: boolean,
  ): Promise<{ newRS?: KObject; oldRSs: KObject[] }> => {
    const d = ctx.d;
    const template = withoutHash(specOf(d).template);
    const sorted = [...rss].sort(byCreation);
    const newRS = sorted.find((rs) => deepEqual(withoutHash(rsSpec(rs).template), template));
    const oldRSs = sorted.filter((rs) => rs !== newRS);
    const revision = String(Math.max(0, ...oldRSs.map(revisionOf)) + 1);
    const now = env.now();
    if (newRS) {
      const next = structuredClone(newRS);
      const changed = setReplicaSetAnnotations(d, next, revision, true);
      if (changed || (rsSpec(next).minReadySeconds ?? 0) !== (specOf(d).minReadySeconds ?? 0)) {
        const spec = next.spec as DeploymentSpec;
        if (specOf(d).minReadySeconds) spec.minReadySeconds = specOf(d).minReadySeconds;
        else delete spec.minReadySeconds;
        return { newRS: await client.update('apps', 'replicasets', next), oldRSs };
      }
      const status = structuredClone(dStatus(d));
      let write = setRevision(d, newRS.metadata.annotations?.[REVISION] ?? '');
      if (hasDeadline(d) && !getCondition(status, 'Progressing')) {
        setCondition(
          status,
          condition(
            'Progressing',
            'True',
            'FoundNewReplicaSet',
            `Found new replica set "${newRS.metadata.name}"`,
            now,
          ),
        );
        write = true;
      }
      if (write) ctx.d = await writeStatus(d, status);
      return { newRS, oldRSs };
    }
    if (!create) return { oldRSs };
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
    let made: KObject;
    try {
      made = await client.create('apps', 'replicasets', d.metadata.namespace!, rs);
    } catch (e) {
      if (reasonOf(e) === 'AlreadyExists') {
        const existing = client.get('apps', 'replicasets', d.metadata.namespace!, rs.metadata.name!);
        // ours already (a pass that did not see it yet): it is taken up on the next pass
        if (
          existing &&
          controllerRefOf(existing)?.uid === d.metadata.uid &&
          deepEqual(withoutHash(rsSpec(existing).template), template)
        )
          throw e;
        // another template has this hash: count the collision, which gives another hash
        const status = {
          ...structuredClone(dStatus(d)),
          collisionCount: (dStatus(d).collisionCount ?? 0) + 1,
        };
        ctx.d = await writeStatus(d, status);
        throw e;
      }
      if (isNamespaceTerminating(e)) throw e;
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
        ctx.d = await writeStatus(d, status);
      }
      throw e;
    }
    const status = structuredClone(dStatus(d));
    let write = setRevision(d, revision);
    if (hasDeadline(d)) {
      setCondition(
        status,
        condition(
          'Progressing',
          'True',
          'NewReplicaSetCreated',
          `Created new replica set "${made.metadata.name}"`,
          now,
        ),
      );
      write = true;
    }
    if (write) ctx.d = await writeStatus(d, status);
    return { newRS: made, oldRSs };
  };

  /** Sets the Deployment's revision annotation (on `d` itself); whether it changed. */
  const setRevision = (d: KObject, revision: string): boolean => {
    if (d.metadata.annotations?.[REVISION] === revision) return false;
    d.metadata.annotations = { ...(d.metadata.annotations ?? {}), [REVISION]: revision };
    return true;
  };

  /** Kubernetes' SetNewReplicaSetAnnotations on `rs` (in place); whether anything changed. */
  const setReplicaSetAnnotations = (d: KObject, rs: KObject, revision: string, exists: boolean): boolean => {
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
  };

  /** How many replicas the new ReplicaSet may have now (Kubernetes' NewRSNewReplicas). */
  const newReplicas = (d: KObject, all: KObject[], rs: KObject): number => {
    if (!isRolling(d)) return replicasOf(d);
    const current = sum(all, rsReplicas);
    const maxTotal = replicasOf(d) + maxSurge(d);
    if (current >= maxTotal) return rsReplicas(rs);
    return rsReplicas(rs) + Math.min(maxTotal - current, replicasOf(d) - rsReplicas(rs));
  };

  const writeStatus = async (d: KObject, status: DeploymentStatus): Promise<KObject> =>
    client.update('apps', 'deployments', { ...d, status: compact(status) }, 'v1', 'status');

  /** Kubernetes' calculateStatus. */
  const calculateStatus = (all: KObject[], newRS: KObject | undefined, d: KObject): DeploymentStatus => {
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
    const now = env.now();
    if (available >= replicasOf(d) - maxUnavailable(d))
      setCondition(
        status,
        condition(
          'Available',
          'True',
          'MinimumReplicasAvailable',
          'Deployment has minimum availability.',
          now,
        ),
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
  };

  const complete = (d: KObject, s: DeploymentStatus) =>
    (s.updatedReplicas ?? 0) === replicasOf(d) &&
    (s.replicas ?? 0) === replicasOf(d) &&
    (s.availableReplicas ?? 0) === replicasOf(d) &&
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
  const progressing = (d: KObject, s: DeploymentStatus) => {
    const o = dStatus(d);
    return (
      (s.updatedReplicas ?? 0) > (o.updatedReplicas ?? 0) ||
      (s.replicas ?? 0) - (s.updatedReplicas ?? 0) < (o.replicas ?? 0) - (o.updatedReplicas ?? 0) ||
      (s.readyReplicas ?? 0) > (o.readyReplicas ?? 0) ||
      (s.availableReplicas ?? 0) > (o.availableReplicas ?? 0)
    );
  };
  const timedOut = (d: KObject, s: DeploymentStatus): boolean => {
    const c = getCondition(s, 'Progressing');
    if (!c || !hasDeadline(d)) return false;
    if (c.reason === 'ProgressDeadlineExceeded') return true;
    if (c.reason === 'NewReplicaSetAvailable') return false;
    const from = Date.parse(c.lastUpdateTime ?? '') || 0;
    return from + specOf(d).progressDeadlineSeconds! * 1000 < env.now();
  };

  /** Kubernetes' syncDeploymentStatus: the status of the ReplicaSets, written when it differs. */
  const syncStatus = async (all: KObject[], newRS: KObject | undefined, d: KObject): Promise<void> => {
    const status = calculateStatus(all, newRS, d);
    if (!deepEqual(compact(status), compact(dStatus(d)))) await writeStatus(d, status);
  };

  /** Kubernetes' syncRolloutStatus: the status and the Progressing and ReplicaFailure conditions. */
  const syncRolloutStatus = async (all: KObject[], newRS: KObject | undefined, d: KObject): Promise<void> => {
    const status = calculateStatus(all, newRS, d);
    if (!hasDeadline(d)) removeCondition(status, 'Progressing');
    const cur = getCondition(dStatus(d), 'Progressing');
    const done = status.replicas === status.updatedReplicas && cur?.reason === 'NewReplicaSetAvailable';
    const now = env.now();
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
      } else if (timedOut(d, status)) {
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
      requeueStuck(d, status);
      return;
    }
    await writeStatus(d, status);
  };

  /** A Deployment still progressing is looked at again when its deadline passes. */
  const requeueStuck = (d: KObject, s: DeploymentStatus) => {
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
    queue.addAfter(keyOf(d), Math.max(at - env.now(), 0) + 1000);
  };

  /** Kubernetes' scale: a change of spec.replicas reaches the ReplicaSets. */
  const scale = async (d: KObject, newRS: KObject | undefined, oldRSs: KObject[]): Promise<void> => {
    const byNewest = [...oldRSs].sort((a, b) => byCreation(b, a));
    const active = [...byNewest, ...(newRS ? [newRS] : [])].filter((rs) => rsReplicas(rs) > 0);
    const target = replicasOf(d);
    if (active.length <= 1) {
      const one = active[0] ?? newRS ?? byNewest[0];
      if (one && rsReplicas(one) !== target) await scaleReplicaSet(one, target, d);
      return;
    }
    const saturated =
      newRS &&
      newRS.metadata.annotations?.[DESIRED_REPLICAS] === String(target) &&
      rsReplicas(newRS) === target &&
      (rsStatus(newRS).availableReplicas ?? 0) === target;
    if (saturated) {
      for (const old of oldRSs.filter((rs) => rsReplicas(rs) > 0)) await scaleReplicaSet(old, 0, d);
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
        const base =
          Number.isSafeInteger(annotated) && annotated > 0 ? annotated : (dStatus(d).replicas ?? 0);
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
      await scaleReplicaSet(rs, size, d);
    }
  };

  /** Old ReplicaSets without pods beyond revisionHistoryLimit go, oldest first (Kubernetes' cleanupDeployment). */
  const cleanup = async (oldRSs: KObject[], d: KObject): Promise<void> => {
    const limit = specOf(d).revisionHistoryLimit ?? 10;
    const candidates = oldRSs
      .filter((rs) => !rs.metadata.deletionTimestamp)
      .sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    let excess = candidates.length - limit;
    for (const rs of candidates) {
      if (excess <= 0) break;
      const st = rsStatus(rs);
      if (
        rsReplicas(rs) !== 0 ||
        (st.replicas ?? 0) !== 0 ||
        (st.observedGeneration ?? 0) < (rs.metadata.generation ?? 0)
      )
        continue;
      try {
        await client.delete(
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
  };

  const rolloutRolling = async (ctx: { d: KObject }, rss: KObject[]): Promise<void> => {
    const { newRS, oldRSs } = await newReplicaSet(ctx, rss, true);
    const d = ctx.d;
    const all = [...oldRSs, ...(newRS ? [newRS] : [])];
    // the new ReplicaSet grows within maxSurge
    if (newRS) {
      const want = rsReplicas(newRS) > replicasOf(d) ? replicasOf(d) : newReplicas(d, all, newRS);
      if (want !== rsReplicas(newRS)) {
        const scaled = await scaleReplicaSet(newRS, want, d);
        return syncRolloutStatus(
          all.map((rs) => (rs === newRS ? scaled : rs)),
          scaled,
          d,
        );
      }
    }
    // the old ones shrink within maxUnavailable
    if (
      await reconcileOld(
        all,
        oldRSs.filter((rs) => rsReplicas(rs) > 0),
        newRS,
        d,
      )
    )
      return syncRolloutStatus(
        all.map((rs) => client.get('apps', 'replicasets', rs.metadata.namespace!, rs.metadata.name!) ?? rs),
        newRS,
        d,
      );
    if (complete(d, dStatus(d))) await cleanup(oldRSs, d);
    await syncRolloutStatus(all, newRS, d);
  };

  /** Kubernetes' reconcileOldReplicaSets: whether an old ReplicaSet was scaled down. */
  const reconcileOld = async (
    all: KObject[],
    oldActive: KObject[],
    newRS: KObject | undefined,
    d: KObject,
  ): Promise<boolean> => {
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
      kept.push(await scaleReplicaSet(rs, rsReplicas(rs) - down, d));
      cleaned += down;
    }
    // then available pods, as far as availability allows
    const availableNow = sum(
      [...kept, ...(newRS ? [newRS] : [])],
      (rs) => rsStatus(rs).availableReplicas ?? 0,
    );
    let scaledDown = 0;
    if (availableNow > minAvailable) {
      const total = availableNow - minAvailable;
      for (const rs of kept.sort(byCreation)) {
        if (scaledDown >= total) break;
        if (rsReplicas(rs) === 0) continue;
        const down = Math.min(rsReplicas(rs), total - scaledDown);
        await scaleReplicaSet(rs, rsReplicas(rs) - down, d);
        scaledDown += down;
      }
    }
    return cleaned + scaledDown > 0;
  };

  const rolloutRecreate = async (ctx: { d: KObject }, rss: KObject[]): Promise<void> => {
    let { newRS, oldRSs } = await newReplicaSet(ctx, rss, false);
    const d = ctx.d;
    let all = [...oldRSs, ...(newRS ? [newRS] : [])];
    const oldActive = oldRSs.filter((rs) => rsReplicas(rs) > 0);
    if (oldActive.length) {
      for (const rs of oldActive) await scaleReplicaSet(rs, 0, d);
      return syncRolloutStatus(all, newRS, d);
    }
    // the new pods wait until no old pod runs
    const oldUids = new Set(oldRSs.map((rs) => rs.metadata.uid));
    const oldPodsLeft =
      sum(oldRSs, (rs) => rsStatus(rs).replicas ?? 0) > 0 ||
      inNamespace(pods, d.metadata.namespace!).some((p) => {
        const ref = controllerRefOf(p);
        const phase = (p.status as { phase?: string } | undefined)?.phase;
        return !!ref && oldUids.has(ref.uid) && phase !== 'Succeeded' && phase !== 'Failed';
      });
    if (oldPodsLeft) return syncRolloutStatus(all, newRS, d);
    if (!newRS) {
      ({ newRS, oldRSs } = await newReplicaSet(ctx, rss, true));
      all = [...oldRSs, ...(newRS ? [newRS] : [])];
    }
    if (newRS && rsReplicas(newRS) !== replicasOf(ctx.d)) {
      const scaled = await scaleReplicaSet(newRS, replicasOf(ctx.d), ctx.d);
      return syncRolloutStatus(
        all.map((rs) => (rs === newRS ? scaled : rs)),
        scaled,
        ctx.d,
      );
    }
    if (complete(ctx.d, dStatus(ctx.d))) await cleanup(oldRSs, ctx.d);
    await syncRolloutStatus(all, newRS, ctx.d);
  };

  /** Kubernetes' checkPausedConditions: Progressing says Unknown while paused, and when resumed. */
  const pausedConditions = async (ctx: { d: KObject }): Promise<void> => {
    const d = ctx.d;
    if (!hasDeadline(d)) return;
    const cur = getCondition(dStatus(d), 'Progressing');
    if (cur?.reason === 'ProgressDeadlineExceeded') return;
    const paused = !!specOf(d).paused;
    const pausedCond = cur?.reason === 'DeploymentPaused';
    let c: Condition | undefined;
    if (paused && !pausedCond)
      c = condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused', env.now());
    else if (!paused && pausedCond)
      c = condition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed', env.now());
    if (!c) return;
    const status = structuredClone(dStatus(d));
    setCondition(status, c);
    ctx.d = await writeStatus(d, status);
  };

  const sync = async (key: string): Promise<void> => {
    const cached = deployments?.cache.get(key);
    if (!cached) return;
    const ctx = { d: structuredClone(cached) };
    const rss = await claimReplicaSets(ctx.d);
    if (ctx.d.metadata.deletionTimestamp) {
      const { newRS, oldRSs } = await newReplicaSet(ctx, rss, false);
      return syncStatus([...oldRSs, ...(newRS ? [newRS] : [])], newRS, ctx.d);
    }
    await pausedConditions(ctx);
    const scaling = async () => {
      const { newRS, oldRSs } = await newReplicaSet(ctx, rss, false);
      await scale(ctx.d, newRS, oldRSs);
      if (specOf(ctx.d).paused) await cleanup(oldRSs, ctx.d);
      const fresh = [...oldRSs, ...(newRS ? [newRS] : [])].map(
        (rs) => client.get('apps', 'replicasets', rs.metadata.namespace!, rs.metadata.name!) ?? rs,
      );
      const fn = newRS ? fresh.find((rs) => rs.metadata.uid === newRS.metadata.uid) : undefined;
      await syncStatus(fresh, fn, ctx.d);
    };
    if (specOf(ctx.d).paused) return scaling();
    const desired = String(replicasOf(ctx.d));
    const scalingEvent = rss.some((rs) => {
      const a = rs.metadata.annotations?.[DESIRED_REPLICAS];
      return rsReplicas(rs) > 0 && a !== undefined && a !== desired;
    });
    if (scalingEvent) return scaling();
    if (isRolling(ctx.d)) return rolloutRolling(ctx, rss);
    return rolloutRecreate(ctx, rss);
  };

  const queue = new WorkQueue('deployment controller', sync);
  deployments = inform(env.registry, 'apps', 'deployments', (ev) => queue.add(keyOf(ev.obj)));
  replicaSets = inform(env.registry, 'apps', 'replicasets', (ev) => {
    const keys = new Set(deploymentsFor(ev.obj));
    if (ev.prev) for (const k of deploymentsFor(ev.prev)) keys.add(k);
    for (const k of keys) queue.add(k);
  });
  // a Recreate rollout waits for the old pods to go
  pods = inform(env.registry, '', 'pods', (ev) => {
    if (ev.type !== 'DELETED' && isActive(ev.obj)) return;
    const ref = controllerRefOf(ev.obj);
    const rs =
      ref?.kind === 'ReplicaSet'
        ? replicaSets?.cache.get(`${ev.obj.metadata.namespace}/${ref.name}`)
        : undefined;
    if (rs) for (const k of deploymentsFor(rs)) queue.add(k);
  });
  return {
    stop() {
      queue.stop();
      deployments?.stop();
      replicaSets?.stop();
      pods?.stop();
    },
  };
}
