// The token cleaner controller (`--controllers=*,tokencleaner`): deletes bootstrap token
// secrets of the system namespace once they expire. It watches the namespace's secrets and
// keeps one timer per token secret, set to its expiration time, so a token goes when it
// expires rather than at the next poll; a secret whose expiration does not parse is deleted
// at once (it counts as expired). The deletion carries the secret's uid as precondition, so
// a secret recreated meanwhile under the same name is left alone.
import type { StatusError } from '../errors/status.ts';
import type { KObject } from '../storage/types.ts';
import { BOOTSTRAP_TOKEN_NAMESPACE, expiresAt, isBootstrapTokenSecret } from './bootstrap-token.ts';
import type { Registry } from './registry.ts';
import type { RequestContext } from './types.ts';

const CONTROLLER: RequestContext = {
  user: { username: 'system:serviceaccount:orch-system:token-cleaner', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
};
/** setTimeout's longest delay; a later expiration is waited for in steps. */
const MAX_DELAY = 2 ** 31 - 1;

export interface Controller {
  stop(): void;
}

export function startTokenCleaner(registry: Registry, now: () => number = Date.now): Controller {
  const store = registry.byResource('', 'secrets')!.store;
  const timers = new Map<string, NodeJS.Timeout>();
  let stopped = false;
  let cancelWatch = () => {};

  const forget = (name: string) => {
    clearTimeout(timers.get(name));
    timers.delete(name);
  };
  const remove = (o: KObject) => {
    timers.delete(o.metadata.name!);
    if (stopped) return;
    store
      .delete(
        BOOTSTRAP_TOKEN_NAMESPACE,
        o.metadata.name!,
        { preconditions: { uid: o.metadata.uid } },
        CONTROLLER,
        'v1',
      )
      .catch(() => {
        // gone already, or recreated (the uid precondition): nothing to do
      });
  };
  const schedule = (o: KObject) => {
    const name = o.metadata.name!;
    forget(name);
    if (!isBootstrapTokenSecret(o) || o.metadata.deletionTimestamp) return;
    const at = expiresAt(o);
    if (at === undefined) return;
    const wait = at - now();
    if (wait < 0) {
      remove(o);
      return;
    }
    // Kubernetes' expiry test is strict (now after expiration): fire just past it
    timers.set(
      name,
      setTimeout(() => (wait + 1 > MAX_DELAY ? schedule(o) : remove(o)), Math.min(wait + 1, MAX_DELAY)),
    );
  };
  const watch = () => {
    if (stopped) return;
    cancelWatch = store.watch(
      BOOTSTRAP_TOKEN_NAMESPACE,
      { resourceVersion: '0' },
      {
        event: (type, o) => (type === 'DELETED' ? forget(o.metadata.name!) : schedule(o)),
        bookmark: () => {},
        error: (_e: StatusError) => {},
        // a watch ends at its timeout: list again and go on
        end: () => queueMicrotask(watch),
      },
    );
  };
  watch();
  return {
    stop() {
      stopped = true;
      cancelWatch();
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}
