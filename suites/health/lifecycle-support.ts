// What the lifecycle cases of doc3 § Endpoints, Health share: a server process of the
// harness's own (harness/src/server-process.ts), started from the command the run declares,
// taken through one life (its store removed, or a graceful shutdown) while what it answers is
// written down; each case of the life judges its part of the record. The life is lived once a
// target, by the first of its cases to run (a case run alone lives it too): a server start is
// the dearest thing in the area (a kube-apiserver with an etcd of its own takes about 15 s).
// The cases are split by subject (lifecycle-shutdown.test.ts, lifecycle-store.test.ts) so the
// two files, each waiting on a server of its own, run side by side.
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

/**
 * What `observe` records of one server's life, once a target: the first call starts it, the
 * others (the other cases of the life) get the same record.
 */
export function oncePerTarget<T>(
  observe: (target: NamedTarget) => Promise<T>,
): (target: NamedTarget) => Promise<T> {
  const lives = new Map<NamedTarget, Promise<T>>();
  return (target) => {
    let life = lives.get(target);
    if (!life) {
      life = observe(target);
      lives.set(target, life);
    }
    return life;
  };
}

export async function withServer<T>(
  target: NamedTarget,
  delayS: number,
  body: (s: ServerProcess) => Promise<T>,
): Promise<T> {
  const s = await startServerProcess(target.declared.serverCommand!, { shutdownDelaySeconds: delayS });
  try {
    return await body(s);
  } finally {
    await s.stop();
  }
}
