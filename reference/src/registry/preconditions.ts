// The preconditions of a write on a stored object (1.28's Preconditions.Check): a uid or a
// resourceVersion that is given must be the stored object's, else a 409 saying which.
import { errors } from '../errors/status.ts';
import type { KObject } from '../storage/types.ts';

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export function checkPreconditions(
  group: string,
  plural: string,
  name: string,
  pre: Preconditions | undefined,
  stored: KObject,
): void {
  for (const [field, label] of [
    ['uid', 'UID'],
    ['resourceVersion', 'ResourceVersion'],
  ] as const) {
    const want = pre?.[field];
    if (want && want !== stored.metadata[field])
      throw errors.conflict(
        group,
        plural,
        name,
        `Precondition failed: ${label} in precondition: ${want}, ${label} in object meta: ${stored.metadata[field]}`,
      );
  }
}
