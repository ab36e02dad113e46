// Command line of the reference server: `serve` runs it standalone (HTTPS with a generated
// CA by default), writes a kubeconfig for it and prints how to reach it.
//
//   tsx reference/src/cli.ts serve [flags]      (npm run server -- [flags])
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { onParentGone } from '../../lifeline/parent.ts';
import { loadAdmissionConfig } from './admission/config-file.ts';
import { enabledPlugins } from './admission/plugins/catalog.ts';
import { loadAuditPolicyFile } from './audit/policy.ts';
import { AUDIT_LOG_FORMATS, type AuditLogFormat } from './audit/sinks.ts';
import { parsePublicKeys, signingKeyFromPem } from './authentication/service-account-keys.ts';
import { loadWebhookConnection } from './authentication/webhook-connection.ts';
import { modesProblem } from './authorization/configure.ts';
import {
  DEFAULTS,
  type FeatureGates,
  type OidcOptions,
  type ServerOptions,
  type TokenWebhookOptions,
} from './config.ts';
import { CONTROLLERS, KNOWN_CONTROLLERS } from './controllers/catalog.ts';
import { ConfigurationError } from './errors/config-error.ts';
import { type EtcdProcess, startEtcd } from './etcd-process.ts';
import {
  defaultFeatureGates,
  knownFeatureGates,
  parseFeatureGateList,
  resolveFeatureGates,
} from './features/feature-gates.ts';
import { build, type OrchServer, SERVER_RELEASE, SERVER_VERSION } from './index.ts';
import { CONTEXT_NAME, writeKubeconfig } from './kubeconfig.ts';
import { previousMinor, showHiddenProblem } from './metrics/lifecycle.ts';
import { parseRuntimeConfig, RuntimeConfigError } from './registry/runtime-config.ts';
import { parseGoDuration } from './util/duration.ts';
import { newToken } from './util/token.ts';

export const DEFAULT_PORT = 6443;
export const TOKEN_FILE = 'admin-token';

export const SERVE_USAGE = `Usage: orch-conformance serve [flags]
       npm run server -- [flags]

Runs the orch reference server standalone, writes a kubeconfig for it and prints its URL,
the admin token and the kubeconfig path.

Flags:
  --port N                   port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host ADDR                address to listen on (default ${DEFAULTS.host})
  --data-dir DIR             durable store, certificates, admin token (default ${DEFAULTS.dataDir})
  --in-memory                keep objects in memory only (nothing survives a restart)
  --no-fsync                 do not fdatasync the write-ahead log before answering writes
  --insecure-http            serve plain HTTP instead of HTTPS (loopback hosts only)
  --feature-gates LIST       Name=true|false pairs for the Kubernetes 1.28 feature gates, e.g.
                             WatchList=true,APIResponseCompression=false; an unknown gate, or a GA
                             gate locked to true set to false, is refused; GA and deprecated gates
                             warn. AllAlpha / AllBeta set every alpha / beta gate not named. Alpha
                             and beta gates:
${knownFeatureGates()
  .map((g) => `                               ${g}`)
  .join('\n')}
  --runtime-config LIST      key[=true|false] pairs switching built-in APIs on or off: <group>/<version>
                             (e.g. apps/v1=false), <group>/<version>/<resource> (e.g.
                             apps/v1/deployments=false), v1 or api/v1 (the core group, which cannot
                             be switched off), api/all, api/ga, api/beta, api/alpha. Default: GA
                             versions on, alpha off, beta off except the flowcontrol v1beta2/v1beta3
                             resources (as 1.28) and the authentication v1beta1 reviews (doc3)
  --etcd-servers URL[,URL]   keep the objects in etcd v3 at these client URLs (http:// or https://)
                             instead of the write-ahead log; several servers on one etcd (and
                             prefix) serve one API. Resource versions are etcd revisions
  --etcd                     start a private etcd (Debian's etcd-server) on a free loopback port
                             with a temporary data directory, use it, and stop it on exit
  --exit-with-parent         stop as on SIGTERM once the process that started the server ends,
                             however it ends (kill -9 included); \`npm run server\` sets it
  --etcd-prefix P            key prefix of the objects in etcd (default /registry)
  --etcd-cafile FILE         CA (PEM) that signed etcd's serving certificate (TLS)
  --etcd-certfile FILE       client certificate (PEM) for etcd, with --etcd-keyfile
  --etcd-keyfile FILE        client key (PEM) for etcd
  --etcd-compaction-interval D
                             compact etcd's history this often, to the revision seen one interval
                             before (a Go duration; default 5m; 0 never compacts); versions older
                             than the last compaction answer 410 Gone
  --history-seconds N        change history kept for watches and exact reads (default ${DEFAULTS.historySeconds})
  --continue-ttl-seconds N   lifetime of list continue tokens (default ${DEFAULTS.continueTtlSeconds})
  --bookmark-interval-seconds N
                             a BOOKMARK to each watch with allowWatchBookmarks=true every N s
                             (default ${DEFAULTS.bookmarkIntervalMs / 1000})
  --livez-grace-period D     from start, /livez takes post-start hooks still running as passing
                             for D (a Go duration: 30s, 2m; default 0s)
  --shutdown-delay-duration D
                             on SIGTERM, /readyz fails at once while requests are still served
                             for D; then the server stops accepting, finishes what is in flight,
                             ends each watch (a last BOOKMARK where asked for) and exits 0
                             (default 0s)
  --token TOKEN              admin bearer token (default: generated once, kept in <data-dir>/${TOKEN_FILE})
  --kubeconfig PATH          where to write the kubeconfig (default <data-dir>/kubeconfig)
  --audit-log-path PATH      write audit events to PATH, one a line, appended ('-': standard
                             output); which requests and stages: --audit-policy-file
  --audit-policy-file FILE   audit.orch.io/v1 Policy (YAML or JSON): rules in order, the first
                             that matches gives the level (None, Metadata, Request,
                             RequestResponse) and the stages left out; an invalid policy stops
                             the start. Without one: every request at Metadata, one event when
                             its response is complete
  --audit-log-format F       json (default) or legacy (one line of text per event)
  --audit-log-maxsize MB     rotate the log before it grows past MB megabytes (0: 100)
  --audit-log-maxbackup N    rotated files kept, newest first (0: all)
  --audit-log-maxage DAYS    rotated files removed after DAYS days (0: never)
  --audit-log-compress       gzip rotated files
  --token-auth-file FILE     static bearer tokens: CSV of token,user,uid[,"group1,group2"]
  --client-ca-file FILE      PEM CA bundle: a client certificate it verifies authenticates as
                             user = subject CN, groups = subject O's (HTTPS only)
  --requestheader-username-headers LIST
                             authenticating proxy: headers naming the user (first non-empty wins)
  --requestheader-group-headers LIST
                             authenticating proxy: headers whose values are groups
  --requestheader-extra-headers-prefix LIST
                             authenticating proxy: header prefixes of extra attributes
  --requestheader-client-ca-file FILE
                             PEM CA bundle that must verify the proxy's client certificate
                             (required with the other --requestheader-* flags)
  --requestheader-allowed-names LIST
                             common names the proxy's certificate may have (default: any)
  --cluster-signing-cert-file FILE, --cluster-signing-key-file FILE
                             CA certificate and key that sign approved certificate signing
                             requests for orch.io/kube-apiserver-client (both or neither)
  --service-account-signing-key-file PATH
                             PEM private key (RSA or EC) that signs service-account tokens
                             (default: generated once, kept in <data-dir>/pki/service-account.key)
  --service-account-key-file PATH
                             PEM public keys, private keys or certificates that verify
                             service-account tokens; repeatable (default: the TLS key)
  --service-account-issuer URL
                             issuer of service-account tokens; repeatable: the first signs, all are
                             accepted (default https://orch.default.svc.cluster.local)
  --api-audiences LIST       comma-separated audiences API tokens must name one of (default: the issuer)
  --service-account-lookup=BOOL
                             refuse tokens whose service account or bound object no longer
                             exists with the same uid (default true)
  --enable-bootstrap-token-auth
                             bootstrap token secrets (bootstrap.orch.io/token, in orch-system)
                             authenticate as system:bootstrap:<token-id>
  --controllers LIST         controllers to run, as Kubernetes' controller manager reads the flag:
                             * (the default set), a name to add one, -name to remove one (the first
                             entry naming a controller decides); namespace, serviceaccount,
                             root-ca-cert-publisher, garbagecollector, deployment and replicaset
                             are on by default, tokencleaner and bootstrapsigner off: a cluster
                             runs --controllers=*,tokencleaner,bootstrapsigner
  --oidc-issuer-url URL      OpenID Connect: the https URL of the one trusted issuer (discovery at
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
  --authentication-token-webhook-config-file PATH
                             kubeconfig-format file naming a webhook that reviews bearer tokens
                             (clusters[0]: server and CA; users[0]: client certificate or token)
  --authentication-token-webhook-cache-ttl DURATION
                             how long webhook answers are cached (default 2m; 0 turns it off)
  --authentication-token-webhook-version V
                             TokenReview version sent to the webhook: v1 or v1beta1 (default v1beta1)
  --authorization-mode LIST  authorizers asked in order after system:masters: AlwaysAllow,
                             AlwaysDeny, RBAC, Webhook (default ${DEFAULTS.authorizationModes.join(',')})
  --authorization-webhook-config-file PATH
                             kubeconfig-format file naming the Webhook mode's webhook
  --authorization-webhook-version V
                             SubjectAccessReview version sent: v1 or v1beta1 (default v1beta1)
  --authorization-webhook-cache-authorized-ttl D
                             how long allowed answers are cached, e.g. 5m, 30s (default 5m)
  --authorization-webhook-cache-unauthorized-ttl D
                             how long other answers are cached (default 30s)
  --anonymous-auth BOOL      true or false: requests without credentials are system:anonymous
                             (default true; always off when the modes include AlwaysAllow)
  --enable-admission-plugins LIST
                             admission plugins to turn on beside the default-enabled ones
                             (comma-separated, any order; they run in the server's fixed order)
  --disable-admission-plugins LIST
                             admission plugins to turn off, default-enabled ones included
  --admission-control-config-file PATH
                             AdmissionConfiguration (apiserver.config.orch.io/v1) with each
                             plugin's configuration, inline or in a file its entry names
  --default-not-ready-toleration-seconds N
                             tolerationSeconds of the not-ready toleration DefaultTolerationSeconds
                             adds to pods that lack one (default 300)
  --default-unreachable-toleration-seconds N
                             the same for the unreachable toleration (default 300)
  --show-hidden-metrics-for-version V
                             show again on /metrics the metrics this release hides (deprecated
                             long enough ago); only the previous minor release is accepted:
                             ${previousMinor(SERVER_RELEASE)}
  -h, --help                 show this help
`;

export const USAGE = `Usage: orch-conformance <command> [flags]

Commands:
  serve    run the reference server (see: serve --help)
  run      run the conformance suites against a server
`;

/** Everything `serve` needs, resolved from the flags. */
export interface ServeConfig {
  options: Partial<ServerOptions>;
  /** Absolute path of the kubeconfig to write. */
  kubeconfigPath: string;
  /** An explicit `--token` (otherwise the kept or a generated one). */
  token?: string;
  /** Warnings to print at start (deprecated or GA feature gates set, deprecated runtime-config keys). */
  warnings?: string[];
  /** `--etcd`: start a private etcd child process for the store, stopped with the server. */
  startEtcd?: boolean;
  /** `--exit-with-parent`: stop (as on SIGTERM) once the process that started the server ends. */
  exitWithParent?: boolean;
}

export class UsageError extends Error {}

const SERVE_FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  'in-memory': { type: 'boolean' },
  'no-fsync': { type: 'boolean' },
  'insecure-http': { type: 'boolean' },
  'feature-gates': { type: 'string', multiple: true },
  'runtime-config': { type: 'string', multiple: true },
  'history-seconds': { type: 'string' },
  etcd: { type: 'boolean' },
  'exit-with-parent': { type: 'boolean' },
  'etcd-servers': { type: 'string', multiple: true },
  'etcd-prefix': { type: 'string' },
  'etcd-cafile': { type: 'string' },
  'etcd-certfile': { type: 'string' },
  'etcd-keyfile': { type: 'string' },
  'etcd-compaction-interval': { type: 'string' },
  'continue-ttl-seconds': { type: 'string' },
  'bookmark-interval-seconds': { type: 'string' },
  'livez-grace-period': { type: 'string' },
  'shutdown-delay-duration': { type: 'string' },
  token: { type: 'string' },
  kubeconfig: { type: 'string' },
  'audit-log-path': { type: 'string' },
  'audit-policy-file': { type: 'string' },
  'audit-log-format': { type: 'string' },
  'audit-log-maxsize': { type: 'string' },
  'audit-log-maxbackup': { type: 'string' },
  'audit-log-maxage': { type: 'string' },
  'audit-log-compress': { type: 'boolean' },
  'token-auth-file': { type: 'string' },
  'client-ca-file': { type: 'string' },
  'requestheader-username-headers': { type: 'string', multiple: true },
  'requestheader-group-headers': { type: 'string', multiple: true },
  'requestheader-extra-headers-prefix': { type: 'string', multiple: true },
  'requestheader-client-ca-file': { type: 'string' },
  'requestheader-allowed-names': { type: 'string', multiple: true },
  'cluster-signing-cert-file': { type: 'string' },
  'cluster-signing-key-file': { type: 'string' },
  'service-account-signing-key-file': { type: 'string' },
  'service-account-key-file': { type: 'string', multiple: true },
  'service-account-issuer': { type: 'string', multiple: true },
  'api-audiences': { type: 'string', multiple: true },
  'service-account-lookup': { type: 'string' },
  'enable-bootstrap-token-auth': { type: 'boolean' },
  controllers: { type: 'string', multiple: true },
  'oidc-issuer-url': { type: 'string' },
  'oidc-client-id': { type: 'string' },
  'oidc-username-claim': { type: 'string' },
  'oidc-username-prefix': { type: 'string' },
  'oidc-groups-claim': { type: 'string' },
  'oidc-groups-prefix': { type: 'string' },
  'oidc-required-claim': { type: 'string', multiple: true },
  'oidc-ca-file': { type: 'string' },
  'oidc-signing-algs': { type: 'string', multiple: true },
  'authentication-token-webhook-config-file': { type: 'string' },
  'authentication-token-webhook-cache-ttl': { type: 'string' },
  'authentication-token-webhook-version': { type: 'string' },
  'authorization-mode': { type: 'string' },
  'authorization-webhook-config-file': { type: 'string' },
  'authorization-webhook-version': { type: 'string' },
  'authorization-webhook-cache-authorized-ttl': { type: 'string' },
  'authorization-webhook-cache-unauthorized-ttl': { type: 'string' },
  'anonymous-auth': { type: 'string' },
  'enable-admission-plugins': { type: 'string', multiple: true },
  'disable-admission-plugins': { type: 'string', multiple: true },
  'admission-control-config-file': { type: 'string' },
  'default-not-ready-toleration-seconds': { type: 'string' },
  'default-unreachable-toleration-seconds': { type: 'string' },
  'show-hidden-metrics-for-version': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function intFlag(name: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim())) throw new UsageError(`--${name}: "${v}" is not a whole number`);
  const n = Number(v);
  if (n < min || n > max) throw new UsageError(`--${name}: ${n} is out of range [${min}, ${max}]`);
  return n;
}

/** A Go duration flag (`5m`, `30s`, `1h30m`, `500ms`, `0`) in milliseconds. */
function durationFlag(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const ms = parseGoDuration(v.trim());
  if (ms === undefined) throw new UsageError(`--${name}: "${v}" is not a duration (e.g. 30s, 5m, 1h30m)`);
  return ms;
}

/** Loopback addresses: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

function boolFlag(name: string, v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (v !== 'true' && v !== 'false') throw new UsageError(`--${name}: "${v}" is not true or false`);
  return v === 'true';
}

/** A readable file's absolute path. */
function fileFlag(name: string, v: string, cwd: string): string {
  if (!v.trim()) throw new UsageError(`--${name}: must not be empty`);
  const p = resolve(cwd, v);
  if (!existsSync(p)) throw new UsageError(`--${name}: ${p} does not exist`);
  return p;
}

/** Comma-separated values of a repeatable flag, none empty. */
function listFlag(name: string, vs: string[] | undefined): string[] | undefined {
  if (!vs?.length) return undefined;
  const out = vs.flatMap((v) => v.split(',')).map((s) => s.trim());
  if (out.some((s) => !s)) throw new UsageError(`--${name}: empty entry in "${vs.join(',')}"`);
  return out;
}

/** The service-account token flags. */
function parseServiceAccountFlags(
  values: Record<string, unknown>,
  cwd: string,
  options: Partial<ServerOptions>,
): void {
  const signing = values['service-account-signing-key-file'] as string | undefined;
  if (signing !== undefined) {
    const file = fileFlag('service-account-signing-key-file', signing, cwd);
    try {
      signingKeyFromPem(readFileSync(file, 'utf8'), file);
    } catch (e) {
      throw new UsageError(`--service-account-signing-key-file: ${(e as Error).message}`);
    }
    options.serviceAccountSigningKeyFile = file;
  }
  const keys = values['service-account-key-file'] as string[] | undefined;
  if (keys?.length)
    options.serviceAccountKeyFiles = keys.map((k) => {
      const file = fileFlag('service-account-key-file', k, cwd);
      try {
        parsePublicKeys(readFileSync(file, 'utf8'), file);
      } catch (e) {
        throw new UsageError(`--service-account-key-file: ${(e as Error).message}`);
      }
      return file;
    });
  const issuers = values['service-account-issuer'] as string[] | undefined;
  if (issuers?.length) {
    for (const i of issuers) {
      if (!i.trim()) throw new UsageError('--service-account-issuer: must not be empty');
      // Kubernetes: a URL must be https; any other value must not contain a colon
      if (i.includes(':')) {
        let u: URL;
        try {
          u = new URL(i);
        } catch {
          throw new UsageError(`--service-account-issuer: "${i}" is not a valid URL`);
        }
        if (u.protocol !== 'https:')
          throw new UsageError(`--service-account-issuer: "${i}" must use the https scheme`);
      }
    }
    options.serviceAccountIssuers = issuers;
  }
  const aud = listFlag('api-audiences', values['api-audiences'] as string[] | undefined);
  if (aud) options.apiAudiences = aud;
  const lookup = boolFlag('service-account-lookup', values['service-account-lookup'] as string | undefined);
  if (lookup !== undefined) options.serviceAccountLookup = lookup;
}

/** `--controllers`: `*`, known names (short or canonical) and `-name`. */
function parseControllers(vs: string[] | undefined): string[] | undefined {
  const list = listFlag('controllers', vs);
  if (!list) return undefined;
  for (const c of list) {
    const name = c.replace(/^-/, '');
    if (c !== '*' && !KNOWN_CONTROLLERS.includes(name))
      throw new UsageError(
        `--controllers: "${name}" is not in the list of known controllers (${CONTROLLERS.map((k) => k.name).join(', ')})`,
      );
  }
  return list;
}

/** The JWS algorithms an OpenID issuer may sign with (asymmetric only). */
const OIDC_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

/** The `--oidc-*` flags; undefined when none is given. */
function parseOidcFlags(values: Record<string, unknown>, cwd: string): OidcOptions | undefined {
  const v = (k: string) => values[`oidc-${k}`] as string | undefined;
  const given = Object.keys(values).some((k) => k.startsWith('oidc-') && values[k] !== undefined);
  if (!given) return undefined;
  const issuerUrl = v('issuer-url');
  const clientId = v('client-id');
  if (!issuerUrl) throw new UsageError('--oidc-issuer-url is required when any --oidc-* flag is set');
  let u: URL;
  try {
    u = new URL(issuerUrl);
  } catch {
    throw new UsageError(`--oidc-issuer-url: "${issuerUrl}" is not a valid URL`);
  }
  if (u.protocol !== 'https:')
    throw new UsageError(
      `--oidc-issuer-url: "${issuerUrl}" has invalid scheme "${u.protocol.replace(':', '')}", require "https"`,
    );
  if (!clientId) throw new UsageError('--oidc-client-id must be specified together with --oidc-issuer-url');
  const o: OidcOptions = { issuerUrl, clientId };
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

/** The `--authentication-token-webhook-*` flags; the connection file is read and checked here. */
function parseTokenWebhookFlags(
  values: Record<string, unknown>,
  cwd: string,
): TokenWebhookOptions | undefined {
  const file = values['authentication-token-webhook-config-file'] as string | undefined;
  const ttl = values['authentication-token-webhook-cache-ttl'] as string | undefined;
  const version = values['authentication-token-webhook-version'] as string | undefined;
  if (file === undefined) {
    if (ttl !== undefined || version !== undefined)
      throw new UsageError(
        '--authentication-token-webhook-cache-ttl and -version need --authentication-token-webhook-config-file',
      );
    return undefined;
  }
  const configFile = fileFlag('authentication-token-webhook-config-file', file, cwd);
  try {
    loadWebhookConnection(configFile);
  } catch (e) {
    throw new UsageError(`--authentication-token-webhook-config-file: ${(e as Error).message}`);
  }
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

function isWildcard(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === '0.0.0.0' || h === '::' || h === '';
}

/** The flags of the user authentication methods and of the client certificate signer. */
function authenticationFlags(
  values: Record<string, string | boolean | string[] | undefined>,
  cwd: string,
  tls: boolean | undefined,
): Partial<ServerOptions> {
  // paths only: the files are read, and their absence reported, when the server starts
  const file = (k: string) => {
    const v = values[k] as string | undefined;
    if (v === undefined) return undefined;
    if (!v.trim()) throw new UsageError(`--${k}: must not be empty`);
    return resolve(cwd, v);
  };
  const list = (k: string) =>
    (values[k] as string[] | undefined)
      ?.flatMap((p) => p.split(','))
      .map((x) => x.trim())
      .filter(Boolean);
  const o: Partial<ServerOptions> = {};
  const tokenFile = file('token-auth-file');
  if (tokenFile) o.tokenAuthFile = tokenFile;
  const clientCa = file('client-ca-file');
  if (clientCa) {
    if (tls === false) throw new UsageError('--client-ca-file needs HTTPS (not --insecure-http)');
    o.clientCaFile = clientCa;
  }
  const rh = {
    requestheaderUsernameHeaders: list('requestheader-username-headers'),
    requestheaderGroupHeaders: list('requestheader-group-headers'),
    requestheaderExtraHeadersPrefix: list('requestheader-extra-headers-prefix'),
    requestheaderAllowedNames: list('requestheader-allowed-names'),
  };
  const rhCa = file('requestheader-client-ca-file');
  const rhUsed = Object.values(rh).some((v) => v !== undefined);
  if (rhCa || rhUsed) {
    if (!rhCa)
      throw new UsageError(
        '--requestheader-client-ca-file is required with the other --requestheader-* flags',
      );
    if (!rh.requestheaderUsernameHeaders?.length)
      throw new UsageError(
        '--requestheader-username-headers is required with --requestheader-client-ca-file',
      );
    if (tls === false)
      throw new UsageError('--requestheader-client-ca-file needs HTTPS (not --insecure-http)');
    o.requestheaderClientCaFile = rhCa;
    for (const [k, v] of Object.entries(rh)) if (v !== undefined) (o as Record<string, unknown>)[k] = v;
  }
  const signCert = file('cluster-signing-cert-file');
  const signKey = file('cluster-signing-key-file');
  if ((signCert === undefined) !== (signKey === undefined))
    throw new UsageError(
      '--cluster-signing-cert-file and --cluster-signing-key-file go together (both or neither)',
    );
  if (signCert && signKey)
    Object.assign(o, { clusterSigningCertFile: signCert, clusterSigningKeyFile: signKey });
  return o;
}

/** Parses the flags of `serve` (without the word `serve`); undefined when help was asked for. */
export function parseServeArgs(argv: string[], cwd = process.cwd()): ServeConfig | undefined {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: SERVE_FLAGS, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return undefined;
  const str = (k: string) => values[k] as string | undefined;
  const options: Partial<ServerOptions> = {};
  options.port = intFlag('port', str('port'), 0, 65535) ?? DEFAULT_PORT;
  const host = str('host') ?? DEFAULTS.host;
  if (!host.trim()) throw new UsageError('--host: must not be empty');
  options.host = host.replace(/^\[|\]$/g, '');
  options.dataDir = resolve(cwd, str('data-dir') ?? DEFAULTS.dataDir);
  options.inMemory = values['in-memory'] === true;
  options.fsync = values['no-fsync'] !== true;
  if (values['insecure-http']) {
    if (!isLoopback(options.host))
      throw new UsageError(
        `--insecure-http is only allowed on a loopback host (127.0.0.1, ::1, localhost), not "${host}"`,
      );
    options.tls = false;
  } else options.tls = true;
  const warnings: string[] = [];
  const gates = (values['feature-gates'] as string[] | undefined) ?? [];
  if (gates.length) {
    try {
      const r = resolveFeatureGates(parseFeatureGateList(gates.join(',')));
      options.featureGates = r.gates as FeatureGates;
      warnings.push(...r.warnings);
    } catch (e) {
      throw new UsageError(`--feature-gates: ${(e as Error).message}`);
    }
  }
  const rc = (values['runtime-config'] as string[] | undefined) ?? [];
  if (rc.length) {
    // the form here; the group versions and resources it names are checked when the server is built
    options.runtimeConfig = rc.join(',');
    try {
      warnings.push(...parseRuntimeConfig(options.runtimeConfig).warnings);
    } catch (e) {
      if (e instanceof RuntimeConfigError) throw new UsageError(`--runtime-config: ${e.message}`);
      throw e;
    }
  }
  const etcdServers = ((values['etcd-servers'] as string[] | undefined) ?? []).flatMap((v) => v.split(','));
  if (etcdServers.length || values.etcd) {
    if (values['in-memory']) throw new UsageError('--in-memory and --etcd-servers/--etcd exclude each other');
    if (etcdServers.length && values.etcd)
      throw new UsageError('--etcd starts its own etcd: not together with --etcd-servers');
    for (const u of etcdServers) {
      let ok = false;
      try {
        const parsed = new URL(u.trim());
        ok = (parsed.protocol === 'http:' || parsed.protocol === 'https:') && !!parsed.host;
      } catch {}
      if (!ok) throw new UsageError(`--etcd-servers: "${u}" is not an http:// or https:// URL`);
    }
    options.etcdServers = etcdServers.map((u) => u.trim());
    const prefix = str('etcd-prefix');
    if (prefix !== undefined) {
      if (!prefix.startsWith('/') || prefix.length < 2)
        throw new UsageError('--etcd-prefix: must start with / and name something (e.g. /registry)');
      options.etcdPrefix = prefix;
    }
    for (const [flag, key] of [
      ['etcd-cafile', 'etcdCaFile'],
      ['etcd-certfile', 'etcdCertFile'],
      ['etcd-keyfile', 'etcdKeyFile'],
    ] as const) {
      const f = str(flag);
      if (f === undefined) continue;
      const path = resolve(cwd, f);
      if (!existsSync(path)) throw new UsageError(`--${flag}: ${f} does not exist`);
      options[key] = path;
    }
    if (!!options.etcdCertFile !== !!options.etcdKeyFile)
      throw new UsageError('--etcd-certfile and --etcd-keyfile go together (both or neither)');
    const ci = str('etcd-compaction-interval');
    if (ci !== undefined) options.etcdCompactionIntervalMs = durationFlag('etcd-compaction-interval', ci);
  } else {
    for (const f of [
      'etcd-prefix',
      'etcd-cafile',
      'etcd-certfile',
      'etcd-keyfile',
      'etcd-compaction-interval',
    ])
      if (values[f] !== undefined) throw new UsageError(`--${f} needs --etcd-servers (or --etcd)`);
  }
  const hs = intFlag('history-seconds', str('history-seconds'), 1, 7 * 24 * 3600);
  if (hs !== undefined) options.historySeconds = hs;
  const ct = intFlag('continue-ttl-seconds', str('continue-ttl-seconds'), 1, 7 * 24 * 3600);
  if (ct !== undefined) options.continueTtlSeconds = ct;
  const bi = intFlag('bookmark-interval-seconds', str('bookmark-interval-seconds'), 1, 24 * 3600);
  if (bi !== undefined) options.bookmarkIntervalMs = bi * 1000;
  const grace = durationFlag('livez-grace-period', str('livez-grace-period'));
  if (grace !== undefined) options.livezGracePeriodMs = grace;
  const delay = durationFlag('shutdown-delay-duration', str('shutdown-delay-duration'));
  if (delay !== undefined) options.shutdownDelayMs = delay;
  const token = str('token');
  if (token !== undefined && !/^[\x21-\x7e]+$/.test(token))
    throw new UsageError('--token: must be non-empty printable ASCII without spaces');
  parseAuditFlags(values, str, cwd, options);
  Object.assign(options, authenticationFlags(values, cwd, options.tls));
  parseServiceAccountFlags(values, cwd, options);
  if (values['enable-bootstrap-token-auth']) options.enableBootstrapTokenAuth = true;
  const controllers = parseControllers(values.controllers as string[] | undefined);
  if (controllers) options.controllers = controllers;
  const oidc = parseOidcFlags(values, cwd);
  if (oidc) options.oidc = oidc;
  const webhook = parseTokenWebhookFlags(values, cwd);
  if (webhook) options.tokenWebhook = webhook;
  const modes = str('authorization-mode');
  if (modes !== undefined) {
    const list = modes.split(',').map((m) => m.trim());
    const problem = modesProblem(list.filter((m) => m !== '').length === list.length ? list : []);
    if (problem) throw new UsageError(`--authorization-mode: ${problem}`);
    options.authorizationModes = list;
  }
  const webhookFile = str('authorization-webhook-config-file');
  if (webhookFile !== undefined)
    options.authorizationWebhookConfigFile = fileFlag('authorization-webhook-config-file', webhookFile, cwd);
  if (
    (options.authorizationModes ?? DEFAULTS.authorizationModes).includes('Webhook') &&
    !options.authorizationWebhookConfigFile
  )
    throw new UsageError('--authorization-mode: the Webhook mode needs --authorization-webhook-config-file');
  const webhookVersion = str('authorization-webhook-version');
  if (webhookVersion !== undefined) {
    if (webhookVersion !== 'v1' && webhookVersion !== 'v1beta1')
      throw new UsageError(`--authorization-webhook-version: "${webhookVersion}" is not v1 or v1beta1`);
    options.authorizationWebhookVersion = webhookVersion;
  }
  const okTtl = durationFlag(
    'authorization-webhook-cache-authorized-ttl',
    str('authorization-webhook-cache-authorized-ttl'),
  );
  if (okTtl !== undefined) options.authorizationWebhookCacheAuthorizedTtlMs = okTtl;
  const noTtl = durationFlag(
    'authorization-webhook-cache-unauthorized-ttl',
    str('authorization-webhook-cache-unauthorized-ttl'),
  );
  if (noTtl !== undefined) options.authorizationWebhookCacheUnauthorizedTtlMs = noTtl;
  const anonymous = str('anonymous-auth');
  if (anonymous !== undefined) {
    if (anonymous !== 'true' && anonymous !== 'false')
      throw new UsageError(`--anonymous-auth: "${anonymous}" is not true or false`);
    options.anonymous = anonymous === 'true';
  }
  parseAdmissionFlags(values, cwd, options);
  const showHidden = str('show-hidden-metrics-for-version');
  if (showHidden !== undefined) {
    const problem = showHiddenProblem(showHidden, SERVER_RELEASE);
    if (problem) throw new UsageError(problem);
    if (showHidden) options.showHiddenMetricsForVersion = showHidden;
  }
  const kubeconfigPath = resolve(cwd, str('kubeconfig') ?? join(options.dataDir, 'kubeconfig'));
  return {
    options,
    kubeconfigPath,
    token,
    warnings,
    startEtcd: values.etcd === true,
    exitWithParent: values['exit-with-parent'] === true,
  };
}

/** The admission flags: plugin names checked against the catalog, the configuration file loaded once to check it. */
function parseAdmissionFlags(
  values: Record<string, unknown>,
  cwd: string,
  options: Partial<ServerOptions>,
): void {
  const list = (name: string) =>
    ((values[name] as string[] | undefined) ?? [])
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter(Boolean);
  const enable = list('enable-admission-plugins');
  const disable = list('disable-admission-plugins');
  try {
    enabledPlugins(enable, disable);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (enable.length) options.enableAdmissionPlugins = enable;
  if (disable.length) options.disableAdmissionPlugins = disable;
  const str = (name: string) => values[name] as string | undefined;
  const max = Number.MAX_SAFE_INTEGER;
  const notReady = intFlag(
    'default-not-ready-toleration-seconds',
    str('default-not-ready-toleration-seconds'),
    0,
    max,
  );
  if (notReady !== undefined) options.defaultNotReadyTolerationSeconds = notReady;
  const unreachable = intFlag(
    'default-unreachable-toleration-seconds',
    str('default-unreachable-toleration-seconds'),
    0,
    max,
  );
  if (unreachable !== undefined) options.defaultUnreachableTolerationSeconds = unreachable;
  const file = values['admission-control-config-file'] as string | undefined;
  if (file !== undefined) {
    options.admissionControlConfigFile = fileFlag('admission-control-config-file', file, cwd);
    try {
      loadAdmissionConfig(options.admissionControlConfigFile);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
}

/** `--audit-*`: the log, its format and rotation, and the policy (read now: an invalid one is refused). */
function parseAuditFlags(
  values: Record<string, unknown>,
  str: (name: string) => string | undefined,
  cwd: string,
  options: Partial<ServerOptions>,
): void {
  const audit = str('audit-log-path');
  if (audit !== undefined) {
    if (!audit.trim()) throw new UsageError('--audit-log-path: must not be empty');
    options.auditLogPath = audit === '-' ? '-' : resolve(cwd, audit);
  }
  const format = str('audit-log-format');
  if (format !== undefined) {
    if (!(AUDIT_LOG_FORMATS as readonly string[]).includes(format))
      throw new UsageError(
        `--audit-log-format: invalid audit log format "${format}", allowed formats are "${AUDIT_LOG_FORMATS.join(',')}"`,
      );
    options.auditLogFormat = format as AuditLogFormat;
  }
  const max = 1_000_000;
  const size = intFlag('audit-log-maxsize', str('audit-log-maxsize'), 0, max);
  if (size !== undefined) options.auditLogMaxSize = size;
  const backups = intFlag('audit-log-maxbackup', str('audit-log-maxbackup'), 0, max);
  if (backups !== undefined) options.auditLogMaxBackup = backups;
  const age = intFlag('audit-log-maxage', str('audit-log-maxage'), 0, max);
  if (age !== undefined) options.auditLogMaxAge = age;
  if (values['audit-log-compress']) options.auditLogCompress = true;
  const policy = values['audit-policy-file'] as string | undefined;
  if (policy !== undefined) {
    options.auditPolicyFile = fileFlag('audit-policy-file', policy, cwd);
    try {
      loadAuditPolicyFile(options.auditPolicyFile, () => {});
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
}

/** The admin token: `--token`, else the one kept in the data directory, else a new one (kept). */
export function adminToken(dataDir: string, explicit?: string): string {
  if (explicit) return explicit;
  const file = join(dataDir, TOKEN_FILE);
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept) return kept;
  }
  const token = newToken();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/** The URL clients should use: a wildcard bind is reached over loopback. */
function clientUrl(server: OrchServer, port: number): string {
  const o = server.options;
  let host = o.host;
  if (isWildcard(host)) host = host.includes(':') ? '::1' : '127.0.0.1';
  const h = host.includes(':') ? `[${host}]` : host;
  return `${o.tls ? 'https' : 'http'}://${h}:${port}`;
}

export interface Running {
  server: OrchServer;
  url: string;
  token: string;
  kubeconfigPath: string;
  /** The private etcd of `--etcd`. */
  etcd?: EtcdProcess;
  /** Graceful: see OrchServer.shutdown. */
  shutdown(): Promise<void>;
  close(): Promise<void>;
}

/** Builds, listens and writes the kubeconfig. */
export async function serve(cfg: ServeConfig): Promise<Running> {
  const options = { ...cfg.options };
  const dataDir = options.dataDir ?? DEFAULTS.dataDir;
  const token = adminToken(dataDir, cfg.token);
  options.adminToken = token;
  const host = options.host ?? DEFAULTS.host;
  if (options.tls !== false && !options.tlsCert && !isLoopback(host) && !isWildcard(host)) {
    // the kept certificate names only loopback addresses: issue one that names this host too
    const { generateCertificate } = await import('./http/tls.ts');
    const b = await generateCertificate(['127.0.0.1', '::1', 'localhost', host]);
    Object.assign(options, { tlsKey: b.key, tlsCert: b.cert, tlsCa: b.ca });
  }
  let etcd: EtcdProcess | undefined;
  if (cfg.startEtcd) {
    try {
      etcd = await startEtcd();
    } catch (e) {
      throw new UsageError(`--etcd: ${(e as Error).message}`);
    }
    options.etcdServers = [etcd.url];
  }
  let server: OrchServer;
  try {
    server = await build(options);
  } catch (e) {
    await etcd?.stop();
    // an unusable authentication file is the operator's to fix, as a bad flag is
    if (e instanceof ConfigurationError) throw new UsageError(e.message);
    throw e;
  }
  let port: number;
  try {
    ({ port } = await server.listen());
  } catch (e) {
    await server.close().catch(() => {});
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new UsageError(`${host}:${options.port} is already in use (try --port 0 for a free port)`);
    if (err.code === 'EADDRNOTAVAIL') throw new UsageError(`cannot listen on ${host}: address not available`);
    if (err.code === 'EACCES') throw new UsageError(`no permission to listen on ${host}:${options.port}`);
    throw e;
  }
  const url = clientUrl(server, port);
  writeKubeconfig(cfg.kubeconfigPath, { server: url, caPem: server.caPem, token });
  let closing: Promise<void> | undefined;
  return {
    server,
    url,
    token,
    kubeconfigPath: cfg.kubeconfigPath,
    etcd,
    shutdown: () => (closing ??= server.shutdown().finally(() => etcd?.stop())),
    close: () => (closing ??= server.close().finally(() => etcd?.stop())),
  };
}

function banner(r: Running, readyMs: number): string {
  const o = r.server.options;
  const store = o.etcdServers?.length
    ? `etcd ${o.etcdServers.join(',')} prefix ${o.etcdPrefix ?? '/registry'}${r.etcd ? ` (private, data in ${r.etcd.dataDir})` : ''}`
    : o.inMemory
      ? 'in memory (nothing survives a restart)'
      : `${join(o.dataDir, 'store')}${o.fsync ? '' : ' (no fsync)'}`;
  // the gates that differ from their 1.28 default
  const defaults = defaultFeatureGates();
  const gates =
    Object.entries(o.featureGates)
      .filter(([k, v]) => defaults[k] !== v)
      .map(([k, v]) => `${k}=${v}`)
      .join(',') || '(the 1.28 defaults)';
  return [
    `orch reference server ${SERVER_VERSION.gitVersion}`,
    `  URL:        ${r.url}${o.tls ? '' : ' (plain HTTP)'}`,
    `  token:      ${r.token}`,
    `  kubeconfig: ${r.kubeconfigPath} (context ${CONTEXT_NAME})`,
    `  store:      ${store}`,
    `  gates:      ${gates}`,
    `try: kubectl --kubeconfig ${r.kubeconfigPath} get namespaces`,
    `ready in ${Math.round(readyMs)} ms`,
    '',
  ].join('\n');
}

/** Runs `serve` until SIGINT or SIGTERM, then shuts down gracefully (a second signal exits at once). */
async function serveMain(argv: string[]): Promise<number | undefined> {
  const cfg = parseServeArgs(argv);
  if (!cfg) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  for (const w of cfg.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
  const running = await serve(cfg);
  let signals = 0;
  const stop = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`${sig} again: exiting without waiting\n`);
      process.exit(130);
    }
    process.stderr.write(
      `${sig}: shutting down${cfg.options.shutdownDelayMs ? ` (serving ${cfg.options.shutdownDelayMs / 1000} s more, /readyz failing)` : ''}\n`,
    );
    running.shutdown().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`error while closing: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (cfg.exitWithParent)
    onParentGone(() => {
      process.stderr.write('the process that started the server has ended\n');
      stop('SIGTERM');
    });
  // only once the signals are handled: whoever reads "ready" may send one at once
  process.stdout.write(banner(running, performance.now()));
  return undefined;
}

/**
 * The command line. Resolves with an exit code for commands that end by themselves, or
 * undefined while the server runs (a signal ends it).
 */
export async function main(argv: string[]): Promise<number | undefined> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'serve':
        return await serveMain(rest);
      case undefined:
      case 'help':
      case '-h':
      case '--help':
        process.stdout.write(USAGE);
        return cmd === undefined ? 2 : 0;
      default:
        process.stderr.write(`unknown command "${cmd}"\n\n${USAGE}`);
        return 2;
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`error: ${(e as Error)?.stack ?? String(e)}\n`);
    return 1;
  }
}

const invokedDirectly =
  process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const code = await main(process.argv.slice(2));
  if (code !== undefined) process.exit(code);
}
