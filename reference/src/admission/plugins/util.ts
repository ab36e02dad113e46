// What the built-in plugins share: Kubernetes' admission refusal (403 Forbidden, "<resource>
// "<name>" is forbidden: <why>"), which requests are writes of a pod itself, the containers of a
// pod spec, and tolerations as Kubernetes compares and merges them.
import { qualifiedResource, StatusError } from '../../errors/status.ts';
import type { Container, PodSpec, Toleration } from '../../registry/kinds/pod-spec.ts';
import type { AdmissionAttributes } from '../types.ts';

export type { Toleration };

/** `pods "web" is forbidden: <why>` as Kubernetes' admission.NewForbidden words it. */
export function forbidden(a: AdmissionAttributes, why: string): StatusError {
  const { group, resource } = a.resource;
  const name = a.name || (a.object?.metadata?.name as string | undefined) || '';
  return new StatusError(
    403,
    'Forbidden',
    `${qualifiedResource(group, resource)} "${name}" is forbidden: ${why}`,
    {
      name,
      group: group || undefined,
      kind: resource,
    },
  );
}

/** A write of a core resource itself (no subresource). */
export const isCoreWrite = (a: AdmissionAttributes, resource: string): boolean =>
  a.resource.group === '' && a.resource.resource === resource && a.subresource === '';

/** A create or update of a pod itself. */
export const isPodWrite = (a: AdmissionAttributes): boolean =>
  isCoreWrite(a, 'pods') && (a.operation === 'CREATE' || a.operation === 'UPDATE');

/** The pod spec of the request's object (made when missing). */
export function podSpec(a: AdmissionAttributes): PodSpec {
  const o = a.object!;
  if (!o.spec || typeof o.spec !== 'object') o.spec = {};
  return o.spec as PodSpec;
}

/** Every container of a spec with its field path: init containers, containers, ephemeral containers. */
export function containersOf(spec: PodSpec): { c: Container; path: string }[] {
  const out: { c: Container; path: string }[] = [];
  for (const k of ['initContainers', 'containers', 'ephemeralContainers'] as const)
    (spec[k] ?? []).forEach((c, i) => {
      if (c && typeof c === 'object') out.push({ c, path: `spec.${k}[${i}]` });
    });
  return out;
}

/** Kubernetes' MatchToleration: same key, effect, operator and value (an unset operator is Equal). */
export function sameToleration(x: Toleration, y: Toleration): boolean {
  return (
    (x.key ?? '') === (y.key ?? '') &&
    (x.effect ?? '') === (y.effect ?? '') &&
    (x.operator || 'Equal') === (y.operator || 'Equal') &&
    (x.value ?? '') === (y.value ?? '')
  );
}

const equalToleration = (x: Toleration, y: Toleration) =>
  sameToleration(x, y) && x.tolerationSeconds === y.tolerationSeconds;

/** Kubernetes' AddOrUpdateTolerationInPod: replaces a matching toleration, or appends. */
export function addOrUpdateToleration(spec: PodSpec, t: Toleration): void {
  const list = (spec.tolerations ?? []) as Toleration[];
  let updated = false;
  const next: Toleration[] = [];
  for (const cur of list) {
    if (cur && sameToleration(t, cur)) {
      if (equalToleration(t, cur)) return;
      next.push({ ...t });
      updated = true;
      continue;
    }
    next.push(cur);
  }
  if (!updated) next.push({ ...t });
  spec.tolerations = next;
}
