// The Webhook authorization mode: a SubjectAccessReview (authorization.orch.io, v1 or
// v1beta1, whose user groups are `groups` in v1 and `group` in v1beta1) POSTed to the
// webhook; status.allowed allows, status.denied denies, anything else is no opinion. Answers
// are cached by request (allowed ones for the authorized TTL, the others for the unauthorized
// TTL) and a cached answer is given synchronously; a failed call is no opinion and not cached.
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './types.ts';
import { postJson, type WebhookConnection } from './webhook-client.ts';

export interface WebhookOptions {
  version: 'v1' | 'v1beta1';
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  timeoutMs?: number;
  now?: () => number;
}

type Rec = Record<string, unknown>;

/** The SubjectAccessReview the webhook is asked (empty fields left out). */
export function reviewFor(a: AuthorizationAttributes, version: 'v1' | 'v1beta1'): Rec {
  const spec: Rec = {};
  if (a.resourceRequest) {
    const ra: Rec = {};
    const put = (k: string, v: string) => {
      if (v) ra[k] = v;
    };
    put('namespace', a.namespace);
    put('verb', a.verb);
    put('group', a.apiGroup);
    put('version', a.apiVersion);
    put('resource', a.resource);
    put('subresource', a.subresource);
    put('name', a.name);
    spec.resourceAttributes = ra;
  } else spec.nonResourceAttributes = { path: a.path, verb: a.verb };
  spec.user = a.user.username;
  if (a.user.groups.length) spec[version === 'v1' ? 'groups' : 'group'] = a.user.groups;
  if (a.user.extra && Object.keys(a.user.extra).length) spec.extra = a.user.extra;
  if (a.user.uid) spec.uid = a.user.uid;
  return { apiVersion: `authorization.orch.io/${version}`, kind: 'SubjectAccessReview', spec };
}

export class WebhookAuthorizer implements Authorizer {
  readonly name = 'Webhook';
  private readonly cache = new Map<string, { until: number; result: AuthorizationResult }>();
  private readonly now: () => number;

  constructor(
    private readonly conn: WebhookConnection,
    private readonly o: WebhookOptions,
  ) {
    this.now = o.now ?? Date.now;
  }

  authorize(a: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult> {
    const review = reviewFor(a, this.o.version);
    const key = JSON.stringify(review.spec);
    const hit = this.cache.get(key);
    if (hit && hit.until > this.now()) return hit.result;
    if (hit) this.cache.delete(key);
    return this.ask(review, key);
  }

  /** Closes the connections to the webhook. */
  close(): void {
    void this.conn.agent?.close().catch(() => {});
    this.conn.agent = undefined;
  }

  private async ask(review: Rec, key: string): Promise<AuthorizationResult> {
    const { status, json } = await postJson(this.conn, review, this.o.timeoutMs ?? 30_000);
    if (status < 200 || status > 299) throw new Error(`the webhook answered ${status}`);
    const st = ((json as Rec | null)?.status ?? {}) as Rec;
    const reason = typeof st.reason === 'string' ? st.reason : '';
    const result: AuthorizationResult =
      st.allowed === true
        ? { decision: 'allow', reason }
        : st.denied === true
          ? { decision: 'deny', reason }
          : {
              decision: 'no-opinion',
              reason:
                typeof st.evaluationError === 'string' && st.evaluationError ? st.evaluationError : reason,
            };
    const ttl = result.decision === 'allow' ? this.o.authorizedTtlMs : this.o.unauthorizedTtlMs;
    if (ttl > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key, { until: this.now() + ttl, result });
    }
    return result;
  }
}
