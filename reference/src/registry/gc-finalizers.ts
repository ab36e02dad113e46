// The garbage collector's finalizers a delete request sets (Kubernetes 1.28's
// deletionFinalizersForGarbageCollection): `orphan` when the dependents are to be orphaned,
// `foregroundDeletion` when they are to go before their owner, neither for a background
// deletion. The request's propagationPolicy decides, else a finalizer the object already has,
// else the kind's default policy at the version the request names (Orphan for core/v1
// ReplicationControllers and batch/v1 Jobs, for compatibility); Events take no part.
import type { KObject } from '../storage/types.ts';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/**
 * The finalizers the object is to have once the delete is requested, or undefined when they
 * stay as they are.
 */
export function gcFinalizers(
  obj: KObject,
  propagationPolicy: string | undefined,
  defaultPolicy: GarbageCollectionPolicy,
): string[] | undefined {
  if (defaultPolicy === 'Unsupported') return undefined;
  const current = obj.metadata.finalizers ?? [];
  const existing = current.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
  const orphan =
    propagationPolicy !== undefined
      ? propagationPolicy === 'Orphan'
      : existing !== undefined
        ? existing === ORPHAN_FINALIZER
        : defaultPolicy === 'OrphanDependents';
  const foreground =
    propagationPolicy !== undefined ? propagationPolicy === 'Foreground' : existing === FOREGROUND_FINALIZER;
  const next = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) next.push(ORPHAN_FINALIZER);
  if (foreground) next.push(FOREGROUND_FINALIZER);
  const same = next.length === current.length && next.every((f) => current.includes(f));
  return same ? undefined : next;
}
