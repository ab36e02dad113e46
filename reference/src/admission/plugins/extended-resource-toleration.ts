// ExtendedResourceToleration (doc3 plugin table: adds tolerations for taints named after
// extended resources; off by default): as Kubernetes 1.28, a pod created or updated whose
// containers or init containers request an extended resource (a name with a domain other than
// orch.io, e.g. `example.com/gpu`) gets `{key: <resource>, operator: Exists, effect:
// NoSchedule}` for each, in name order, replacing a toleration that matches it otherwise.
import type { AdmissionPlugin } from '../types.ts';
import { addOrUpdateToleration, isPodWrite, podSpec } from './util.ts';

const QUALIFIED =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Kubernetes' IsExtendedResourceName: not native (has a domain, not orch.io), not `requests.*`, a qualified name. */
export function isExtendedResource(name: string): boolean {
  if (!name.includes('/')) return false;
  const domain = name.slice(0, name.indexOf('/'));
  if (domain === 'orch.io' || domain.endsWith('.orch.io')) return false;
  if (name.startsWith('requests.')) return false;
  return QUALIFIED.test(name) && name.length - domain.length - 1 <= 63;
}

export const extendedResourceToleration = (): AdmissionPlugin => ({
  name: 'ExtendedResourceToleration',
  handles: (a) => isPodWrite(a) && !!a.object,
  mutate(a) {
    const spec = podSpec(a);
    const names = new Set<string>();
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])])
      for (const r of Object.keys(c?.resources?.requests ?? {})) if (isExtendedResource(r)) names.add(r);
    for (const key of [...names].sort())
      addOrUpdateToleration(spec, { key, operator: 'Exists', effect: 'NoSchedule' });
  },
});
