// The resources a pod asks for as a whole, as Kubernetes adds them up: the sum over its
// containers, at least the largest init container's, plus the pod's overhead.
import { formatNanos, isBinary, nanosOf } from '../schema/quantity-math.ts';
import type { KObject } from '../storage/types.ts';

export type ResourceList = Record<string, string>;

export interface ContainerResources {
  name?: string;
  resources?: { requests?: ResourceList; limits?: ResourceList };
}

export interface PodResourcesSpec {
  containers?: ContainerResources[];
  initContainers?: ContainerResources[];
  overhead?: ResourceList;
  activeDeadlineSeconds?: number;
  priorityClassName?: string;
}

export const podSpecOf = (o: KObject) => (o.spec ?? {}) as PodResourcesSpec;

/** Adds the quantities of `b` into `acc` (nano units), remembering binary forms for printing. */
function addInto(acc: Map<string, { n: bigint; bin: boolean }>, b: ResourceList | undefined): void {
  for (const [k, v] of Object.entries(b ?? {})) {
    const cur = acc.get(k) ?? { n: 0n, bin: false };
    acc.set(k, { n: cur.n + (nanosOf(v) ?? 0n), bin: cur.bin || isBinary(v) });
  }
}

function maxInto(acc: Map<string, { n: bigint; bin: boolean }>, b: ResourceList | undefined): void {
  for (const [k, v] of Object.entries(b ?? {})) {
    const n = nanosOf(v) ?? 0n;
    const cur = acc.get(k);
    if (!cur || n > cur.n) acc.set(k, { n, bin: isBinary(v) });
  }
}

function toList(acc: Map<string, { n: bigint; bin: boolean }>): ResourceList {
  return Object.fromEntries([...acc].map(([k, { n, bin }]) => [k, formatNanos(n, bin)]));
}

/** The pod's requests (`which` = 'requests') or limits, over the resources some container names. */
export function podTotals(spec: PodResourcesSpec, which: 'requests' | 'limits'): ResourceList {
  const sum = new Map<string, { n: bigint; bin: boolean }>();
  for (const c of spec.containers ?? []) addInto(sum, c.resources?.[which]);
  const init = new Map<string, { n: bigint; bin: boolean }>();
  for (const c of spec.initContainers ?? []) maxInto(init, c.resources?.[which]);
  for (const [k, v] of init) {
    const cur = sum.get(k);
    if (!cur || v.n > cur.n) sum.set(k, v);
  }
  // the overhead adds to every request, and to the limits a container sets
  if (spec.overhead)
    addInto(sum, which === 'requests' ? spec.overhead : filterKeys(spec.overhead, [...sum.keys()]));
  return toList(sum);
}

function filterKeys(l: ResourceList, keys: string[]): ResourceList {
  return Object.fromEntries(Object.entries(l).filter(([k]) => keys.includes(k)));
}

/** Every container of a pod, init containers first. */
export function containersOf(spec: PodResourcesSpec): ContainerResources[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
}
