// DefaultStorageClass (doc3 plugin table: the same as DefaultIngressClass, for volume claims
// and storage classes). A new claim that names no class (no `spec.storageClassName`, not even
// an empty one, and no `volume.beta.orch.io/storage-class` annotation) gets the default storage
// class, the one annotated `storageclass.orch.io/is-default-class: "true"`; more than one
// default refuses such claims.
import { isDefaultStorageClass } from '../../registry/kinds/storageclass.ts';
import type { PersistentVolumeClaim } from '../../registry/kinds/persistentvolumeclaim.ts';
import { BETA_STORAGE_CLASS_ANNOTATION } from '../../registry/kinds/volume-common.ts';
import type { Registry } from '../../registry/registry.ts';
import type { AdmissionPlugin } from '../types.ts';
import { admissionForbidden, isWriteOf, listAll } from './support.ts';

export function defaultStorageClassPlugin(registry: Registry): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    handles: (a) => isWriteOf(a, '', 'persistentvolumeclaims', ['CREATE']),
    async mutate(a) {
      const pvc = a.object as PersistentVolumeClaim;
      if (pvc.spec?.storageClassName !== undefined) return;
      if (pvc.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION]) return;
      const defaults = (await listAll(registry, 'storage.orch.io', 'storageclasses')).filter(
        isDefaultStorageClass,
      );
      if (defaults.length > 1)
        throw admissionForbidden(
          a,
          `Internal error occurred: ${defaults.length} default StorageClasses were found`,
        );
      if (defaults.length === 0) return;
      pvc.spec = { ...(pvc.spec ?? {}), storageClassName: defaults[0]!.metadata.name };
    },
  };
}
