// A condition a control loop keeps on a stored object's status (APIService `Available`,
// FlowSchema `Dangling`): written only when it says something new, with the transition time
// moved only when the status changes, as 1.28's controllers do.
import type { KObject } from '../storage/types.ts';

export interface ObjectCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/**
 * The object with `want` in place of its condition of the same type; undefined when the stored
 * one already has the same status, reason and message. When only the reason or message change,
 * `want` keeps the stored transition time.
 */
export function withCondition(cur: KObject, want: ObjectCondition): KObject | undefined {
  const conditions = (cur.status as { conditions?: ObjectCondition[] } | undefined)?.conditions ?? [];
  const old = conditions.find((c) => c.type === want.type);
  if (old && old.status === want.status && old.reason === want.reason && old.message === want.message)
    return undefined;
  if (old && old.status === want.status) want.lastTransitionTime = old.lastTransitionTime;
  return {
    ...cur,
    status: {
      ...(cur.status as object),
      conditions: [...conditions.filter((c) => c.type !== want.type), want],
    },
  };
}
