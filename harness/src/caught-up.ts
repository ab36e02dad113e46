// A read at a version the client saw written can still meet "Too large resource version": a
// server that serves reads from a cache trailing its store answers 504 with Retry-After when
// the cache has not reached the version within its brief wait (doc1 § Resource version
// semantics allows exactly that answer; Kubernetes' watch cache waits 3 s, and a busy cluster's
// cache can trail longer). A client reads again after the Retry-After. The case then judges the
// answer the server gives once it has caught up, or the last 504 when it never does.
import type { Response } from './client.ts';

/** How long a read waits in all for the server to reach a version it acknowledged. */
export const CAUGHT_UP_MS = 20_000;

/** The answer of a read at a version the server has not reached yet (504 or Retry-After, 'Too large resource version'). */
export function isTooLargeVersion(r: Response): boolean {
  return (
    (r.status === 504 || (r.status >= 400 && r.header('retry-after') !== undefined)) &&
    r.text.includes('Too large resource version')
  );
}

/** Runs `read` again, after the answer's Retry-After (at least 1 s), while it answers "Too large resource version". */
export async function readCaughtUp(read: () => Promise<Response>, waitMs = CAUGHT_UP_MS): Promise<Response> {
  const deadline = Date.now() + waitMs;
  let r = await read();
  while (isTooLargeVersion(r) && Date.now() < deadline) {
    const after = Math.max(1, Number(r.header('retry-after')) || 1) * 1000;
    await new Promise((done) => setTimeout(done, Math.min(after, Math.max(0, deadline - Date.now()))));
    r = await read();
  }
  return r;
}
