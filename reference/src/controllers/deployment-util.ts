// What the deployment controller's parts share: its state, the Deployment and ReplicaSet
// shapes, the annotations it writes, int-or-percent fenceposts and conditions.
import type { LabelSelectorObj } from '../registry/kinds/common.ts';
import type { KObject } from '../storage/types.ts';
import { rfc3339 } from '../util/time.ts';
import type { ControllerClient, ControllerEnv } from './client.ts';
import type { Informer } from './informer.ts';
import type { Condition } from './replicaset.ts';
import type { WorkQueue } from './work-queue.ts';

export const REVISION = 'deployment.orch.io/revision';
export const REVISION_HISTORY = 'deployment.orch.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.orch.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.orch.io/max-replicas';
export const TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** Deployment annotations never copied to its ReplicaSets (Kubernetes' annotationsToSkip). */
export const NOT_COPIED = new Set([
  'kubectl.orch.io/last-applied-configuration',
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);
export const MAX_REVISION_HISTORY_CHARS = 2000;
const NO_DEADLINE = 2 ** 31 - 1;

export interface Template {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: unknown;
}

export interface DeploymentSpec {
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

export interface DeploymentStatus {
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

export const specOf = (o: KObject) => (o.spec ?? {}) as DeploymentSpec;
export const dStatus = (o: KObject) => (o.status ?? {}) as DeploymentStatus;
export const rsSpec = (o: KObject) => (o.spec ?? {}) as DeploymentSpec;
export const rsStatus = (o: KObject) => (o.status ?? {}) as RsStatus;
export const replicasOf = (o: KObject) => specOf(o).replicas ?? 1;
export const rsReplicas = (rs: KObject) => rsSpec(rs).replicas ?? 1;
export const revisionOf = (o: KObject): number => {
  const n = Number(o.metadata.annotations?.[REVISION] ?? '');
  return Number.isSafeInteger(n) ? n : 0;
};
const created = (o: KObject) => Date.parse(o.metadata.creationTimestamp ?? '') || 0;
export const byCreation = (a: KObject, b: KObject) =>
  created(a) - created(b) || (a.metadata.name! < b.metadata.name! ? -1 : 1);
export const sum = (rss: KObject[], f: (rs: KObject) => number) => rss.reduce((n, rs) => n + f(rs), 0);

/** An int-or-percent of `total`, rounded up or down (Kubernetes' GetScaledValueFromIntOrPercent). */
function scaled(v: number | string | undefined, fallback: string, total: number, up: boolean): number {
  const x = v ?? fallback;
  if (typeof x === 'number') return x;
  const pct = Number.parseInt(x, 10);
  if (!Number.isFinite(pct)) return 0;
  return up ? Math.ceil((pct * total) / 100) : Math.floor((pct * total) / 100);
}

export const isRolling = (d: KObject) => (specOf(d).strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
/** maxSurge and maxUnavailable resolved (Kubernetes' ResolveFenceposts: both 0 makes maxUnavailable 1). */
function fenceposts(d: KObject): { surge: number; unavailable: number } {
  const ru = specOf(d).strategy?.rollingUpdate ?? {};
  const desired = replicasOf(d);
  const surge = scaled(ru.maxSurge, '25%', desired, true);
  const unavailable = scaled(ru.maxUnavailable, '25%', desired, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

export const maxSurge = (d: KObject) => (isRolling(d) ? fenceposts(d).surge : 0);
export function maxUnavailable(d: KObject): number {
  if (!isRolling(d) || replicasOf(d) === 0) return 0;
  return Math.min(fenceposts(d).unavailable, replicasOf(d));
}

export const hasDeadline = (d: KObject) => (specOf(d).progressDeadlineSeconds ?? NO_DEADLINE) !== NO_DEADLINE;

/** The template without the hash label (Kubernetes' EqualIgnoreHash). */
export function withoutHash(t: Template | undefined): Template {
  const c = structuredClone(t ?? {});
  if (c.metadata?.labels) {
    delete c.metadata.labels[TEMPLATE_HASH_LABEL];
    if (!Object.keys(c.metadata.labels).length) delete c.metadata.labels;
  }
  return c;
}

export function condition(
  type: string,
  status: string,
  reason: string,
  message: string,
  now: number,
): Condition {
  const t = rfc3339(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/** Kubernetes' SetDeploymentCondition: the same status and reason change nothing; the same status keeps its transition time; the condition goes last. */
export function setCondition(s: DeploymentStatus, c: Condition): void {
  const cur = s.conditions?.find((x) => x.type === c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return;
  if (cur && cur.status === c.status) c.lastTransitionTime = cur.lastTransitionTime;
  s.conditions = [...(s.conditions ?? []).filter((x) => x.type !== c.type), c];
}

export function removeCondition(s: DeploymentStatus, type: string): void {
  if (s.conditions) s.conditions = s.conditions.filter((x) => x.type !== type);
}

export const getCondition = (s: DeploymentStatus, type: string) => s.conditions?.find((c) => c.type === type);

/** The status without zeros and empty lists (every field of 1.28's DeploymentStatus is omitempty). */
export function compact(s: DeploymentStatus): DeploymentStatus {
  const out: DeploymentStatus = {};
  for (const [k, v] of Object.entries(s) as [keyof DeploymentStatus, unknown][]) {
    if (v === 0 || v === undefined || (Array.isArray(v) && !v.length)) continue;
    (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** The controller's state, shared by its parts. */
export interface DeploymentState {
  env: ControllerEnv;
  client: ControllerClient;
  deployments?: Informer;
  replicaSets?: Informer;
  pods?: Informer;
  queue: WorkQueue;
}

export const inNamespace = (i: Informer | undefined, ns: string) =>
  [...(i?.cache.values() ?? [])].filter((o) => o.metadata.namespace === ns);

export const writeStatus = async (
  st: DeploymentState,
  d: KObject,
  status: DeploymentStatus,
): Promise<KObject> =>
  st.client.update('apps', 'deployments', { ...d, status: compact(status) }, 'v1', 'status');
