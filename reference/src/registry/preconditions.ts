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
  if (pre?.uid && pre.uid !== stored.metadata.uid)
    throw errors.conflict(
      group,
      plural,
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${stored.metadata.uid}`,
    );
  if (pre?.resourceVersion && pre.resourceVersion !== stored.metadata.resourceVersion)
    throw errors.conflict(
      group,
      plural,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${stored.metadata.resourceVersion}`,
    );
}
