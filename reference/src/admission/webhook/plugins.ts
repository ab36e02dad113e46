// The two webhook admission plugins as the plugin catalog makes them: each reads its own kind
// of configuration objects, authenticates with the connection file its configuration names,
// and skips the admission configuration kinds themselves (Kubernetes 1.28 never sends them).
import type { AuthorizerChain } from '../../authorization/chain.ts';
import type { Registry } from '../../registry/registry.ts';
import type { AdmissionPlugin } from '../types.ts';
import { WebhookClient } from './client.ts';
import { credentialsFromConfig } from './credentials.ts';
import { isExempt } from './matching.ts';
import { MUTATING_PLUGIN, MutatingDispatcher } from './mutating.ts';
import { WebhookSource } from './source.ts';
import { VALIDATING_PLUGIN, ValidatingDispatcher } from './validating.ts';

/** What the catalog gives a plugin, as far as these use it. */
interface PluginEnv {
  registry: Registry;
  authorizer: AuthorizerChain;
  config: unknown;
}

export function mutatingAdmissionWebhook(env: PluginEnv): AdmissionPlugin {
  const client = new WebhookClient(env.registry, credentialsFromConfig(MUTATING_PLUGIN, env.config));
  const d = new MutatingDispatcher(
    env.registry,
    new WebhookSource(env.registry, true),
    client,
    env.authorizer,
  );
  return {
    name: MUTATING_PLUGIN,
    handles: (a) => !isExempt(a),
    mutate: (a) => d.dispatch(a),
    close: () => client.close(),
  };
}

export function validatingAdmissionWebhook(env: PluginEnv): AdmissionPlugin {
  const client = new WebhookClient(env.registry, credentialsFromConfig(VALIDATING_PLUGIN, env.config));
  const d = new ValidatingDispatcher(
    env.registry,
    new WebhookSource(env.registry, false),
    client,
    env.authorizer,
  );
  return {
    name: VALIDATING_PLUGIN,
    handles: (a) => !isExempt(a),
    validate: (a) => d.dispatch(a),
    close: () => client.close(),
  };
}
