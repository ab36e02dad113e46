// The token cleaner controller (`--controllers=*,tokencleaner`): deletes bootstrap token
// secrets of the system namespace once they expire. It watches the secrets and keeps one timer
// per token secret, set to its expiration time, so a token goes when it expires rather than at
// the next poll; a secret whose expiration does not parse is deleted at once (it counts as
// expired). The deletion carries the secret's uid as precondition, so a secret recreated
// meanwhile under the same name is left alone.
import { BOOTSTRAP_TOKEN_NAMESPACE, expiresAt, isBootstrapTokenSecret } from '../registry/bootstrap-token.ts';
import type { KObject } from '../storage/types.ts';
import { ControllerClient, type ControllerEnv } from './client.ts';
import { inform } from './informer.ts';
import type { Controller } from './types.ts';

/** setTimeout's longest delay; a later expiration is waited for in steps. */
const MAX_DELAY = 2 ** 31 - 1;

export function startTokenCleaner(env: ControllerEnv): Controller {
  const client = new ControllerClient(env, 'token-cleaner');
  const timers = new Map<string, NodeJS.Timeout>();
  let stopped = false;

  const forget = (name: string) => {
    clearTimeout(timers.get(name));
    timers.delete(name);
  };
  const remove = (o: KObject) => {
    timers.delete(o.metadata.name!);
    if (stopped) return;
    client.delete('', 'secrets', BOOTSTRAP_TOKEN_NAMESPACE, o.metadata.name!, o.metadata.uid).catch(() => {
      // gone already, or recreated (the uid precondition): nothing to do
    });
  };
  const schedule = (o: KObject) => {
    const name = o.metadata.name!;
    forget(name);
    if (stopped || !isBootstrapTokenSecret(o) || o.metadata.deletionTimestamp) return;
    const at = expiresAt(o);
    if (at === undefined) return;
    const wait = at - env.now();
    if (wait < 0) {
      setImmediate(() => remove(o));
      return;
    }
    // Kubernetes' expiry test is strict (now after expiration): fire just past it
    timers.set(
      name,
      setTimeout(() => (wait + 1 > MAX_DELAY ? schedule(o) : remove(o)), Math.min(wait + 1, MAX_DELAY)),
    );
  };
  const secrets = inform(env.registry, '', 'secrets', (ev) => {
    if (ev.obj.metadata.namespace !== BOOTSTRAP_TOKEN_NAMESPACE) return;
    if (ev.type === 'DELETED') forget(ev.obj.metadata.name!);
    else schedule(ev.obj);
  });
  return {
    stop() {
      stopped = true;
      secrets?.stop();
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}
