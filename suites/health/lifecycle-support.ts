// What the lifecycle cases of doc3 § Endpoints, Health share: each case starts a server
// process of its own (harness/src/server-process.ts) from the command the run declares, and
// polls it. The cases are split by subject (lifecycle-shutdown.test.ts,
// lifecycle-store.test.ts) so the two files, each waiting on servers of its own, run side by side.
import { type ServerProcess, startServerProcess } from '../../harness/src/server-process.ts';
import type { NamedTarget } from '../../harness/src/targets.ts';

export const needs = { serverProcess: true as const };
export const DELAY_S = 3;

/** Polls `f` every 100 ms until it returns true, for at most `ms`; the last value otherwise. */
export async function until<T>(ms: number, f: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function withServer(
  target: NamedTarget,
  delayS: number,
  body: (s: ServerProcess) => Promise<void>,
): Promise<void> {
  const s = await startServerProcess(target.declared.serverCommand!, { shutdownDelaySeconds: delayS });
  try {
    await body(s);
  } finally {
    await s.stop();
  }
}
