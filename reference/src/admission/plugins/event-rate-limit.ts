// EventRateLimit (doc3 plugin table: "token buckets of type `Server`, `Namespace`, `User`,
// `SourceAndObject`, each with `qps`, `burst`, `cacheSize`; alpha; off by default"). The
// configuration is an `eventratelimit.admission.orch.io/v1alpha1` Configuration with `limits`;
// as Kubernetes 1.28: every limit's bucket (one for the server, one per namespace, user, or
// event source and involved object, the latter three kept for the `cacheSize` most recently used
// keys) starts full with `burst` tokens and refills `qps` a second; each write of a core Event
// takes a token from each of its buckets; when one is empty the write is refused with 429
// TooManyRequests, `limit reached on type <type> for key <key>`. Dry runs take no tokens.
import { StatusError } from '../../errors/status.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';

export const LIMIT_TYPES = ['Server', 'Namespace', 'User', 'SourceAndObject'] as const;
export type LimitType = (typeof LIMIT_TYPES)[number];
const CONFIG_VERSION = 'eventratelimit.admission.orch.io/v1alpha1';
const DEFAULT_CACHE_SIZE = 4096;

export interface Limit {
  type: LimitType;
  qps: number;
  burst: number;
  cacheSize: number;
}

/** The configuration's limits; throws an Error naming the plugin on a bad one. */
export function parseEventRateLimitConfig(raw: unknown): Limit[] {
  const what = 'EventRateLimit';
  if (raw === undefined || raw === null)
    throw new Error(`${what}: a configuration is required (${CONFIG_VERSION} Configuration with limits)`);
  const c = raw as Record<string, unknown>;
  if (typeof c !== 'object' || Array.isArray(c))
    throw new Error(`${what}: the configuration must be an object`);
  if (c.kind !== 'Configuration' || c.apiVersion !== CONFIG_VERSION)
    throw new Error(
      `${what}: the configuration is ${String(c.apiVersion)} ${String(c.kind)}, want ${CONFIG_VERSION} Configuration`,
    );
  if (!Array.isArray(c.limits) || c.limits.length === 0)
    throw new Error(`${what}: limits: Required value: must not be empty`);
  return c.limits.map((l: unknown, i: number) => {
    const e = (l ?? {}) as Record<string, unknown>;
    const at = `${what}: limits[${i}]`;
    if (!LIMIT_TYPES.includes(e.type as LimitType))
      throw new Error(
        `${at}.type: Unsupported value: ${JSON.stringify(e.type)}: supported values: ${LIMIT_TYPES.map((t) => `"${t}"`).join(', ')}`,
      );
    for (const k of ['qps', 'burst'] as const)
      if (typeof e[k] !== 'number' || !Number.isInteger(e[k]) || (e[k] as number) <= 0)
        throw new Error(`${at}.${k}: Invalid value: ${JSON.stringify(e[k])}: must be a positive integer`);
    if (
      e.cacheSize !== undefined &&
      (typeof e.cacheSize !== 'number' || !Number.isInteger(e.cacheSize) || e.cacheSize < 0)
    )
      throw new Error(`${at}.cacheSize: Invalid value: ${JSON.stringify(e.cacheSize)}: must not be negative`);
    const cacheSize = typeof e.cacheSize === 'number' && e.cacheSize > 0 ? e.cacheSize : DEFAULT_CACHE_SIZE;
    return { type: e.type as LimitType, qps: e.qps as number, burst: e.burst as number, cacheSize };
  });
}

/** A token bucket: `burst` tokens at first, refilled at `qps` a second up to `burst`. */
export class TokenBucket {
  private tokens: number;
  private at: number;
  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    this.tokens = burst;
    this.at = now();
  }
  tryTake(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.at) / 1000) * this.qps);
    this.at = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** The buckets of one limit, by key, the least recently used dropped past `size`. */
class BucketCache {
  private readonly map = new Map<string, TokenBucket>();
  constructor(
    private readonly limit: Limit,
    private readonly now: () => number,
  ) {}
  get(key: string): TokenBucket {
    let b = this.map.get(key);
    if (b) this.map.delete(key);
    else b = new TokenBucket(this.limit.qps, this.limit.burst, this.now);
    this.map.set(key, b);
    if (this.limit.type !== 'Server' && this.map.size > this.limit.cacheSize)
      this.map.delete(this.map.keys().next().value as string);
    return b;
  }
}

/* eslint-disable @typescript-eslint/no-explicit-any */
function keyOf(type: LimitType, a: AdmissionAttributes): string {
  switch (type) {
    case 'Server':
      return '';
    case 'Namespace':
      return a.namespace;
    case 'User':
      return a.ctx.user.username;
    case 'SourceAndObject': {
      const e = (a.object ?? a.oldObject ?? {}) as any;
      const o = e.involvedObject ?? {};
      return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion]
        .map((x) => (x === undefined ? '' : String(x)))
        .join('');
    }
  }
}

export function eventRateLimit(env: { config: unknown; now?: () => number }): AdmissionPlugin {
  const now = env.now ?? Date.now;
  const limits = parseEventRateLimitConfig(env.config).map((l) => ({
    limit: l,
    cache: new BucketCache(l, now),
  }));
  return {
    name: 'EventRateLimit',
    // creations and updates only, as 1.28's plugin (a deletion, the namespace controller's
    // emptying of a namespace among them, takes no token)
    handles: (a) =>
      (a.operation === 'CREATE' || a.operation === 'UPDATE') &&
      a.kind.group === '' &&
      a.kind.kind === 'Event' &&
      !a.dryRun,
    validate(a) {
      const refused: string[] = [];
      for (const { limit, cache } of limits) {
        const key = keyOf(limit.type, a);
        if (!cache.get(key).tryTake()) refused.push(`limit reached on type ${limit.type} for key ${key}`);
      }
      if (refused.length)
        throw new StatusError(
          429,
          'TooManyRequests',
          `Too many requests: ${refused.length === 1 ? refused[0] : `[${refused.join(', ')}]`}`,
        );
    },
  };
}
