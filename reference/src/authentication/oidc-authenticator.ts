// OpenID Connect ID tokens as bearer tokens (the `--oidc-*` flags of doc3). The issuer's
// discovery document and key set are fetched over TLS (trusting `--oidc-ca-file`) in the
// background: the server starts without waiting, and until the first key set is loaded the
// tokens of the issuer are refused. Keys are cached; a token signed with a key id the cache
// does not know refreshes it, at most once per refresh interval, so requests never cause a
// network call each. Rules as Kubernetes 1.28 applies them: a JWT whose `iss` is not the
// issuer is not this method's; otherwise the signature (an accepted algorithm), `aud`
// containing the client id, `exp` (required, no skew) and `nbf` (one minute of skew) must
// hold, the username claim must be a string (with `email`, `email_verified` when present must
// be true), the groups claim a string or a list of strings, and every required claim equal
// to its value.
import {
  createLocalJWKSet,
  decodeJwt,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import type { UserInfo } from '../registry/types.ts';
import { HttpsJsonClient } from '../util/https-json.ts';
import {
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  NOT_MINE,
  bearerToken,
} from './types.ts';

export interface OidcSettings {
  issuerUrl: string;
  clientId: string;
  /** Default `sub`. */
  usernameClaim?: string;
  /** Unset: the issuer URL and `#` for claims other than `email`; `-`: none. */
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  requiredClaims?: Record<string, string>;
  /** PEM CA bundle that signs the issuer's certificate (default: the host's roots). */
  caPem?: string;
  /** Default ['RS256']. */
  signingAlgs?: string[];
}

export interface OidcTiming {
  now?: () => number;
  /** The least time between two key-set refreshes for unknown key ids (default 10 s). */
  refreshIntervalMs?: number;
  /** First retry of a failed initial load; doubles up to 10 s (default 250 ms). */
  retryMs?: number;
  timeoutMs?: number;
}

const NBF_SKEW_SECONDS = 60;
const MAX_RETRY_MS = 10_000;

const refuse = (message: string): AuthenticationResult => ({ status: 'error', message });

export class OidcAuthenticator implements Authenticator {
  readonly name = 'oidc';
  private keys?: JWTVerifyGetKey;
  private jwksUri?: string;
  private lastRefresh = Number.NEGATIVE_INFINITY;
  private refreshing?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private stopped = false;
  private readonly now: () => number;
  private readonly usernameClaim: string;
  private readonly usernamePrefix: string;
  private readonly algs: string[];
  private readonly client: HttpsJsonClient;

  constructor(
    private readonly s: OidcSettings,
    private readonly t: OidcTiming = {},
  ) {
    this.now = t.now ?? Date.now;
    this.usernameClaim = s.usernameClaim || 'sub';
    const p = s.usernamePrefix;
    this.usernamePrefix = p === '-' ? '' : p ? p : this.usernameClaim === 'email' ? '' : `${s.issuerUrl}#`;
    this.algs = s.signingAlgs?.length ? s.signingAlgs : ['RS256'];
    this.client = new HttpsJsonClient({ ca: s.caPem });
    this.initialLoad(t.retryMs ?? 250);
  }

  /** Whether the first key set has been loaded. */
  get ready(): boolean {
    return this.keys !== undefined;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.client.close();
  }

  private initialLoad(delay: number): void {
    this.refresh().catch(() => {
      if (this.stopped || this.keys) return;
      this.retryTimer = setTimeout(() => this.initialLoad(Math.min(delay * 2, MAX_RETRY_MS)), delay);
    });
  }

  /** Fetches discovery (first time) and the key set; one fetch at a time. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.load().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async load(): Promise<void> {
    this.lastRefresh = this.now();
    const opts = { timeoutMs: this.t.timeoutMs ?? 10_000 };
    if (!this.jwksUri) {
      const url = `${this.s.issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      const doc = (await this.client.call(url, opts)) as { issuer?: unknown; jwks_uri?: unknown };
      if (doc?.issuer !== this.s.issuerUrl)
        throw new Error(
          `oidc: issuer did not match the issuer returned by provider, expected "${this.s.issuerUrl}" got "${String(doc?.issuer)}"`,
        );
      if (typeof doc.jwks_uri !== 'string') throw new Error('oidc: the discovery document has no jwks_uri');
      this.jwksUri = doc.jwks_uri;
    }
    const set = (await this.client.call(this.jwksUri, opts)) as JSONWebKeySet;
    if (!set || !Array.isArray(set.keys)) throw new Error('oidc: the key set has no keys');
    this.keys = createLocalJWKSet(set);
  }

  authenticate(r: AuthenticationRequest): AuthenticationResult | Promise<AuthenticationResult> {
    const token = bearerToken(r);
    if (token === undefined || token.split('.').length !== 3) return NOT_MINE;
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return NOT_MINE;
    }
    if (iss !== this.s.issuerUrl) return NOT_MINE;
    if (!this.keys)
      return refuse('oidc: authenticator not initialized (the issuer key set is not loaded yet)');
    return this.verify(token);
  }

  private async verify(token: string): Promise<AuthenticationResult> {
    let payload: JWTPayload;
    try {
      payload = await this.verifyOnce(token);
    } catch (e) {
      const code = (e as { code?: string }).code;
      // a key id the cache does not know: refresh the key set (not more often than the interval) and try again
      if (code !== 'ERR_JWKS_NO_MATCHING_KEY') return refuse(`oidc: verify token: ${(e as Error).message}`);
      if (this.now() - this.lastRefresh < (this.t.refreshIntervalMs ?? 10_000)) {
        if (this.refreshing) await this.refreshing.catch(() => {});
        else return refuse('oidc: verify token: no key of the issuer matches the token');
      } else await this.refresh().catch(() => {});
      try {
        payload = await this.verifyOnce(token);
      } catch (e2) {
        return refuse(`oidc: verify token: ${(e2 as Error).message}`);
      }
    }
    return this.claims(payload);
  }

  private async verifyOnce(token: string): Promise<JWTPayload> {
    const { payload } = await jwtVerify(token, this.keys!, {
      algorithms: this.algs,
      issuer: this.s.issuerUrl,
      audience: this.s.clientId,
      currentDate: new Date(this.now()),
      requiredClaims: ['exp'],
      // the skew is for `nbf`; `exp` is checked below without one
      clockTolerance: NBF_SKEW_SECONDS,
    });
    if ((payload.exp as number) * 1000 < this.now())
      throw new Error(
        `token is expired (Token Expiry: ${new Date((payload.exp as number) * 1000).toISOString()})`,
      );
    return payload;
  }

  private claims(p: JWTPayload): AuthenticationResult {
    const name = p[this.usernameClaim];
    if (name === undefined)
      return refuse(`oidc: parse username claims "${this.usernameClaim}": claim not present`);
    if (typeof name !== 'string')
      return refuse(`oidc: parse username claims "${this.usernameClaim}": not a string`);
    if (this.usernameClaim === 'email' && p.email_verified !== undefined && p.email_verified !== true)
      return refuse(`oidc: email not verified`);
    const user: UserInfo = { username: this.usernamePrefix + name, groups: [] };
    if (this.s.groupsClaim && p[this.s.groupsClaim] !== undefined) {
      const g = p[this.s.groupsClaim];
      const groups =
        typeof g === 'string'
          ? [g]
          : Array.isArray(g) && g.every((x) => typeof x === 'string')
            ? (g as string[])
            : undefined;
      if (!groups)
        return refuse(`oidc: parse groups claim "${this.s.groupsClaim}": not a string or a list of strings`);
      user.groups = groups.map((x) => (this.s.groupsPrefix ?? '') + x);
    }
    for (const [k, want] of Object.entries(this.s.requiredClaims ?? {})) {
      const got = p[k];
      if (got === undefined) return refuse(`oidc: required claim ${k} not found in token`);
      if (got !== want)
        return refuse(`oidc: required claim ${k} value does not match. Got = ${String(got)}, want = ${want}`);
    }
    return { status: 'user', user };
  }
}
