// PersistentVolumeClaim (core/v1) with the `status` subresource: a request for storage of a
// size, access modes and class. After creation the spec is fixed, except that a bound claim
// may grow (never shrink) `resources.requests.storage` and an unbound one may get its
// `volumeName` once; status starts `Pending`.
import type { StatusCause } from '../../errors/status.ts';
import { arr, keyedList, mapOf, obj, str, time } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import { compareQuantities } from '../../schema/quantity-math.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import type { Registry } from '../registry.ts';
import type { ResourceDef } from '../types.ts';
import {
  type Causes,
  causesOf,
  dnsSubdomain,
  type LabelSelectorObj,
  quantity,
  validateLabelSelector,
} from './common.ts';
import { defineKind, printed } from './define.ts';
import { positiveQuantity } from './resource-lists.ts';
import {
  accessModesCell,
  BETA_STORAGE_CLASS_ANNOTATION,
  PVC_PROTECTION_FINALIZER,
  pendingPhaseHooks,
  validateAccessModes,
  validateVolumeMode,
} from './volume-common.ts';
import { claimInUse, releaseWhenUnused } from './volume-protection.ts';

export interface PersistentVolumeClaim {
  metadata: KObject['metadata'];
  spec?: {
    accessModes?: string[];
    selector?: LabelSelectorObj;
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
    volumeName?: string;
    storageClassName?: string;
    volumeMode?: string;
    dataSource?: { apiGroup?: string; kind?: string; name?: string };
    dataSourceRef?: { apiGroup?: string; kind?: string; name?: string; namespace?: string };
  };
  status?: {
    phase?: string;
    accessModes?: string[];
    capacity?: Record<string, string>;
    conditions?: unknown[];
  };
}

const ref = obj(
  { apiGroup: str(), kind: str(), name: str() },
  { required: ['kind', 'name'], 'x-orch-map-type': 'atomic' },
);
const schema = objectSchema({
  spec: obj({
    accessModes: arr(str(), { 'x-orch-list-type': 'atomic' }),
    selector: obj(
      {
        matchLabels: mapOf(str()),
        matchExpressions: arr(obj({ key: str(), operator: str(), values: arr(str()) })),
      },
      { 'x-orch-map-type': 'atomic' },
    ),
    resources: obj({
      limits: mapOf(quantity()),
      requests: mapOf(quantity()),
      claims: keyedList(obj({ name: str() }), ['name']),
    }),
    volumeName: str(),
    storageClassName: str(),
    volumeMode: str(),
    dataSource: ref,
    dataSourceRef: obj(
      { apiGroup: str(), kind: str(), name: str(), namespace: str() },
      { required: ['kind', 'name'] },
    ),
  }),
  status: obj({
    phase: str(),
    accessModes: arr(str(), { 'x-orch-list-type': 'atomic' }),
    capacity: mapOf(quantity()),
    conditions: keyedList(
      obj(
        {
          type: str(),
          status: str(),
          lastProbeTime: time(),
          lastTransitionTime: time(),
          reason: str(),
          message: str(),
        },
        { required: ['type', 'status'] },
      ),
      ['type'],
    ),
    allocatedResources: mapOf(quantity()),
    allocatedResourceStatuses: mapOf(str(), { 'x-orch-map-type': 'granular' }),
  }),
});

const specOf = (o: KObject) => (o as PersistentVolumeClaim).spec ?? {};

/** The class a claim asks for: `spec.storageClassName`, else the beta annotation. */
export function claimClass(o: KObject): string | undefined {
  return specOf(o).storageClassName ?? o.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
}

function validatePVC(o: KObject): Causes {
  const spec = specOf(o);
  const causes = causesOf(
    validateAccessModes('spec.accessModes', spec.accessModes, 'at least 1 access mode is required'),
  );
  causes.push(...validateLabelSelector('spec.selector', spec.selector));
  const storage = spec.resources?.requests?.storage;
  if (storage === undefined) causes.required('spec.resources[storage]');
  else causes.push(...positiveQuantity('spec.resources[storage]', storage));
  if (spec.storageClassName) causes.push(...dnsSubdomain('spec.storageClassName', spec.storageClassName));
  causes.push(...validateVolumeMode('spec.volumeMode', spec.volumeMode));
  return causes;
}

function validateUpdate(o: KObject, old: KObject): StatusCause[] {
  const causes = validatePVC(o);
  const now = structuredClone(specOf(o));
  const before = structuredClone(specOf(old));
  // the volume name may be set once
  if (!before.volumeName) before.volumeName = now.volumeName;
  const bound = (o as PersistentVolumeClaim).status?.phase === 'Bound';
  if (bound && now.resources?.requests)
    now.resources.requests.storage = before.resources?.requests?.storage as string;
  if (!deepEqual(JSON.parse(JSON.stringify(now)), JSON.parse(JSON.stringify(before))))
    causes.forbidden('spec', 'spec is immutable after creation except resources.requests for bound claims');
  const newSize = specOf(o).resources?.requests?.storage;
  const oldSize = specOf(old).resources?.requests?.storage;
  if (newSize !== undefined && oldSize !== undefined && compareQuantities(newSize, oldSize) < 0)
    causes.forbidden('spec.resources.requests.storage', 'field can not be less than previous value');
  return causes;
}

function defaults(o: KObject): void {
  const c = o as PersistentVolumeClaim;
  c.spec ??= {};
  c.spec.volumeMode ??= 'Filesystem';
}

export const persistentVolumeClaimDef = (registry: () => Registry): ResourceDef =>
  defineKind({
    group: '',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    subresources: ['status'],
    schema,
    ...pendingPhaseHooks(defaults),
    onDeleteRequested: (o) =>
      releaseWhenUnused(registry, 'persistentvolumeclaims', PVC_PROTECTION_FINALIZER, claimInUse, o),
    validate: validatePVC,
    validateUpdate,
    table: printed('persistentVolumeClaim', {
      Status: 'status.phase',
      Volume: 'spec.volumeName',
      Capacity: (o) =>
        specOf(o).volumeName ? ((o as PersistentVolumeClaim).status?.capacity?.storage ?? '') : '',
      'Access Modes': (o) =>
        specOf(o).volumeName ? accessModesCell((o as PersistentVolumeClaim).status?.accessModes) : '',
      StorageClass: (o) => claimClass(o) ?? '',
      VolumeMode: (o) => specOf(o).volumeMode ?? 'Filesystem',
    }),
  });
