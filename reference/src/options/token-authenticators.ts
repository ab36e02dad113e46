// Bearer tokens checked elsewhere: OpenID Connect ID tokens (--oidc-*) and the token review
// webhook (--authentication-token-webhook-*).
import { loadWebhookConnection } from '../authentication/webhook-connection.ts';
import type { OidcOptions, TokenWebhookOptions } from '../config.ts';
import {
  asUsageError,
  durationFlag,
  type FlagValues,
  fileFlag,
  listFlag,
  type OptionSection,
  UsageError,
  urlFlag,
} from './flags.ts';

/** The JWS algorithms an OpenID issuer may sign with (asymmetric only). */
const OIDC_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

/** --oidc-issuer-url and --oidc-client-id, checked. */
function oidcIssuer(issuerUrl: string | undefined, clientId: string | undefined): OidcOptions {
  if (!issuerUrl) throw new UsageError('--oidc-issuer-url is required when any --oidc-* flag is set');
  const u = urlFlag('oidc-issuer-url', issuerUrl);
  if (u.protocol !== 'https:')
    throw new UsageError(
      `--oidc-issuer-url: "${issuerUrl}" has invalid scheme "${u.protocol.replace(':', '')}", require "https"`,
    );
  if (!clientId) throw new UsageError('--oidc-client-id must be specified together with --oidc-issuer-url');
  return { issuerUrl, clientId };
}

/** The `--oidc-*` flags; undefined when none is given. */
function parseOidc(values: FlagValues, cwd: string): OidcOptions | undefined {
  const v = (k: string) => values[`oidc-${k}`] as string | undefined;
  const given = Object.keys(values).some((k) => k.startsWith('oidc-') && values[k] !== undefined);
  if (!given) return undefined;
  const o = oidcIssuer(v('issuer-url'), v('client-id'));
  for (const [flag, key] of [
    ['username-claim', 'usernameClaim'],
    ['username-prefix', 'usernamePrefix'],
    ['groups-claim', 'groupsClaim'],
    ['groups-prefix', 'groupsPrefix'],
  ] as const) {
    const x = v(flag);
    if (x !== undefined) o[key] = x;
  }
  const required = values['oidc-required-claim'] as string[] | undefined;
  if (required?.length) {
    o.requiredClaims = {};
    for (const r of required) {
      const i = r.indexOf('=');
      if (i <= 0) throw new UsageError(`--oidc-required-claim: "${r}" is not key=value`);
      o.requiredClaims[r.slice(0, i)] = r.slice(i + 1);
    }
  }
  const ca = v('ca-file');
  if (ca !== undefined) o.caFile = fileFlag('oidc-ca-file', ca, cwd);
  const algs = listFlag('oidc-signing-algs', values['oidc-signing-algs'] as string[] | undefined);
  if (algs) {
    for (const a of algs)
      if (!OIDC_ALGS.includes(a))
        throw new UsageError(
          `--oidc-signing-algs: unsupported signing algorithm "${a}" (supported: ${OIDC_ALGS.join(', ')})`,
        );
    o.signingAlgs = algs;
  }
  return o;
}

export const oidcOptions: OptionSection = {
  flags: {
    'oidc-issuer-url': { type: 'string' },
    'oidc-client-id': { type: 'string' },
    'oidc-username-claim': { type: 'string' },
    'oidc-username-prefix': { type: 'string' },
    'oidc-groups-claim': { type: 'string' },
    'oidc-groups-prefix': { type: 'string' },
    'oidc-required-claim': { type: 'string', multiple: true },
    'oidc-ca-file': { type: 'string' },
    'oidc-signing-algs': { type: 'string', multiple: true },
  },
  usage: `  --oidc-issuer-url URL      OpenID Connect: the https URL of the one trusted issuer (discovery at
                             <URL>/.well-known/openid-configuration); needs --oidc-client-id
  --oidc-client-id ID        the audience ID tokens must carry
  --oidc-username-claim C    claim holding the username (default sub); claims other than email get
                             the issuer URL and '#' as prefix unless --oidc-username-prefix is set
  --oidc-username-prefix P   prefix of usernames; '-' disables prefixing
  --oidc-groups-claim C      claim holding the groups (a list of strings or a string)
  --oidc-groups-prefix P     prefix of group names
  --oidc-required-claim K=V  a claim that must be present with this value; repeatable
  --oidc-ca-file PATH        PEM CAs that sign the issuer's certificate (default: the host's roots)
  --oidc-signing-algs LIST   accepted signing algorithms (default RS256)
`,
  parse({ values, cwd, options }) {
    const oidc = parseOidc(values, cwd);
    if (oidc) options.oidc = oidc;
  },
};

/** The `--authentication-token-webhook-*` flags; the connection file is read and checked here. */
function parseTokenWebhook(
  str: (name: string) => string | undefined,
  cwd: string,
): TokenWebhookOptions | undefined {
  const file = str('authentication-token-webhook-config-file');
  const ttl = str('authentication-token-webhook-cache-ttl');
  const version = str('authentication-token-webhook-version');
  if (file === undefined) {
    if (ttl !== undefined || version !== undefined)
      throw new UsageError(
        '--authentication-token-webhook-cache-ttl and -version need --authentication-token-webhook-config-file',
      );
    return undefined;
  }
  const configFile = fileFlag('authentication-token-webhook-config-file', file, cwd);
  asUsageError('--authentication-token-webhook-config-file: ', () => loadWebhookConnection(configFile));
  const o: TokenWebhookOptions = { configFile };
  const ms = durationFlag('authentication-token-webhook-cache-ttl', ttl);
  if (ms !== undefined) o.cacheTtlMs = ms;
  if (version !== undefined) {
    if (version !== 'v1' && version !== 'v1beta1')
      throw new UsageError(`--authentication-token-webhook-version: "${version}" is not v1 or v1beta1`);
    o.version = version;
  }
  return o;
}

export const tokenWebhookOptions: OptionSection = {
  flags: {
    'authentication-token-webhook-config-file': { type: 'string' },
    'authentication-token-webhook-cache-ttl': { type: 'string' },
    'authentication-token-webhook-version': { type: 'string' },
  },
  usage: `  --authentication-token-webhook-config-file PATH
                             kubeconfig-format file naming a webhook that reviews bearer tokens
                             (clusters[0]: server and CA; users[0]: client certificate or token)
  --authentication-token-webhook-cache-ttl DURATION
                             how long webhook answers are cached (default 2m; 0 turns it off)
  --authentication-token-webhook-version V
                             TokenReview version sent to the webhook: v1 or v1beta1 (default v1beta1)
`,
  parse({ str, cwd, options }) {
    const webhook = parseTokenWebhook(str, cwd);
    if (webhook) options.tokenWebhook = webhook;
  },
};
