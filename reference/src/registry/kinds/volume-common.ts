// What persistent volumes and their claims share: access modes and volume modes, and how
// the tables print them, and the status hooks both kinds use.
import type { StatusCause } from '../../errors/status.ts';
import type { KObject } from '../../storage/types.ts';
import type { Strategy } from '../types.ts';
import { Causes, fieldErr, keepAllButStatus, keepStoredStatus } from './common.ts';

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];
/** The finalizers the StorageObjectInUseProtection admission plugin adds. */
export const PVC_PROTECTION_FINALIZER = 'orch.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'orch.io/pv-protection';
/** The annotation older clients name a claim's class with. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.orch.io/storage-class';

const SHORT: Record<string, string> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};

/** Access modes as kubectl prints them (`RWO,ROX`). */
export function accessModesCell(modes: string[] | undefined): string {
  const seen = new Set(modes ?? []);
  return ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod']
    .filter((m) => seen.has(m))
    .map((m) => SHORT[m])
    .join(',');
}

export function validateAccessModes(
  field: string,
  modes: string[] | undefined,
  emptyDetail: string,
): StatusCause[] {
  const causes = new Causes();
  if (!modes?.length) return [fieldErr.required(field, emptyDetail)];
  for (const m of modes) if (!ACCESS_MODES.includes(m)) causes.notSupported(field, m, ACCESS_MODES);
  if (modes.includes('ReadWriteOncePod') && modes.length > 1)
    causes.forbidden(field, 'may not use ReadWriteOncePod with other access modes');
  return causes;
}

export function validateVolumeMode(field: string, mode: string | undefined): StatusCause[] {
  return mode !== undefined && !VOLUME_MODES.includes(mode)
    ? [fieldErr.notSupported(field, mode, VOLUME_MODES)]
    : [];
}

/**
 * The status hooks volumes and claims share: defaults on every write of the main resource,
 * status `Pending` on create and kept as stored on update; a status update with a phase-less
 * status gets `Pending` back.
 */
export function pendingPhaseHooks(
  defaults: (o: KObject) => void,
): Pick<Strategy, 'prepareForCreate' | 'prepareForUpdate' | 'prepareForStatusUpdate'> {
  return {
    prepareForCreate: (o) => {
      defaults(o);
      o.status = { phase: 'Pending' };
    },
    prepareForUpdate: (o, old) => {
      defaults(o);
      keepStoredStatus(o, old);
    },
    prepareForStatusUpdate: (o, old) => {
      keepAllButStatus(o, old);
      const st = o.status as { phase?: string } | undefined;
      if (st) st.phase ||= 'Pending';
    },
  };
}
