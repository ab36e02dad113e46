// Authorization and admission: the modes (--authorization-mode), then the admission plugins that
// ask the authorizer: escalation prevention first, whatever is configured, then the built-in
// plugins in the catalog's order, each made once with its configuration.
import type { AdmissionChain } from '../admission/chain.ts';
import { loadAdmissionConfig } from '../admission/config-file.ts';
import { enabledPlugins, FACTORIES, type PluginFactory } from '../admission/plugins/catalog.ts';
import { escalationPlugin } from '../admission/plugins/rbac-escalation.ts';
import { type AuthorizationSetup, configureAuthorization } from '../authorization/configure.ts';
import type { ServerOptions } from '../config.ts';
import type { Registry } from '../registry/registry.ts';

export function wireAuthorization(options: ServerOptions, registry: Registry): AuthorizationSetup {
  return configureAuthorization(options.authorizationModes, registry, {
    configFile: options.authorizationWebhookConfigFile,
    version: options.authorizationWebhookVersion,
    authorizedTtlMs: options.authorizationWebhookCacheAuthorizedTtlMs,
    unauthorizedTtlMs: options.authorizationWebhookCacheUnauthorizedTtlMs,
  });
}

/** The plugins of the admission chain; they are closed when the server is. */
export type AdmissionPlugins = ReturnType<PluginFactory>[];

export function wireAdmission(
  admission: AdmissionChain,
  options: ServerOptions,
  registry: Registry,
  authz: AuthorizationSetup,
): AdmissionPlugins {
  const authorization = authz.chain;
  // escalation prevention runs before the configured plugins, whatever they are
  const escalation = escalationPlugin(authz.rbac, authorization);
  admission.addSource(() => [escalation]);
  // the built-in plugins, in the catalog's order; each made once with its configuration
  const pluginConfig = options.admissionControlConfigFile
    ? loadAdmissionConfig(options.admissionControlConfigFile)
    : new Map();
  const plugins = enabledPlugins(
    options.enableAdmissionPlugins ?? [],
    options.disableAdmissionPlugins ?? [],
  ).map((n) => FACTORIES[n]!({ registry, authorizer: authorization, options, config: pluginConfig.get(n) }));
  admission.addSource(() => plugins);
  return plugins;
}
