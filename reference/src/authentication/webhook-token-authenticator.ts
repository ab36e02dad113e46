// Webhook token authentication (doc3 "Other callbacks"): the server POSTs a TokenReview
// (authentication.orch.io/<version>, v1beta1 by default) with spec.token and the API
// audiences to the webhook of the connection file, and reads status.authenticated, user,
// audiences and error from a reply of the same version. As Kubernetes 1.28 does: a reply
// without status.audiences speaks for the API audiences, one with audiences must share one
// with them; answers are cached by token and audiences for the cache TTL (default 2 minutes),
// both acceptances and refusals, but never an error (a webhook that fails or times out
// refuses this request and is asked again next time). A transient failure (500, 504, 429, a
// reply with Retry-After, a connection reset) is retried with Kubernetes' backoff (500 ms,
// times 1.5, five attempts). Nothing the webhook does lets a
// request through without an explicit `authenticated: true` and a username.
import { createHash } from 'node:crypto';
import type { UserInfo } from '../registry/types.ts';
import { HttpsJsonClient, HttpsJsonError } from '../util/https-json.ts';
import {
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  bearerToken,
  NOT_MINE,
} from './types.ts';
import type { WebhookConnection } from './webhook-connection.ts';

export const TOKEN_REVIEW_GROUP = 'authentication.orch.io';
export const DEFAULT_WEBHOOK_CACHE_TTL_MS = 120_000;
const MAX_CACHED = 10_000;

export interface WebhookTokenOptions {
  connection: WebhookConnection;
  /** `v1` or `v1beta1` (default). */
  version?: 'v1' | 'v1beta1';
  /** Default 2 minutes; 0 turns the cache off. */
  cacheTtlMs?: number;
  /** The API audiences: sent in spec.audiences, and what a reply without audiences speaks for. */
  apiAudiences: readonly string[];
  now?: () => number;
  /** Deadline of one call (default 10 s). */
  timeoutMs?: number;
  /** Retries of transient failures (default: first wait 500 ms, times 1.5, 5 attempts). */
  retry?: { initialMs: number; factor: number; attempts: number };
}

const DEFAULT_RETRY = { initialMs: 500, factor: 1.5, attempts: 5 };

/** Failures worth another attempt, as Kubernetes' webhook client judges them. */
function transient(e: unknown): boolean {
  if (!(e instanceof HttpsJsonError)) return false;
  if (e.status === 500 || e.status === 504 || e.status === 429 || e.retryAfter) return true;
  return e.code === 'ECONNRESET';
}

interface Cached {
  result: AuthenticationResult;
  until: number;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

export class WebhookTokenAuthenticator implements Authenticator {
  readonly name = 'webhook-token';
  private readonly client: HttpsJsonClient;
  private readonly cache = new Map<string, Cached>();
  /** Calls under way by cache key: requests with the same token share one call. */
  private readonly inflight = new Map<string, Promise<AuthenticationResult>>();
  private readonly apiVersion: string;
  private readonly ttl: number;
  private readonly now: () => number;

  constructor(private readonly o: WebhookTokenOptions) {
    this.client = new HttpsJsonClient({
      ca: o.connection.ca,
      cert: o.connection.cert,
      key: o.connection.key,
    });
    this.apiVersion = `${TOKEN_REVIEW_GROUP}/${o.version ?? 'v1beta1'}`;
    this.ttl = o.cacheTtlMs ?? DEFAULT_WEBHOOK_CACHE_TTL_MS;
    this.now = o.now ?? Date.now;
  }

  stop(): void {
    this.client.close();
    this.cache.clear();
  }

  authenticate(r: AuthenticationRequest): AuthenticationResult | Promise<AuthenticationResult> {
    const token = bearerToken(r);
    if (!token) return NOT_MINE;
    const key = createHash('sha256')
      .update(token)
      .update('\0')
      .update(this.o.apiAudiences.join('\0'))
      .digest('base64');
    const hit = this.cache.get(key);
    if (hit) {
      if (hit.until > this.now()) return hit.result;
      this.cache.delete(key);
    }
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const call = this.review(token)
      .then(({ result, cacheable }) => {
        if (cacheable && this.ttl > 0) {
          if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
          this.cache.set(key, { result, until: this.now() + this.ttl });
        }
        return result;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, call);
    return call;
  }

  private async review(token: string): Promise<{ result: AuthenticationResult; cacheable: boolean }> {
    const body = {
      apiVersion: this.apiVersion,
      kind: 'TokenReview',
      metadata: {},
      spec: { token, audiences: [...this.o.apiAudiences] },
    };
    let reply: unknown;
    const retry = this.o.retry ?? DEFAULT_RETRY;
    for (let attempt = 1, wait = retry.initialMs; ; attempt++, wait *= retry.factor) {
      try {
        reply = await this.client.call(this.o.connection.server, {
          method: 'POST',
          body,
          token: this.o.connection.token,
          timeoutMs: this.o.timeoutMs ?? 10_000,
        });
        break;
      } catch (e) {
        if (attempt >= retry.attempts || !transient(e))
          return {
            result: { status: 'error', message: `webhook: ${(e as Error).message}` },
            cacheable: false,
          };
        await new Promise((r) => setTimeout(r, wait));
      }
    }
    const refuse = (message: string, cacheable = false) => ({
      result: { status: 'error' as const, message: `webhook: ${message}` },
      cacheable,
    });
    if (!isObject(reply) || reply.kind !== 'TokenReview' || reply.apiVersion !== this.apiVersion)
      return refuse(`the reply is not a ${this.apiVersion} TokenReview`);
    const st = reply.status;
    if (!isObject(st)) return refuse('the reply has no status');
    let audiences = [...this.o.apiAudiences];
    if (st.audiences !== undefined && st.audiences !== null) {
      if (!isStrings(st.audiences)) return refuse('status.audiences is not a list of strings');
      if (st.audiences.length) audiences = audiences.filter((a) => (st.audiences as string[]).includes(a));
    }
    if (st.authenticated !== true) {
      const error = typeof st.error === 'string' && st.error ? st.error : undefined;
      // an explicit refusal is cached; one that carries an error is not (as Kubernetes' cache)
      return refuse(error ?? 'the token was not authenticated', error === undefined);
    }
    if (!audiences.length) return refuse('the token is for none of the API audiences', true);
    const u = st.user;
    if (!isObject(u) || typeof u.username !== 'string' || !u.username)
      return refuse('status.user.username is required');
    const user: UserInfo = { username: u.username, groups: [] };
    if (u.uid !== undefined && u.uid !== null) {
      if (typeof u.uid !== 'string') return refuse('status.user.uid is not a string');
      if (u.uid) user.uid = u.uid;
    }
    if (u.groups !== undefined && u.groups !== null) {
      if (!isStrings(u.groups)) return refuse('status.user.groups is not a list of strings');
      user.groups = [...u.groups];
    }
    if (u.extra !== undefined && u.extra !== null) {
      if (!isObject(u.extra) || !Object.values(u.extra).every(isStrings))
        return refuse('status.user.extra is not a map of string lists');
      user.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...(v as string[])]]));
    }
    return { result: { status: 'user', user, audiences }, cacheable: true };
  }
}
