// Server options, with the defaults doc1 names (5 minutes of history, 5-minute continue tokens).
export interface FeatureGates {
  WatchList: boolean;
  APIListChunking: boolean;
  APIResponseCompression: boolean;
  [gate: string]: boolean;
}

export interface ServerOptions {
  /** Directory for the durable store; ignored when inMemory. */
  dataDir: string;
  inMemory: boolean;
  /** fdatasync before acknowledging writes. */
  fsync: boolean;
  /** Compact the durable store's change log into a snapshot past this many bytes (default 64 MiB). */
  compactBytes?: number;
  historySeconds: number;
  continueTtlSeconds: number;
  /** The clock (ms since the epoch) for history retention and continue-token expiry; tests inject one. */
  clock?: () => number;
  /** Wait for an unknown resource version on get/list before answering 504. */
  futureRvWaitMs: number;
  watchTimeoutSeconds: number;
  bookmarkIntervalMs: number;
  featureGates: FeatureGates;
  /** `--runtime-config` (e.g. `apps/v1=false`). */
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
  /** `--audit-log-path`: audit events as JSON lines (one per request). */
  auditLogPath?: string;
  /** Keep the audit events of the last N requests in memory (`server.audit`; tests, the embedded harness). */
  auditInMemory?: number;
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
  featureGates: { WatchList: false, APIListChunking: true, APIResponseCompression: true },
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
export type ServerOptionsInput = Partial<Omit<ServerOptions, 'featureGates'>> & { featureGates?: Partial<FeatureGates> };

export function resolveOptions(o: ServerOptionsInput = {}): ServerOptions {
  return { ...DEFAULTS, ...o, featureGates: { ...DEFAULTS.featureGates, ...(o.featureGates ?? {}) } as FeatureGates };
}

/** Parses `Gate=true,Other=false`. */
export function parseFeatureGates(s: string): Partial<FeatureGates> {
  const out: Record<string, boolean> = {};
  for (const part of s.split(',').map((x) => x.trim()).filter(Boolean)) {
    const [k, v] = part.split('=');
    if (!k || (v !== 'true' && v !== 'false')) throw new Error(`invalid feature gate "${part}": want Name=true|false`);
    out[k] = v === 'true';
  }
  return out;
}
