// Read-modify-write of an object a live cluster's controllers write too (a Deployment's status
// and revision annotation, a claim's provisioner annotations): a PUT built from an earlier read
// can meet 409 Conflict because a controller wrote in between. The write is made again from a
// fresh read, a few times; whatever the case then checks is checked on the answer to the write
// that went through (or on the last 409, when none did).
import type { Client, RequestOptions, Response } from './client.ts';

export const CONFLICT_ATTEMPTS = 5;

/** The 409 of a write at a stale resourceVersion (reason Conflict; not AlreadyExists). */
export function isConflict(r: Response): boolean {
  return r.status === 409 && r.statusObj?.reason === 'Conflict';
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `attempt` (which must read afresh) again while its answer is a 409 Conflict; returns the last answer. */
export async function retryOnConflict(
  attempt: () => Promise<Response>,
  attempts = CONFLICT_ATTEMPTS,
): Promise<Response> {
  let r = await attempt();
  for (let i = 1; i < attempts && isConflict(r); i++) {
    await pause(50 * i);
    r = await attempt();
  }
  return r;
}

export interface FreshUpdate {
  /** PUT to `<path>/<subresource>` (the object is read at `path`). */
  subresource?: string;
  query?: RequestOptions['query'];
  attempts?: number;
}

/**
 * GET `path`, `change` the object read (return the body to send), PUT it; again from a fresh
 * read while the PUT meets 409 Conflict. A read that fails is answered as it is.
 */
export function updateFresh(
  client: Client,
  path: string,
  change: (current: any) => unknown,
  o: FreshUpdate = {},
): Promise<Response> {
  const to = o.subresource ? `${path}/${o.subresource}` : path;
  return retryOnConflict(async () => {
    const g = await client.get(path);
    if (g.status !== 200) return g;
    return client.put(to, change(structuredClone(g.json)), { query: o.query });
  }, o.attempts);
}
