// PersistentVolumeLabel (deprecated in Kubernetes 1.28; the server has no cloud provider), as
// 1.28 behaves without one, on a persistent volume's creation:
//  - a volume dynamically provisioned (annotation `pv.orch.io/provisioned-by`) that already
//    carries both zone and region labels (`topology.orch.io/zone` and `topology.orch.io/region`,
//    or the beta `failure-domain.beta.orch.io/zone` and `failure-domain.beta.orch.io/region`)
//    keeps them, and gets a required node affinity on them (a zone label's `a__b` is the zones a
//    and b) unless its node selector terms already name those keys;
//  - otherwise a volume of a cloud disk (gcePersistentDisk, azureDisk, vsphereVolume) is refused
//    (403): its labels would come from a cloud provider the server does not have;
//  - any other volume is left as it is.
import type { AdmissionPlugin } from '../types.ts';
import { forbidden, isCoreWrite } from './util.ts';

export const PROVISIONED_BY_ANNOTATION = 'pv.orch.io/provisioned-by';
const ZONE = 'topology.orch.io/zone';
const REGION = 'topology.orch.io/region';
const BETA_ZONE = 'failure-domain.beta.orch.io/zone';
const BETA_REGION = 'failure-domain.beta.orch.io/region';
/** The name a volume carries while it is being provisioned (never looked up). */
const PROVISIONING = 'placeholder-for-provisioning';

const CLOUD_DISKS: { field: string; name: string; error: string }[] = [
  {
    field: 'gcePersistentDisk',
    name: 'pdName',
    error: 'error querying GCE PD volume %s: unable to build GCE cloud provider for PD',
  },
  {
    field: 'azureDisk',
    name: 'diskName',
    error: 'error querying AzureDisk volume %s: unable to build Azure cloud provider for AzureDisk',
  },
  {
    field: 'vsphereVolume',
    name: 'volumePath',
    error: 'error querying vSphere Volume %s: unable to build vSphere cloud provider',
  },
];

interface Term {
  matchExpressions?: { key?: string; operator?: string; values?: string[] }[];
}

/** The labels a dynamically provisioned volume vouches for itself, or undefined. */
function provisionedLabels(
  labels: Record<string, string>,
  annotations: Record<string, string>,
): Record<string, string> | undefined {
  if (annotations[PROVISIONED_BY_ANNOTATION] === undefined) return undefined;
  if (labels[ZONE] !== undefined && labels[REGION] !== undefined)
    return { [ZONE]: labels[ZONE], [REGION]: labels[REGION] };
  if (labels[BETA_ZONE] !== undefined && labels[BETA_REGION] !== undefined)
    return { [BETA_ZONE]: labels[BETA_ZONE], [BETA_REGION]: labels[BETA_REGION] };
  return undefined;
}

export const persistentVolumeLabel = (): AdmissionPlugin => ({
  name: 'PersistentVolumeLabel',
  handles: (a) => a.operation === 'CREATE' && isCoreWrite(a, 'persistentvolumes') && !!a.object,
  mutate(a) {
    const o = a.object!;
    const labels = (o.metadata.labels ?? {}) as Record<string, string>;
    const annotations = (o.metadata.annotations ?? {}) as Record<string, string>;
    const spec = (o.spec && typeof o.spec === 'object' ? o.spec : {}) as Record<string, any>;
    const own = provisionedLabels(labels, annotations);
    if (!own) {
      for (const d of CLOUD_DISKS) {
        const src = spec[d.field];
        if (!src || typeof src !== 'object') continue;
        const name = String(src[d.name] ?? '');
        if (d.field === 'gcePersistentDisk' && name === PROVISIONING) return;
        throw forbidden(a, d.error.replace('%s', name));
      }
      return;
    }
    const requirements = Object.entries(own).map(([key, v]) => ({
      key,
      operator: 'In',
      values: key === ZONE || key === BETA_ZONE ? [...new Set(v.split('__').filter(Boolean))].sort() : [v],
    }));
    o.spec = spec;
    spec.nodeAffinity ??= {};
    spec.nodeAffinity.required ??= {};
    const terms: Term[] = (spec.nodeAffinity.required.nodeSelectorTerms ??= []);
    if (terms.length === 0) terms.push({});
    const named = terms.some((t) =>
      (t.matchExpressions ?? []).some((e) => requirements.some((r) => r.key === e.key)),
    );
    if (named) return;
    for (const t of terms)
      t.matchExpressions = [
        ...(t.matchExpressions ?? []),
        ...requirements.map((r) => ({ ...r, values: [...r.values] })),
      ];
  },
});
