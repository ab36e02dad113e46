// StorageClass (storage.orch.io/v1): how volumes of a class are provisioned. Cluster-scoped.
// `provisioner`, `parameters`, `reclaimPolicy` and `volumeBindingMode` never change; the
// annotation `storageclass.orch.io/is-default-class: "true"` makes a class the default (the
// DefaultStorageClass admission plugin reads it), and its name then prints `(default)`.
import type { StatusCause } from '../../errors/status.ts';
import { arr, bool, mapOf, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { Causes, immutable, qualifiedName, requiredOneOf } from './common.ts';
import { defineKind, printed } from './define.ts';

export const DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.orch.io/is-default-class';
/** The beta annotation Kubernetes still honours. */
export const BETA_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.beta.orch.io/is-default-class';

export interface StorageClass {
  metadata: KObject['metadata'];
  provisioner?: string;
  parameters?: Record<string, string>;
  reclaimPolicy?: string;
  mountOptions?: string[];
  allowVolumeExpansion?: boolean;
  volumeBindingMode?: string;
  allowedTopologies?: unknown[];
}

const schema = objectSchema(
  {
    provisioner: str(),
    parameters: mapOf(str()),
    reclaimPolicy: str(),
    mountOptions: arr(str(), { 'x-orch-list-type': 'atomic' }),
    allowVolumeExpansion: bool(),
    volumeBindingMode: str(),
    allowedTopologies: arr(
      obj({
        matchLabelExpressions: arr(
          obj(
            { key: str(), values: arr(str(), { 'x-orch-list-type': 'atomic' }) },
            { required: ['key', 'values'] },
          ),
          { 'x-orch-list-type': 'atomic' },
        ),
      }),
      { 'x-orch-list-type': 'atomic' },
    ),
  },
  { required: ['provisioner'] },
);

const RECLAIM = ['Delete', 'Retain'];
const BINDING = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS_BYTES = 256 * 1024;

export function isDefaultStorageClass(o: KObject): boolean {
  const a = o.metadata.annotations ?? {};
  return (
    a[DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true' || a[BETA_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true'
  );
}

function validateStorageClass(o: KObject): Causes {
  const sc = o as StorageClass;
  const causes = new Causes();
  if (!sc.provisioner) causes.required('provisioner');
  else causes.push(...qualifiedName('provisioner', sc.provisioner.toLowerCase()));
  let size = 0;
  for (const [k, v] of Object.entries(sc.parameters ?? {})) {
    if (!k) causes.invalid('parameters', sc.parameters, 'key cannot be empty');
    size += k.length + String(v).length;
  }
  if (size > MAX_PARAMETERS_BYTES) causes.tooLong('parameters', MAX_PARAMETERS_BYTES);
  if (sc.reclaimPolicy !== undefined) causes.oneOf('reclaimPolicy', sc.reclaimPolicy, RECLAIM);
  causes.push(...requiredOneOf('volumeBindingMode', sc.volumeBindingMode, BINDING));
  return causes;
}

function validateUpdate(o: KObject, old: KObject): StatusCause[] {
  const sc = o as StorageClass;
  const before = old as StorageClass;
  const causes = validateStorageClass(o);
  if (
    JSON.stringify(Object.entries(sc.parameters ?? {}).sort()) !==
    JSON.stringify(Object.entries(before.parameters ?? {}).sort())
  )
    causes.forbidden('parameters', 'updates to parameters are forbidden.');
  if (sc.provisioner !== before.provisioner)
    causes.forbidden('provisioner', 'updates to provisioner are forbidden.');
  if (sc.reclaimPolicy !== before.reclaimPolicy)
    causes.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.');
  causes.push(...immutable('volumeBindingMode', sc.volumeBindingMode, before.volumeBindingMode));
  return causes;
}

function prepare(o: KObject): void {
  const sc = o as StorageClass;
  sc.reclaimPolicy ??= 'Delete';
  sc.volumeBindingMode ??= 'Immediate';
}

export const storageClassDef = defineKind({
  group: 'storage.orch.io',
  kind: 'StorageClass',
  namespaced: false,
  shortNames: ['sc'],
  schema,
  zeroValue: () => ({ provisioner: '' }),
  prepare,
  validate: validateStorageClass,
  validateUpdate,
  table: printed('storageClass', {
    Name: (o) => `${o.metadata.name ?? ''}${isDefaultStorageClass(o) ? ' (default)' : ''}`,
    Provisioner: 'provisioner',
    ReclaimPolicy: (o) => (o as StorageClass).reclaimPolicy ?? 'Delete',
    VolumeBindingMode: (o) => (o as StorageClass).volumeBindingMode ?? 'Immediate',
    AllowVolumeExpansion: (o) => String((o as StorageClass).allowVolumeExpansion === true),
  }),
  normalize: false,
});
