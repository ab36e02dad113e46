// PersistentVolumeClaimResize (doc3 plugin table: blocks size changes unless the class sets
// `allowVolumeExpansion` true). A claim's storage request may grow only when the claim is
// bound and its storage class (the same before and after) allows expansion.
import type { PersistentVolumeClaim } from '../../registry/kinds/persistentvolumeclaim.ts';
import { claimClass } from '../../registry/kinds/persistentvolumeclaim.ts';
import type { StorageClass } from '../../registry/kinds/storageclass.ts';
import type { Registry } from '../../registry/registry.ts';
import { compareQuantities } from '../../schema/quantity-math.ts';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionPlugin } from '../types.ts';
import { admissionForbidden, getStored, isWriteOf } from './support.ts';

export function persistentVolumeClaimResizePlugin(registry: Registry): AdmissionPlugin {
  const allowResize = (now: KObject, old: KObject) => {
    const cls = claimClass(now);
    if (!cls || cls !== claimClass(old)) return false;
    const sc = getStored(registry, 'storage.orch.io', 'storageclasses', '', cls) as StorageClass | undefined;
    return sc?.allowVolumeExpansion === true;
  };
  return {
    name: 'PersistentVolumeClaimResize',
    handles: (a) => isWriteOf(a, '', 'persistentvolumeclaims', ['UPDATE']),
    validate(a) {
      const now = a.object as PersistentVolumeClaim;
      const old = a.oldObject as PersistentVolumeClaim;
      if (
        compareQuantities(now.spec?.resources?.requests?.storage, old.spec?.resources?.requests?.storage) <= 0
      )
        return;
      if (old.status?.phase !== 'Bound')
        throw admissionForbidden(a, 'Only bound persistent volume claims can be expanded');
      if (!allowResize(a.object as KObject, a.oldObject as KObject))
        throw admissionForbidden(
          a,
          'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
        );
    },
  };
}
