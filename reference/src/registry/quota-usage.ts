// What an object counts against a resource quota, and which quotas it counts against: object
// counts (`count/<resource>[.<group>]` and the short names of the core kinds), a pod's compute
// requests and limits, a claim's storage (in total and per storage class), a service's node
// ports and load balancers; scopes (Terminating, BestEffort, PriorityClass, ...) apply to pods.

import { formatNanos, isBinary, nanosOf } from '../schema/quantity-math.ts';
import type { KObject } from '../storage/types.ts';
import type { ResourceQuota, ScopedRequirement } from './kinds/resourcequota.ts';
import { containersOf, podSpecOf, podTotals, type ResourceList } from './pod-resources.ts';
import type { Registry } from './registry.ts';

export interface Usage {
  [resource: string]: { n: bigint; bin: boolean };
}

const LEGACY: Record<string, string> = {
  pods: 'pods',
  services: 'services',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
  secrets: 'secrets',
  configmaps: 'configmaps',
  persistentvolumeclaims: 'persistentvolumeclaims',
};

const STORAGE_CLASS_GROUP = 'storageclass.storage.orch.io';
/** Compute resources of pods a quota may name, with the request or limit they read. */
const POD_COMPUTE: Record<string, ['requests' | 'limits', string]> = {
  cpu: ['requests', 'cpu'],
  memory: ['requests', 'memory'],
  'ephemeral-storage': ['requests', 'ephemeral-storage'],
  'requests.cpu': ['requests', 'cpu'],
  'requests.memory': ['requests', 'memory'],
  'requests.ephemeral-storage': ['requests', 'ephemeral-storage'],
  'limits.cpu': ['limits', 'cpu'],
  'limits.memory': ['limits', 'memory'],
  'limits.ephemeral-storage': ['limits', 'ephemeral-storage'],
};
/** The compute resources every container must set once a quota limits them. */
export const MUST_SPECIFY = [
  'cpu',
  'limits.cpu',
  'limits.memory',
  'memory',
  'requests.cpu',
  'requests.memory',
];

const one = { n: 1_000_000_000n, bin: false };

export function countName(group: string, plural: string): string {
  return group ? `count/${plural}.${group}` : `count/${plural}`;
}

const terminal = (o: KObject) => {
  const phase = (o.status as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
};

function podUsage(o: KObject, out: Usage): void {
  if (terminal(o)) return;
  out.pods = one;
  const spec = podSpecOf(o);
  const totals = { requests: podTotals(spec, 'requests'), limits: podTotals(spec, 'limits') };
  for (const [name, [which, res]] of Object.entries(POD_COMPUTE)) {
    const v = totals[which][res];
    if (v !== undefined) out[name] = { n: nanosOf(v) ?? 0n, bin: isBinary(v) };
  }
  // extended resources count by their requests
  for (const [res, v] of Object.entries(totals.requests))
    if (!['cpu', 'memory', 'ephemeral-storage'].includes(res))
      out[`requests.${res}`] = { n: nanosOf(v) ?? 0n, bin: isBinary(v) };
}

function claimUsage(o: KObject, out: Usage): void {
  out.persistentvolumeclaims = one;
  const spec = (o.spec ?? {}) as { storageClassName?: string; resources?: { requests?: ResourceList } };
  const storage = spec.resources?.requests?.storage;
  const size = storage === undefined ? undefined : { n: nanosOf(storage) ?? 0n, bin: isBinary(storage) };
  if (size) out['requests.storage'] = size;
  if (spec.storageClassName) {
    out[`${spec.storageClassName}.${STORAGE_CLASS_GROUP}/persistentvolumeclaims`] = one;
    if (size) out[`${spec.storageClassName}.${STORAGE_CLASS_GROUP}/requests.storage`] = size;
  }
}

function serviceUsage(o: KObject, out: Usage): void {
  out.services = one;
  const spec = (o.spec ?? {}) as { type?: string; ports?: unknown[] };
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer')
    out['services.nodeports'] = { n: BigInt(spec.ports?.length ?? 0) * 1_000_000_000n, bin: false };
  if (spec.type === 'LoadBalancer') out['services.loadbalancers'] = one;
}

/** Everything an object of a resource counts (before masking by a quota's hard limits). */
export function usageOf(group: string, plural: string, o: KObject): Usage {
  const out: Usage = { [countName(group, plural)]: one };
  if (group !== '') return out;
  if (plural === 'pods') podUsage(o, out);
  else if (plural === 'persistentvolumeclaims') claimUsage(o, out);
  else if (plural === 'services') serviceUsage(o, out);
  else if (LEGACY[plural]) out[LEGACY[plural]!] = one;
  return out;
}

/** The resource whose objects a quota's hard entry counts. */
export function resourceOfHard(key: string): { group: string; plural: string } | undefined {
  if (key.startsWith('count/')) {
    const rest = key.slice('count/'.length);
    const dot = rest.indexOf('.');
    return dot < 0
      ? { group: '', plural: rest }
      : { group: rest.slice(dot + 1).replace(/\.k8s\.io$/, '.orch.io'), plural: rest.slice(0, dot) };
  }
  if (LEGACY[key]) return { group: '', plural: key };
  if (key.startsWith('services.')) return { group: '', plural: 'services' };
  if (key === 'requests.storage' || key.includes(`.${STORAGE_CLASS_GROUP}/`))
    return { group: '', plural: 'persistentvolumeclaims' };
  return { group: '', plural: 'pods' };
}

function bestEffort(o: KObject): boolean {
  return containersOf(podSpecOf(o)).every((c) => {
    const r = c.resources ?? {};
    return !['cpu', 'memory'].some((k) => r.requests?.[k] !== undefined || r.limits?.[k] !== undefined);
  });
}

/** A pod affinity term that looks beyond the pod's namespace: it names namespaces or selects them. */
const crossNamespaceTerm = (t: any) =>
  (Array.isArray(t?.namespaces) && t.namespaces.length > 0) ||
  (t?.namespaceSelector !== undefined && t?.namespaceSelector !== null);

/** Whether a pod's affinity or anti-affinity has such a term, required or preferred (1.28's quota evaluator). */
function usesCrossNamespacePodAffinity(spec: any): boolean {
  for (const a of [spec?.affinity?.podAffinity, spec?.affinity?.podAntiAffinity]) {
    if (!a) continue;
    if ((a.requiredDuringSchedulingIgnoredDuringExecution ?? []).some(crossNamespaceTerm)) return true;
    if (
      (a.preferredDuringSchedulingIgnoredDuringExecution ?? []).some((w: any) =>
        crossNamespaceTerm(w?.podAffinityTerm),
      )
    )
      return true;
  }
  return false;
}

function scopeMatches(req: ScopedRequirement, o: KObject): boolean {
  const spec = podSpecOf(o);
  switch (req.scopeName) {
    case 'Terminating':
      return typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;
    case 'NotTerminating':
      return !(typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0);
    case 'BestEffort':
      return bestEffort(o);
    case 'NotBestEffort':
      return !bestEffort(o);
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespacePodAffinity(spec);
    case 'PriorityClass': {
      const name = spec.priorityClassName;
      const values = req.values ?? [];
      switch (req.operator) {
        case 'In':
          return name !== undefined && values.includes(name);
        case 'NotIn':
          return name !== undefined && !values.includes(name);
        case 'DoesNotExist':
          return !name;
        default:
          return !!name;
      }
    }
    default:
      return false;
  }
}

/** The scopes of a quota (its `scopes` and its selector's expressions), as requirements. */
function requirementsOf(q: ResourceQuota): ScopedRequirement[] {
  return [
    ...(q.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' })),
    ...(q.spec?.scopeSelector?.matchExpressions ?? []),
  ];
}

/** Whether a quota counts an object: unscoped quotas count everything; scoped ones only pods in scope. */
export function quotaMatches(q: ResourceQuota, group: string, plural: string, o: KObject): boolean {
  const reqs = requirementsOf(q);
  if (!reqs.length) return true;
  if (group !== '' || plural !== 'pods') return false;
  return reqs.every((r) => scopeMatches(r, o));
}

export function addUsage(acc: Usage, u: Usage, sign = 1n): void {
  for (const [k, v] of Object.entries(u)) {
    const cur = acc[k] ?? { n: 0n, bin: false };
    acc[k] = { n: cur.n + sign * v.n, bin: cur.bin || v.bin };
  }
}

/** A usage as a resource list over the given names (zeros included), quantities as Kubernetes prints them. */
export function toList(u: Usage, names: string[], hard: ResourceList = {}): ResourceList {
  return Object.fromEntries(
    names.map((k) => {
      const v = u[k];
      const bin = (v?.bin ?? false) || isBinary(hard[k]);
      return [k, formatNanos(v && v.n > 0n ? v.n : 0n, bin)];
    }),
  );
}

/** `a=1,b=2Gi` (keys sorted), as the quota refusal prints resource lists. */
export function prettyPrint(l: ResourceList): string {
  return Object.keys(l)
    .sort()
    .map((k) => `${k}=${l[k]}`)
    .join(',');
}

/** A quota's hard limits. */
export const hardOf = (q: ResourceQuota): ResourceList => q.spec?.hard ?? {};

/**
 * A quota's usage in a namespace, counted from the stored objects (skipping `skip`, the object
 * being written). `lists` holds the namespace's objects by resource as they are listed, so the
 * quotas of one namespace counted with the same map list each resource once.
 */
export async function countUsage(
  registry: Registry,
  q: ResourceQuota,
  namespace: string,
  skip?: string,
  lists: Map<string, KObject[]> = new Map(),
): Promise<Usage> {
  const acc: Usage = {};
  const names = Object.keys(hardOf(q));
  const resources = new Map<string, { group: string; plural: string }>();
  for (const k of names) {
    const r = resourceOfHard(k);
    if (r) resources.set(`${r.group}/${r.plural}`, r);
  }
  for (const [key, r] of resources) {
    const served = registry.byResource(r.group, r.plural);
    if (!served?.def.namespaced) continue;
    let items = lists.get(key);
    if (!items) {
      items = (await served.store.list(namespace, {})).items;
      lists.set(key, items);
    }
    for (const o of items) {
      if (skip && `${r.group}/${r.plural}/${o.metadata.name}` === skip) continue;
      if (quotaMatches(q, r.group, r.plural, o)) addUsage(acc, usageOf(r.group, r.plural, o));
    }
  }
  return acc;
}
