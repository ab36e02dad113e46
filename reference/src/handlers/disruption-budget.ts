// What an eviction asks of the pod's PodDisruptionBudget, as Kubernetes 1.28's eviction does:
// a pod that is pending, finished or already being deleted goes without asking; a pod covered
// by no budget goes; by more than one, the eviction fails (500); by one, the budget must allow
// a disruption (its status was observed for its generation and `disruptionsAllowed` is
// positive), which the eviction spends: the count goes down by one and the pod is recorded in
// `disruptedPods` (nothing is written for a dry run). An unready pod goes without spending
// when the budget says `AlwaysAllow`, or when the application is healthy anyway. policy/v1's
// rule applies: an empty selector covers every pod of the namespace, an unset one none.
import { errors, StatusError, type Status } from '../errors/status.ts';
import { pdbSpecOf, pdbStatusOf, type PdbStatus, selectsPod } from '../registry/kinds/poddisruptionbudget.ts';
import type { RequestContext } from '../registry/types.ts';
import type { KObject } from '../storage/types.ts';
import type { Scope } from './scope.ts';

/** The most pods a budget may hold as disrupted before the eviction refuses (1.28's MaxDisruptedPodSize). */
const MAX_DISRUPTED_PODS = 2000;
const ATTEMPTS = 20;

/** The budget's writes are the server's own (the eviction's requester may not write budgets). */
const SERVER: RequestContext = {
  user: { username: 'system:apiserver', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
};

interface PodView {
  metadata: KObject['metadata'];
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}

function canIgnoreBudget(pod: PodView): boolean {
  const phase = pod.status?.phase;
  return (
    phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp
  );
}

const isReady = (pod: PodView) =>
  (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

function tooManyRequests(retryAfterSeconds: number, cause: string): StatusError {
  return new StatusError(
    429,
    'TooManyRequests',
    "Cannot evict pod as it would violate the pod's disruption budget.",
    {
      ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
      causes: [{ reason: 'DisruptionBudget', message: cause }],
    },
    retryAfterSeconds ? { 'retry-after': String(retryAfterSeconds) } : undefined,
  );
}

const forbidden = (name: string, why: string) =>
  errors.forbidden(`poddisruptionbudget.policy "${name}" is forbidden: ${why}`, {
    name,
    group: 'policy',
    kind: 'poddisruptionbudget',
  });

/** The DisruptionAllowed condition as the budget's count now says (1.28's UpdateDisruptionAllowedCondition). */
function setAllowedCondition(st: PdbStatus, now: string): void {
  const allowed = (st.disruptionsAllowed ?? 0) > 0;
  const next = {
    type: 'DisruptionAllowed',
    status: allowed ? 'True' : 'False',
    reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '',
    observedGeneration: st.observedGeneration ?? 0,
  };
  const conditions = [...(st.conditions ?? [])];
  const i = conditions.findIndex((c) => c.type === next.type);
  const prev = conditions[i];
  const lastTransitionTime = prev && prev.status === next.status ? (prev.lastTransitionTime ?? now) : now;
  const c = { ...(prev ?? {}), ...next, message: prev?.message ?? '', lastTransitionTime };
  if (i < 0) conditions.push(c);
  else conditions[i] = c;
  st.conditions = conditions;
}

/**
 * Checks (and spends) the budget covering the pod of an eviction: undefined when the pod may
 * go; a Status to answer with when the eviction fails without an error (several budgets);
 * throws the 429 or 403 of a budget that refuses.
 */
export async function checkDisruptionBudget(s: Scope): Promise<(Status & { code: number }) | undefined> {
  const pod = s.store.getStored(s.namespace, s.name)?.obj as PodView | undefined;
  if (!pod || canIgnoreBudget(pod)) return undefined;
  const budgets = s.registry.byResource('policy', 'poddisruptionbudgets')?.store;
  if (!budgets) return undefined;
  const covering = (await budgets.list(s.namespace, {})).items.filter((b) =>
    selectsPod(b, pod.metadata.labels),
  );
  if (covering.length === 0) return undefined;
  if (covering.length > 1)
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      code: 500,
    };
  const name = covering[0]!.metadata.name!;
  if (!isReady(pod)) {
    const b = covering[0]!;
    if (pdbSpecOf(b).unhealthyPodEvictionPolicy === 'AlwaysAllow') return undefined;
    const st = pdbStatusOf(b);
    if ((st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0) && (st.desiredHealthy ?? 0) > 0)
      return undefined;
  }
  for (let attempt = 0; ; attempt++) {
    const cur = budgets.getStored(s.namespace, name);
    if (!cur) throw errors.notFound('policy', 'poddisruptionbudgets', name);
    const b = structuredClone(cur.obj);
    const st = pdbStatusOf(b);
    if ((st.observedGeneration ?? 0) < (b.metadata.generation ?? 0))
      throw tooManyRequests(10, `The disruption budget ${name} is still being processed by the server.`);
    if ((st.disruptionsAllowed ?? 0) < 0) throw forbidden(name, 'pdb disruptions allowed is negative');
    if (Object.keys(st.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS)
      throw forbidden(name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
    if ((st.disruptionsAllowed ?? 0) === 0)
      throw tooManyRequests(
        0,
        `The disruption budget ${name} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`,
      );
    if (s.ctx.dryRun) return undefined;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    st.disruptionsAllowed = (st.disruptionsAllowed ?? 0) - 1;
    if (st.disruptionsAllowed === 0) setAllowedCondition(st, now);
    st.disruptedPods = { ...(st.disruptedPods ?? {}), [s.name]: now };
    b.status = st;
    try {
      await budgets.update(s.namespace, name, b, SERVER, 'v1', 'status', { expectRv: cur.rv });
      return undefined;
    } catch (e) {
      // another writer changed the budget: look again
      if (e instanceof StatusError && e.code === 409 && attempt < ATTEMPTS) continue;
      throw e;
    }
  }
}
