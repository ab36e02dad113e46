// PersistentVolume (core/v1) with the `status` subresource: a piece of storage with a
// capacity, access modes and one volume source. Cluster-scoped. The source never changes;
// status starts `Pending`.
import type { StatusCause } from '../../errors/status.ts';
import { arr, freeform, mapOf, obj, str, time } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import type { Registry } from '../registry.ts';
import type { ResourceDef } from '../types.ts';
import {
  type Causes,
  causesOf,
  dnsSubdomain,
  fieldErr,
  immutable,
  objectReferenceFields,
  quantity,
} from './common.ts';
import { defineKind, printed } from './define.ts';
import { positiveQuantity } from './resource-lists.ts';
import {
  accessModesCell,
  PV_PROTECTION_FINALIZER,
  pendingPhaseHooks,
  validateAccessModes,
  validateVolumeMode,
} from './volume-common.ts';
import { releaseWhenUnused, volumeInUse } from './volume-protection.ts';

/** The volume sources a persistent volume may name (exactly one). */
export const PV_SOURCES = [
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'csi',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'glusterfs',
  'hostPath',
  'iscsi',
  'local',
  'nfs',
  'photonPersistentDisk',
  'portworxVolume',
  'quobyte',
  'rbd',
  'scaleIO',
  'storageos',
  'vsphereVolume',
];

export interface PersistentVolume {
  metadata: KObject['metadata'];
  spec?: {
    capacity?: Record<string, string>;
    accessModes?: string[];
    claimRef?: { namespace?: string; name?: string; uid?: string };
    persistentVolumeReclaimPolicy?: string;
    storageClassName?: string;
    mountOptions?: string[];
    volumeMode?: string;
    nodeAffinity?: unknown;
    [source: string]: unknown;
  };
  status?: { phase?: string; message?: string; reason?: string; lastPhaseTransitionTime?: string };
}

const sources = Object.fromEntries(PV_SOURCES.map((s) => [s, freeform()]));
const schema = objectSchema({
  spec: obj({
    capacity: mapOf(quantity()),
    accessModes: arr(str(), { 'x-orch-list-type': 'atomic' }),
    claimRef: obj(objectReferenceFields, { 'x-orch-map-type': 'granular' }),
    persistentVolumeReclaimPolicy: str(),
    storageClassName: str(),
    mountOptions: arr(str(), { 'x-orch-list-type': 'atomic' }),
    volumeMode: str(),
    nodeAffinity: freeform(),
    ...sources,
  }),
  status: obj({ phase: str(), message: str(), reason: str(), lastPhaseTransitionTime: time() }),
});

const RECLAIM = ['Delete', 'Recycle', 'Retain'];

function validateSource(spec: NonNullable<PersistentVolume['spec']>): StatusCause[] {
  const set = PV_SOURCES.filter((s) => spec[s] !== undefined && spec[s] !== null);
  if (set.length === 0) return [fieldErr.required('spec', 'must specify a volume type')];
  const causes = causesOf(
    set.slice(1).map((s) => fieldErr.forbidden(`spec.${s}`, 'may not specify more than 1 volume type')),
  );
  const src = spec[set[0]!] as Record<string, unknown>;
  const need = (f: string) => {
    if (!src?.[f]) causes.required(`spec.${set[0]}.${f}`);
  };
  switch (set[0]) {
    case 'hostPath':
    case 'local':
      need('path');
      if (set[0] === 'local' && !spec.nodeAffinity)
        causes.required('spec.nodeAffinity', 'Local volume requires node affinity');
      break;
    case 'nfs':
      need('server');
      need('path');
      break;
    case 'csi':
      need('driver');
      need('volumeHandle');
      break;
  }
  return causes;
}

function validatePV(o: KObject): Causes {
  const spec = (o as PersistentVolume).spec ?? {};
  const causes = causesOf(validateAccessModes('spec.accessModes', spec.accessModes, ''));
  const cap = spec.capacity ?? {};
  if (!Object.keys(cap).length) causes.required('spec.capacity');
  else if (cap.storage === undefined || Object.keys(cap).length > 1)
    causes.notSupported('spec.capacity', cap, ['storage']);
  for (const [k, v] of Object.entries(cap)) causes.push(...positiveQuantity(`spec.capacity[${k}]`, v));
  if (
    spec.persistentVolumeReclaimPolicy !== undefined &&
    !RECLAIM.includes(spec.persistentVolumeReclaimPolicy)
  )
    causes.notSupported('spec.persistentVolumeReclaimPolicy', spec.persistentVolumeReclaimPolicy, RECLAIM);
  if (spec.storageClassName) causes.push(...dnsSubdomain('spec.storageClassName', spec.storageClassName));
  causes.push(...validateVolumeMode('spec.volumeMode', spec.volumeMode));
  causes.push(...validateSource(spec));
  return causes;
}

function sourceOf(o: KObject): Record<string, unknown> {
  const spec = (o as PersistentVolume).spec ?? {};
  return Object.fromEntries(PV_SOURCES.filter((s) => spec[s] !== undefined).map((s) => [s, spec[s]]));
}

function validateUpdate(o: KObject, old: KObject): StatusCause[] {
  const causes = validatePV(o);
  if (!deepEqual(sourceOf(o), sourceOf(old)))
    causes.forbidden(
      'spec.persistentvolumesource',
      'spec.persistentvolumesource is immutable after creation',
    );
  causes.push(
    ...immutable(
      'spec.volumeMode',
      (o as PersistentVolume).spec?.volumeMode,
      (old as PersistentVolume).spec?.volumeMode,
    ),
  );
  const oldAffinity = (old as PersistentVolume).spec?.nodeAffinity;
  if (oldAffinity !== undefined)
    causes.push(...immutable('nodeAffinity', (o as PersistentVolume).spec?.nodeAffinity, oldAffinity));
  return causes;
}

function defaults(o: KObject): void {
  const pv = o as PersistentVolume;
  pv.spec ??= {};
  pv.spec.persistentVolumeReclaimPolicy ??= 'Retain';
  pv.spec.volumeMode ??= 'Filesystem';
}

const specOf = (o: KObject) => (o as PersistentVolume).spec ?? {};

export const persistentVolumeDef = (registry: () => Registry): ResourceDef =>
  defineKind({
    group: '',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    subresources: ['status'],
    schema,
    ...pendingPhaseHooks(defaults),
    onDeleteRequested: (o) =>
      releaseWhenUnused(registry, 'persistentvolumes', PV_PROTECTION_FINALIZER, volumeInUse, o),
    validate: validatePV,
    validateUpdate,
    fieldLabels: {
      'spec.claimRef.name': (o) => specOf(o).claimRef?.name ?? '',
      'spec.claimRef.namespace': (o) => specOf(o).claimRef?.namespace ?? '',
    },
    table: printed('persistentVolume', {
      Capacity: 'spec.capacity.storage',
      'Access Modes': (o) => accessModesCell(specOf(o).accessModes),
      'Reclaim Policy': 'spec.persistentVolumeReclaimPolicy',
      Status: 'status.phase',
      Claim: (o) => {
        const ref = specOf(o).claimRef;
        return ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '';
      },
      StorageClass: 'spec.storageClassName',
      Reason: 'status.reason',
      VolumeMode: (o) => specOf(o).volumeMode ?? 'Filesystem',
    }),
  });
