// StorageObjectInUseProtection (doc3 plugin table: adds protection finalizers to new volume
// claims and volumes): `orch.io/pvc-protection` on claims, `orch.io/pv-protection` on
// volumes, so that deleting one in use only marks it (the kinds release the finalizer once
// nothing uses it).
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../../registry/kinds/volume-common.ts';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionPlugin } from '../types.ts';
import { isWriteOf } from './support.ts';

export const storageObjectInUseProtection: AdmissionPlugin = {
  name: 'StorageObjectInUseProtection',
  handles: (a) =>
    isWriteOf(a, '', 'persistentvolumeclaims', ['CREATE']) ||
    isWriteOf(a, '', 'persistentvolumes', ['CREATE']),
  mutate(a) {
    const o = a.object as KObject;
    const f =
      a.resource.resource === 'persistentvolumes' ? PV_PROTECTION_FINALIZER : PVC_PROTECTION_FINALIZER;
    const list = o.metadata.finalizers ?? [];
    if (!list.includes(f)) o.metadata.finalizers = [...list, f];
  },
};
