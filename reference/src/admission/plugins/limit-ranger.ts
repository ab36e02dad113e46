// LimitRanger (doc3 plugin table: enforces per-namespace limit ranges and applies default
// requests). For each LimitRange of the namespace: a new pod's containers get the `Container`
// item's default limits and default requests for what they leave unset (the pod is annotated
// with what was set); then the pod's containers (`Container` items), the pod as a whole (`Pod`
// items) and volume claims (`PersistentVolumeClaim` items, on create and update) must stay
// within min, max and the limit-to-request ratio.
import type { LimitRange, LimitRangeItem } from '../../registry/kinds/limitrange.ts';
import { containersOf, podSpecOf, podTotals, type ResourceList } from '../../registry/pod-resources.ts';
import type { Registry } from '../../registry/registry.ts';
import { nanosOf } from '../../schema/quantity-math.ts';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { admissionForbidden, isWriteOf, listAll } from './support.ts';

export const LIMIT_RANGER_ANNOTATION = 'orch.io/limit-ranger';

async function itemsOf(registry: Registry, namespace: string, type: string): Promise<LimitRangeItem[]> {
  const ranges = (await listAll(registry, '', 'limitranges', namespace)) as LimitRange[];
  return ranges.flatMap((r) => (r.spec?.limits ?? []).filter((i) => i?.type === type));
}

// ------------------------------------------------------------------ defaults

function applyDefaults(pod: KObject, items: LimitRangeItem[]): void {
  const set: string[] = [];
  for (const item of items) {
    for (const c of containersOf(podSpecOf(pod))) {
      const res = (c.resources ??= {});
      for (const [k, v] of Object.entries(item.default ?? {}))
        if (res.limits?.[k] === undefined) {
          res.limits = { ...(res.limits ?? {}), [k]: v };
          set.push(`${k} limit for container ${c.name}`);
        }
      for (const [k, v] of Object.entries(item.defaultRequest ?? {}))
        if (res.requests?.[k] === undefined) {
          res.requests = { ...(res.requests ?? {}), [k]: v };
          set.push(`${k} request for container ${c.name}`);
        }
    }
  }
  if (set.length)
    pod.metadata.annotations = {
      ...(pod.metadata.annotations ?? {}),
      [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${set.join('; ')}`,
    };
}

// ------------------------------------------------------------------ constraints (Kubernetes' words)

const n = (v: string | undefined) => nanosOf(v) ?? 0n;

function minConstraint(
  type: string,
  k: string,
  enforced: string,
  req: ResourceList,
  lim: ResourceList,
): string | undefined {
  if (req[k] === undefined) return `minimum ${k} usage per ${type} is ${enforced}.  No request is specified`;
  if (n(req[k]) < n(enforced))
    return `minimum ${k} usage per ${type} is ${enforced}, but request is ${req[k]}`;
  if (lim[k] !== undefined && n(lim[k]) < n(enforced))
    return `minimum ${k} usage per ${type} is ${enforced}, but limit is ${lim[k]}`;
  return undefined;
}

function maxConstraint(
  type: string,
  k: string,
  enforced: string,
  req: ResourceList,
  lim: ResourceList,
): string | undefined {
  if (lim[k] === undefined) return `maximum ${k} usage per ${type} is ${enforced}.  No limit is specified`;
  if (n(lim[k]) > n(enforced)) return `maximum ${k} usage per ${type} is ${enforced}, but limit is ${lim[k]}`;
  if (req[k] !== undefined && n(req[k]) > n(enforced))
    return `maximum ${k} usage per ${type} is ${enforced}, but request is ${req[k]}`;
  return undefined;
}

function maxRequestConstraint(
  type: string,
  k: string,
  enforced: string,
  req: ResourceList,
): string | undefined {
  if (req[k] === undefined) return `maximum ${k} usage per ${type} is ${enforced}.  No request is specified`;
  if (n(req[k]) > n(enforced))
    return `maximum ${k} usage per ${type} is ${enforced}, but request is ${req[k]}`;
  return undefined;
}

function ratioConstraint(
  type: string,
  k: string,
  enforced: string,
  req: ResourceList,
  lim: ResourceList,
): string | undefined {
  if (req[k] === undefined || n(req[k]) === 0n)
    return `${k} max limit to request ratio per ${type} is ${enforced}, but no request is specified or request is 0`;
  if (lim[k] === undefined || n(lim[k]) === 0n)
    return `${k} max limit to request ratio per ${type} is ${enforced}, but no limit is specified or limit is 0`;
  const ratio = Number(n(lim[k])) / Number(n(req[k]));
  if (ratio > Number(n(enforced)) / 1e9)
    return `${k} max limit to request ratio per ${type} is ${enforced}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}

function check(
  type: string,
  item: LimitRangeItem,
  req: ResourceList,
  lim: ResourceList,
  out: string[],
): void {
  for (const [k, v] of Object.entries(item.min ?? {})) {
    const e = minConstraint(type, k, v, req, lim);
    if (e) out.push(e);
  }
  for (const [k, v] of Object.entries(item.max ?? {})) {
    const e = maxConstraint(type, k, v, req, lim);
    if (e) out.push(e);
  }
  for (const [k, v] of Object.entries(item.maxLimitRequestRatio ?? {})) {
    const e = ratioConstraint(type, k, v, req, lim);
    if (e) out.push(e);
  }
}

/** Errors joined as Kubernetes' aggregate prints them: one alone, several in brackets. */
function aggregate(errs: string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}

async function validatePod(registry: Registry, a: AdmissionAttributes): Promise<void> {
  const pod = a.object as KObject;
  const spec = podSpecOf(pod);
  const errs: string[] = [];
  for (const item of await itemsOf(registry, a.namespace, 'Container'))
    for (const c of containersOf(spec))
      check('Container', item, c.resources?.requests ?? {}, c.resources?.limits ?? {}, errs);
  for (const item of await itemsOf(registry, a.namespace, 'Pod'))
    check('Pod', item, podTotals(spec, 'requests'), podTotals(spec, 'limits'), errs);
  if (errs.length) throw admissionForbidden(a, aggregate(errs));
}

async function validateClaim(registry: Registry, a: AdmissionAttributes): Promise<void> {
  const req =
    ((a.object as KObject).spec as { resources?: { requests?: ResourceList } } | undefined)?.resources
      ?.requests ?? {};
  const errs: string[] = [];
  for (const item of await itemsOf(registry, a.namespace, 'PersistentVolumeClaim')) {
    for (const [k, v] of Object.entries(item.min ?? {})) {
      const e = minConstraint('PersistentVolumeClaim', k, v, req, {});
      if (e) errs.push(e);
    }
    for (const [k, v] of Object.entries(item.max ?? {})) {
      const e = maxRequestConstraint('PersistentVolumeClaim', k, v, req);
      if (e) errs.push(e);
    }
  }
  if (errs.length) throw admissionForbidden(a, aggregate(errs));
}

export function limitRangerPlugin(registry: Registry): AdmissionPlugin {
  return {
    name: 'LimitRanger',
    handles: (a) =>
      isWriteOf(a, '', 'pods', ['CREATE']) ||
      isWriteOf(a, '', 'persistentvolumeclaims', ['CREATE', 'UPDATE']),
    async mutate(a) {
      if (a.resource.resource === 'pods')
        applyDefaults(a.object as KObject, await itemsOf(registry, a.namespace, 'Container'));
    },
    async validate(a) {
      if (a.resource.resource === 'pods') await validatePod(registry, a);
      else await validateClaim(registry, a);
    },
  };
}
