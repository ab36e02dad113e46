// The token authentication methods a server's options ask for, added to its authentication
// union: service-account tokens (always on: the reference works out of the box with a
// generated signing key and the default issuer), bootstrap tokens, OpenID Connect ID tokens
// and the token webhook, in this order. Returns what the TokenRequest subresource
// needs and a stop() for background work. The OpenID Connect and webhook modules are loaded
// only when their flags are set.
import { readFileSync } from 'node:fs';
import type { ServerOptions } from '../config.ts';
import type { Registry } from '../registry/registry.ts';
import { BootstrapTokenAuthenticator } from './bootstrap-token-authenticator.ts';
import { ServiceAccountTokenAuthenticator } from './service-account-authenticator.ts';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, ServiceAccountTokenIssuer } from './service-account-issuer.ts';
import { signingKeySource, verifyKeySet } from './service-account-keys.ts';
import type { AuthenticationUnion } from './union.ts';
import { loadWebhookConnection } from './webhook-connection.ts';

export interface TokenAuthentication {
  issuer: ServiceAccountTokenIssuer;
  apiAudiences: string[];
  now: () => number;
  /** Stops background work (caches, controllers). */
  stop(): void;
}

export async function configureTokenAuthentication(
  o: ServerOptions,
  registry: Registry,
  union: AuthenticationUnion,
): Promise<TokenAuthentication> {
  const now = o.clock ?? Date.now;
  const issuers = o.serviceAccountIssuers?.length
    ? [...o.serviceAccountIssuers]
    : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  const apiAudiences = o.apiAudiences?.length ? [...o.apiAudiences] : [issuers[0]!];
  const signing = signingKeySource({
    file: o.serviceAccountSigningKeyFile,
    dataDir: o.dataDir,
    inMemory: o.inMemory,
  });
  const keys = verifyKeySet(signing, o.serviceAccountKeyFiles ?? [], o.tlsKey);
  union.add(
    new ServiceAccountTokenAuthenticator({
      issuers,
      keys,
      apiAudiences,
      lookup: o.serviceAccountLookup ?? true,
      registry,
      now,
    }),
  );
  const stops: (() => void)[] = [];
  if (o.enableBootstrapTokenAuth) union.add(new BootstrapTokenAuthenticator(registry, now));
  if (o.oidc?.issuerUrl) {
    const { caFile, refreshIntervalMs, ...settings } = o.oidc;
    const { OidcAuthenticator } = await import('./oidc-authenticator.ts');
    const oidc = new OidcAuthenticator(
      { ...settings, caPem: caFile ? readFileSync(caFile, 'utf8') : undefined },
      { now, refreshIntervalMs },
    );
    union.add(oidc);
    stops.push(() => oidc.stop());
  }
  if (o.tokenWebhook?.configFile) {
    const w = o.tokenWebhook;
    const { WebhookTokenAuthenticator } = await import('./webhook-token-authenticator.ts');
    const webhook = new WebhookTokenAuthenticator({
      connection: loadWebhookConnection(w.configFile),
      version: w.version,
      cacheTtlMs: w.cacheTtlMs,
      timeoutMs: w.timeoutMs,
      retry: w.retry,
      apiAudiences,
      now,
    });
    union.add(webhook);
    stops.push(() => webhook.stop());
  }
  return {
    issuer: new ServiceAccountTokenIssuer(signing, issuers[0]!, now),
    apiAudiences,
    now,
    stop: () => {
      for (const s of stops.splice(0)) s();
    },
  };
}
