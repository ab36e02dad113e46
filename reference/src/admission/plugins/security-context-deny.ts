// SecurityContextDeny (doc3 plugin table: rejects several security-context fields; deprecated):
// as Kubernetes 1.28, a pod created or updated with any of the pod's supplementalGroups,
// seLinuxOptions, runAsUser or fsGroup, or a container's seLinuxOptions or runAsUser, is refused
// (403), naming the first such field.
import type { AdmissionPlugin } from '../types.ts';
import { containersOf, forbidden, isPodWrite, podSpec } from './util.ts';

const POD_FIELDS: [string, string][] = [
  ['supplementalGroups', 'pod.Spec.SecurityContext.SupplementalGroups'],
  ['seLinuxOptions', 'pod.Spec.SecurityContext.SELinuxOptions'],
  ['runAsUser', 'pod.Spec.SecurityContext.RunAsUser'],
  ['fsGroup', 'pod.Spec.SecurityContext.FSGroup'],
];
const CONTAINER_FIELDS: [string, string][] = [
  ['seLinuxOptions', 'SecurityContext.SELinuxOptions'],
  ['runAsUser', 'SecurityContext.RunAsUser'],
];

const has = (sc: unknown, field: string) =>
  !!sc &&
  typeof sc === 'object' &&
  (sc as Record<string, unknown>)[field] !== undefined &&
  (sc as Record<string, unknown>)[field] !== null;

export const securityContextDeny = (): AdmissionPlugin => ({
  name: 'SecurityContextDeny',
  handles: (a) => isPodWrite(a) && !!a.object,
  validate(a) {
    const spec = podSpec(a);
    for (const [field, words] of POD_FIELDS)
      if (has(spec.securityContext, field)) throw forbidden(a, `${words} is forbidden`);
    for (const { c } of containersOf(spec))
      for (const [field, words] of CONTAINER_FIELDS)
        if (has((c as { securityContext?: unknown }).securityContext, field))
          throw forbidden(a, `${words} is forbidden`);
  },
});
