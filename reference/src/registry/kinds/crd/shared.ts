// The CRD kind's names and status, with the condition helpers its strategy, validation and controller share.
import type { KObject } from '../../../storage/types.ts';
import { rfc3339 } from '../../../util/time.ts';
import type { AcceptedNames, CrdSpec } from '../../custom.ts';

export const CRD_GROUP = 'apiextensions.orch.io';
export const CRD_PLURAL = 'customresourcedefinitions';
export const CRD_KIND = 'CustomResourceDefinition';
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.orch.io';

export type Condition = {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
};
export type CrdStatus = {
  conditions?: Condition[];
  acceptedNames?: AcceptedNames;
  storedVersions?: string[];
};

export function specOf(o: KObject): CrdSpec {
  return (o.spec ?? {}) as CrdSpec;
}

export function statusOf(o: KObject): CrdStatus {
  return (o.status ?? {}) as CrdStatus;
}

export function findCondition(o: KObject, type: string): Condition | undefined {
  return statusOf(o).conditions?.find((c) => c.type === type);
}

export function isConditionTrue(o: KObject, type: string): boolean {
  return findCondition(o, type)?.status === 'True';
}

/** Sets a condition; lastTransitionTime changes only when the status does. */
export function setCondition(status: CrdStatus, c: Condition): void {
  const conds = (status.conditions ??= []);
  const existing = conds.find((x) => x.type === c.type);
  if (!existing) {
    conds.push({
      type: c.type,
      status: c.status,
      lastTransitionTime: rfc3339(Date.now()),
      reason: c.reason,
      message: c.message,
    });
    return;
  }
  if (existing.status !== c.status || !existing.lastTransitionTime)
    existing.lastTransitionTime = rfc3339(Date.now());
  existing.status = c.status;
  existing.reason = c.reason;
  existing.message = c.message;
}
