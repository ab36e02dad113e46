// LimitPodHardAntiAffinityTopology (doc3 plugin table: rejects required anti-affinity with
// topology keys other than the hostname key; off by default): as Kubernetes 1.28, a pod created
// or updated with a `requiredDuringSchedulingIgnoredDuringExecution` pod anti-affinity term
// whose topologyKey is not `orch.io/hostname` is refused (403).
import { StatusError } from '../../errors/status.ts';
import type { AdmissionPlugin } from '../types.ts';
import { isPodWrite, podSpec } from './util.ts';

export const HOSTNAME_LABEL = 'orch.io/hostname';

interface Affinity {
  podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { topologyKey?: string }[] };
}

export const limitPodHardAntiAffinityTopology = (): AdmissionPlugin => ({
  name: 'LimitPodHardAntiAffinityTopology',
  handles: (a) => isPodWrite(a) && !!a.object,
  validate(a) {
    const affinity = (podSpec(a) as { affinity?: Affinity }).affinity;
    const terms = affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (!Array.isArray(terms)) return;
    for (const t of terms) {
      const key = t?.topologyKey ?? '';
      if (key !== HOSTNAME_LABEL) {
        // Kubernetes words this one with apierrors.NewForbidden on the pod's own name
        const name = (a.object?.metadata?.name as string | undefined) ?? a.name;
        throw new StatusError(
          403,
          'Forbidden',
          `pods "${name}" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${key} but only key ${HOSTNAME_LABEL} is allowed`,
          { name, kind: 'pods' },
        );
      }
    }
  },
});
