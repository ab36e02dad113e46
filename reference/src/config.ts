// Server options, with the defaults doc1 names (5 minutes of history, 5-minute continue tokens).
import { ConfigurationError } from './errors/config-error.ts';
import { defaultFeatureGates, FeatureGateError, resolveFeatureGates } from './features/feature-gates.ts';

/** Every Kubernetes 1.28 feature gate with its value (features/gates-1.28.ts); the ones the server reads by name. */
export interface FeatureGates {
  WatchList: boolean;
  APIListChunking: boolean;
  APIResponseCompression: boolean;
  [gate: string]: boolean;
}

export interface ServerOptions {
  /**
   * `--dialect`: the words the server speaks, the spec's (`orch`, the default) or Kubernetes'
   * (`k8s.io` groups, `kube-system`, `application/vnd.kubernetes.protobuf`, ...). A build of the
   * sources in those words serves it (server/dialect-build.ts).
   */
  dialect?: 'orch' | 'kubernetes';
  /** Directory for the durable store; ignored when inMemory. */
  dataDir: string;
  inMemory: boolean;
  /** fdatasync before acknowledging writes. */
  fsync: boolean;
  /** Compact the durable store's change log into a snapshot past this many bytes (default 64 MiB). */
  compactBytes?: number;
  historySeconds: number;
  /**
   * `--etcd-servers`: the store is etcd at these client URLs (objects in etcd, a watch cache
   * here); empty: the write-ahead log (or memory).
   */
  etcdServers?: string[];
  /** `--etcd-prefix`: the key prefix of this API's objects (default `/registry`). */
  etcdPrefix?: string;
  /** `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`: TLS to etcd. */
  etcdCaFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  /** `--etcd-compaction-interval` in ms (default 5 minutes; 0: never compacts). */
  etcdCompactionIntervalMs?: number;
  continueTtlSeconds: number;
  /** The clock (ms since the epoch) for history retention and continue-token expiry; tests inject one. */
  clock?: () => number;
  /** Wait for an unknown resource version on get/list before answering 504. */
  futureRvWaitMs: number;
  /** How long the namespace controller waits after a namespace's deletion before emptying it (Kubernetes: 5 s). */
  namespaceDeletionGraceMs?: number;
  watchTimeoutSeconds: number;
  bookmarkIntervalMs: number;
  /** `--livez-grace-period`: from start, /livez takes unfinished post-start hooks as passing for this long. */
  livezGracePeriodMs: number;
  /** `--shutdown-delay-duration`: after SIGTERM, requests are still served this long while /readyz fails. */
  shutdownDelayMs: number;
  featureGates: FeatureGates;
  /**
   * `--runtime-config` (e.g. `apps/v1=false,apps/v1/deployments=true,api/beta=true`): which
   * group versions and resources are served (registry/runtime-config.ts).
   */
  runtimeConfig: string;
  maxBodyBytes: number;
  /** Bearer token of the admin identity (system:masters); generated when empty. */
  adminToken: string;
  /** `--anonymous-auth`: unauthenticated requests are anonymous (never with the AlwaysAllow mode). */
  anonymous: boolean;
  /** `--authorization-mode`: AlwaysAllow, AlwaysDeny, RBAC, asked in order after system:masters. */
  authorizationModes: string[];
  /** `--authorization-webhook-config-file`: how to reach the Webhook mode's webhook (kubeconfig format). */
  authorizationWebhookConfigFile?: string;
  /** `--authorization-webhook-version`: the SubjectAccessReview version sent (default v1beta1, as 1.28). */
  authorizationWebhookVersion: 'v1' | 'v1beta1';
  /** `--authorization-webhook-cache-authorized-ttl` (default 5 minutes). */
  authorizationWebhookCacheAuthorizedTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl` (default 30 seconds). */
  authorizationWebhookCacheUnauthorizedTtlMs: number;
  /** Serve HTTPS (default) or plain HTTP (loopback only). */
  tls: boolean;
  host: string;
  port: number;
  /** PEM key and certificate; generated (and kept in dataDir) when absent. */
  tlsKey?: string;
  tlsCert?: string;
  /** PEM of the CA that signed tlsCert (for kubeconfig files). */
  tlsCa?: string;
  /** `--audit-log-path`: where audit events are written, one a line (`-`: standard output). */
  auditLogPath?: string;
  /** `--audit-policy-file`: the `audit.orch.io/v1` Policy (without one, every request at Metadata, one event when complete). */
  auditPolicyFile?: string;
  /** `--audit-log-format`: json (default) or legacy. */
  auditLogFormat?: 'json' | 'legacy';
  /** `--audit-log-maxsize`: megabytes before the log is rotated (0: 100, as Kubernetes' log writer). */
  auditLogMaxSize?: number;
  /** `--audit-log-maxbackup`: rotated files kept (0: all). */
  auditLogMaxBackup?: number;
  /** `--audit-log-maxage`: days a rotated file is kept (0: forever). */
  auditLogMaxAge?: number;
  /** `--audit-log-compress`: gzip rotated files. */
  auditLogCompress?: boolean;
  /** Keep the audit events of the last N requests in memory (`server.audit`; tests, the embedded harness). */
  auditInMemory?: number;
  /** `--token-auth-file`: CSV of static bearer tokens (token, user, uid, "group,group"). */
  tokenAuthFile?: string;
  /** `--client-ca-file`: PEM bundle of the CAs whose client certificates authenticate users. */
  clientCaFile?: string;
  /** `--requestheader-username-headers`: headers naming the user behind an authenticating proxy, in order. */
  requestheaderUsernameHeaders?: string[];
  /** `--requestheader-group-headers`: headers whose values are the user's groups. */
  requestheaderGroupHeaders?: string[];
  /** `--requestheader-extra-headers-prefix`: header prefixes of the user's extra attributes. */
  requestheaderExtraHeadersPrefix?: string[];
  /** `--requestheader-client-ca-file`: PEM bundle of the CAs that verify the proxy's certificate. */
  requestheaderClientCaFile?: string;
  /** `--requestheader-allowed-names`: common names the proxy's certificate may have (empty: any). */
  requestheaderAllowedNames?: string[];
  /** `--cluster-signing-cert-file` / `--cluster-signing-key-file`: the CA that signs approved client certificate requests. */
  clusterSigningCertFile?: string;
  clusterSigningKeyFile?: string;
  /** `--service-account-signing-key-file`: PEM private key that signs service-account tokens (generated when absent). */
  serviceAccountSigningKeyFile?: string;
  /** `--service-account-key-file` (repeatable): PEM keys that verify service-account tokens (the TLS key when absent). */
  serviceAccountKeyFiles?: string[];
  /** `--service-account-issuer` (repeatable): the first signs, all are accepted (default https://orch.default.svc.cluster.local). */
  serviceAccountIssuers?: string[];
  /** `--api-audiences`: audiences API tokens must carry one of (default: the first issuer). */
  apiAudiences?: string[];
  /** `--service-account-lookup`: refuse tokens whose account or bound object is gone (default true). */
  serviceAccountLookup?: boolean;
  /** `--enable-bootstrap-token-auth`: bootstrap token secrets of the system namespace authenticate. */
  enableBootstrapTokenAuth?: boolean;
  /** `--controllers`: `*` (the default set), names to add, `-name` to remove (`*,tokencleaner`). */
  controllers?: string[];
  /** The `--oidc-*` flags: OpenID Connect ID tokens authenticate when issuerUrl is set. */
  oidc?: OidcOptions;
  /** Webhook token authentication (`--authentication-token-webhook-*`). */
  tokenWebhook?: TokenWebhookOptions;
  /** `--enable-admission-plugins`: plugins on beside the default-enabled ones (admission/plugins/catalog.ts). */
  enableAdmissionPlugins?: string[];
  /** `--disable-admission-plugins`: plugins off, default-enabled ones included. */
  disableAdmissionPlugins?: string[];
  /** `--admission-control-config-file`: AdmissionConfiguration with each plugin's configuration. */
  admissionControlConfigFile?: string;
  /** `--default-not-ready-toleration-seconds` (DefaultTolerationSeconds; default 300). */
  defaultNotReadyTolerationSeconds?: number;
  /** `--default-unreachable-toleration-seconds` (DefaultTolerationSeconds; default 300). */
  defaultUnreachableTolerationSeconds?: number;
  /**
   * `--show-hidden-metrics-for-version`: the previous minor release (`1.27`) shows again the
   * metrics hidden in this release; any other value is refused at start.
   */
  showHiddenMetricsForVersion?: string;
  /** `-v`: the log's verbosity (default 0); from 3, a line for each request (http/request-log.ts). */
  verbosity?: number;
}

export interface TokenWebhookOptions {
  /** `--authentication-token-webhook-config-file`: kubeconfig-format connection file. */
  configFile: string;
  /** `--authentication-token-webhook-cache-ttl` (default 2 minutes). */
  cacheTtlMs?: number;
  /** `--authentication-token-webhook-version` (default v1beta1). */
  version?: 'v1' | 'v1beta1';
  /** Deadline of one call (default 10 s; not a flag). */
  timeoutMs?: number;
  /** Retries of transient failures (default 500 ms, times 1.5, 5 attempts; not a flag). */
  retry?: { initialMs: number; factor: number; attempts: number };
}

export interface OidcOptions {
  issuerUrl: string;
  clientId: string;
  usernameClaim?: string;
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  /** `--oidc-required-claim key=value` (repeatable). */
  requiredClaims?: Record<string, string>;
  /** `--oidc-ca-file`: PEM bundle of the CAs that sign the issuer's certificate. */
  caFile?: string;
  signingAlgs?: string[];
  /** The least time between two key-set refreshes for unknown key ids (default 10 s; tests shorten it). */
  refreshIntervalMs?: number;
}

export const DEFAULTS: ServerOptions = {
  dataDir: '.orch/data',
  inMemory: false,
  fsync: true,
  historySeconds: 300,
  continueTtlSeconds: 300,
  futureRvWaitMs: 3000,
  watchTimeoutSeconds: 1800,
  bookmarkIntervalMs: 60_000,
  livezGracePeriodMs: 0,
  shutdownDelayMs: 0,
  featureGates: defaultFeatureGates() as FeatureGates,
  runtimeConfig: '',
  maxBodyBytes: 3 * 1024 * 1024,
  adminToken: '',
  anonymous: true,
  authorizationModes: ['RBAC'],
  authorizationWebhookVersion: 'v1beta1',
  authorizationWebhookCacheAuthorizedTtlMs: 5 * 60_000,
  authorizationWebhookCacheUnauthorizedTtlMs: 30_000,
  tls: true,
  host: '127.0.0.1',
  port: 0,
};

/** Options as callers give them: every field optional, feature gates one by one. */
export type ServerOptionsInput = Partial<Omit<ServerOptions, 'featureGates'>> & {
  featureGates?: Partial<FeatureGates>;
};

/** Options with defaults filled in; feature gates as 1.28 applies them (an unknown or locked gate is a ConfigurationError). */
export function resolveOptions(o: ServerOptionsInput = {}): ServerOptions {
  let featureGates: FeatureGates;
  try {
    featureGates = resolveFeatureGates((o.featureGates ?? {}) as Record<string, boolean>)
      .gates as FeatureGates;
  } catch (e) {
    if (e instanceof FeatureGateError) throw new ConfigurationError(`feature gates: ${e.message}`);
    throw e;
  }
  return { ...DEFAULTS, ...o, featureGates };
}
