// What the workload controllers read of pods and how they make them (Kubernetes' controller
// utilities): active and ready pods, the controller reference, a pod from a template, and the
// order in which surplus pods are deleted.
import { type LabelSelectorObj, selectorMatches } from '../registry/kinds/common.ts';
import type { KObject } from '../storage/types.ts';
import { type ControllerClient, isNotFound } from './client.ts';
import type { OwnerReference } from './garbage-collector.ts';

interface PodStatus {
  phase?: string;
  conditions?: { type?: string; status?: string; lastTransitionTime?: string }[];
}
const statusOf = (p: KObject) => (p.status ?? {}) as PodStatus;

/** Not finished and not being deleted (Kubernetes' FilterActivePods). */
export function isActive(p: KObject): boolean {
  const phase = statusOf(p).phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !p.metadata.deletionTimestamp;
}

const readyCondition = (p: KObject) => statusOf(p).conditions?.find((c) => c.type === 'Ready');

export function isReady(p: KObject): boolean {
  return readyCondition(p)?.status === 'True';
}

/** Ready for at least `minReadySeconds` (Kubernetes' IsPodAvailable). */
export function isAvailable(p: KObject, minReadySeconds: number, now: number): boolean {
  const c = readyCondition(p);
  if (c?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : Number.NaN;
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= now;
}

/** The owner reference that says `controller: true`, if any. */
export function controllerRefOf(o: KObject): OwnerReference | undefined {
  return ((o.metadata.ownerReferences ?? []) as OwnerReference[]).find((r) => r?.controller === true);
}

/** The reference a controller puts on what it makes. */
export function controllerRef(owner: KObject, apiVersion: string, kind: string): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

interface Template {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] };
  spec?: unknown;
}

/** The name prefix of what a controller makes (Kubernetes' getPodsPrefix): `<name>-`. */
export const namePrefix = (name: string): string => `${name}-`;

/** A pod made from a template, owned by `ref` (Kubernetes' GetPodFromTemplate). */
export function podFromTemplate(template: Template, namespace: string, ref: OwnerReference): KObject {
  const m = template.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: namePrefix(ref.name),
      namespace,
      ...(m.labels ? { labels: { ...m.labels } } : {}),
      ...(m.annotations ? { annotations: { ...m.annotations } } : {}),
      ...(m.finalizers ? { finalizers: [...m.finalizers] } : {}),
      ownerReferences: [ref],
    },
    spec: structuredClone(template.spec ?? {}),
  };
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * The order surplus pods go in (Kubernetes' ActivePods ranking): not yet on a node before
 * placed, pending before unknown before running, not ready before ready, newer before older.
 */
export function deletionOrder(a: KObject, b: KObject): number {
  const node = (p: KObject) => ((p.spec as { nodeName?: string } | undefined)?.nodeName ? 1 : 0);
  if (node(a) !== node(b)) return node(a) - node(b);
  const phase = (p: KObject) => PHASE_RANK[statusOf(p).phase ?? ''] ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  const ready = (p: KObject) => (isReady(p) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  const created = (p: KObject) => Date.parse(p.metadata.creationTimestamp ?? '') || 0;
  return created(b) - created(a);
}

/**
 * Writes `obj` with `ref` as its controller reference (replacing any reference with the same
 * uid), or without the reference whose uid is `drop` when `ref` is undefined (Kubernetes'
 * adopt and release); undefined when the object is gone.
 */
async function writeControllerRef(
  client: ControllerClient,
  group: string,
  plural: string,
  obj: KObject,
  ref: OwnerReference | undefined,
  drop?: string,
): Promise<KObject | undefined> {
  const next = structuredClone(obj);
  const others = ((next.metadata.ownerReferences ?? []) as { uid: string }[]).filter(
    (r) => r.uid !== (ref?.uid ?? drop),
  );
  const owners = ref ? [...others, ref] : others;
  if (owners.length) next.metadata.ownerReferences = owners;
  else delete next.metadata.ownerReferences;
  try {
    return await client.update(group, plural, next);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** A controller (its resource and kind) and the resource of what it owns. */
export interface Ownership {
  owner: { group: string; plural: string; apiVersion: string; kind: string };
  owned: { group: string; plural: string };
}

/**
 * The candidates `owner` controls (Kubernetes' ClaimPods and ClaimReplicaSets): its own that its
 * selector matches; orphans it matches, adopted while the owner is still this one and not being
 * deleted; its own that no longer match are released.
 */
export async function claimOwned(
  client: ControllerClient,
  owner: KObject,
  selector: LabelSelectorObj | undefined,
  candidates: KObject[],
  o: Ownership,
): Promise<KObject[]> {
  const mine: KObject[] = [];
  for (const c of candidates) {
    const ref = controllerRefOf(c);
    const matches = selectorMatches(selector, c.metadata.labels);
    if (ref) {
      if (ref.uid !== owner.metadata.uid) continue;
      if (matches) mine.push(c);
      else if (!owner.metadata.deletionTimestamp)
        await writeControllerRef(client, o.owned.group, o.owned.plural, c, undefined, ref.uid);
      continue;
    }
    if (!matches || owner.metadata.deletionTimestamp || c.metadata.deletionTimestamp) continue;
    // adopt only for the owner that still is this one
    const fresh = client.get(o.owner.group, o.owner.plural, owner.metadata.namespace!, owner.metadata.name!);
    if (!fresh || fresh.metadata.uid !== owner.metadata.uid || fresh.metadata.deletionTimestamp) continue;
    const adopted = await writeControllerRef(
      client,
      o.owned.group,
      o.owned.plural,
      c,
      controllerRef(owner, o.owner.apiVersion, o.owner.kind),
    );
    if (adopted) mine.push(adopted);
  }
  return mine;
}
