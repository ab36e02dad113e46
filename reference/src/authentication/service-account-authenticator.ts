// Service-account tokens as bearer tokens. A JWT whose `iss` is not an accepted issuer is
// not this method's ("none": another token method may know it). One that claims an accepted
// issuer must have a valid signature by a configured key (the algorithm is the key's: `none`
// and HMAC never verify), carry the `orch.io` claim and `exp`, be within exp/nbf (one
// minute of skew, as Kubernetes allows), share an audience with the API audiences and, with
// lookup on, name an account (and bound pod or secret) that still exists with the same uid.
// The user is system:serviceaccount:<ns>:<name>, with the account's uid, the groups
// system:serviceaccounts and system:serviceaccounts:<ns>, and for a pod-bound token the extra
// authentication.orch.io/pod-name and pod-uid.
import type { JWTPayload } from 'jose';
import type { Registry } from '../registry/registry.ts';
import type { UserInfo } from '../registry/types.ts';
import type { KObject } from '../storage/types.ts';
import { jose, joseLoaded } from './jose.ts';
import { type OrchClaim, PRIVATE_CLAIM, serviceAccountUsername } from './service-account-issuer.ts';
import { algorithmOf, type VerifyKey } from './service-account-keys.ts';
import {
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  bearerToken,
  NOT_MINE,
} from './types.ts';

export const POD_NAME_EXTRA = 'authentication.orch.io/pod-name';
export const POD_UID_EXTRA = 'authentication.orch.io/pod-uid';
const SKEW_SECONDS = 60;
/** Tokens whose signature was verified, kept so a token used again is answered without crypto. */
const VERIFIED_MAX = 4096;

export interface ServiceAccountAuthenticatorOptions {
  issuers: readonly string[];
  /** The verifying keys (a function: the generated signing key joins them once it exists). */
  keys: () => readonly VerifyKey[];
  apiAudiences: readonly string[];
  /** Refuse tokens whose account or bound object is gone or was recreated (default true). */
  lookup: boolean;
  registry: Registry;
  now?: () => number;
}

const refuse = (message: string): AuthenticationResult => ({ status: 'error', message });

export class ServiceAccountTokenAuthenticator implements Authenticator {
  readonly name = 'service-account-token';
  private readonly issuers: Set<string>;
  private readonly now: () => number;
  /**
   * Payloads of tokens whose signature verified (a signature does not change with time): a
   * token used again skips the signature but has its time window, audiences and lookup
   * checked afresh, synchronously.
   */
  private readonly verified = new Map<string, JWTPayload>();

  constructor(private readonly o: ServiceAccountAuthenticatorOptions) {
    this.issuers = new Set(o.issuers);
    this.now = o.now ?? Date.now;
  }

  authenticate(r: AuthenticationRequest): AuthenticationResult | Promise<AuthenticationResult> {
    const token = bearerToken(r);
    if (token === undefined) return NOT_MINE;
    const known = this.verified.get(token);
    if (known) {
      const late = this.outsideWindow(known);
      return late ? refuse(`invalid service account token: ${late}`) : this.checkClaims(known, r.audiences);
    }
    if (token.split('.').length !== 3) return NOT_MINE;
    const lib = joseLoaded();
    // the first token shaped as a JWT loads the library, then is looked at as any other
    if (!lib) return jose().then(() => this.authenticate(r));
    let iss: unknown;
    try {
      iss = lib.decodeJwt(token).iss;
    } catch {
      return NOT_MINE;
    }
    if (typeof iss !== 'string' || !this.issuers.has(iss)) return NOT_MINE;
    return this.verify(token, r.audiences);
  }

  private async verify(token: string, targets: readonly string[] | undefined): Promise<AuthenticationResult> {
    let payload: JWTPayload;
    try {
      payload = await this.checkSignature(token);
    } catch (e) {
      return refuse(`invalid service account token: ${(e as Error).message}`);
    }
    if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, payload);
    return this.checkClaims(payload, targets);
  }

  /** Why a verified payload is outside its validity window now (exp, nbf with the skew), or undefined. */
  private outsideWindow(p: JWTPayload): string | undefined {
    const now = Math.floor(this.now() / 1000);
    if (typeof p.exp === 'number' && now - SKEW_SECONDS >= p.exp) return '"exp" claim timestamp check failed';
    if (typeof p.nbf === 'number' && now + SKEW_SECONDS < p.nbf) return '"nbf" claim timestamp check failed';
    return undefined;
  }

  /** The verified payload: the key named by `kid` first, then every other key. */
  private async checkSignature(token: string): Promise<JWTPayload> {
    const { decodeProtectedHeader, jwtVerify } = await jose();
    const header = decodeProtectedHeader(token);
    const keys = [...this.o.keys()].sort(
      (a, b) => Number(b.kid === header.kid) - Number(a.kid === header.kid),
    );
    let last: unknown = new Error('no key verifies the token');
    for (const k of keys) {
      try {
        const { payload } = await jwtVerify(token, k.key, {
          algorithms: [algorithmOf(k.key)],
          currentDate: new Date(this.now()),
          clockTolerance: SKEW_SECONDS,
          requiredClaims: ['exp'],
        });
        return payload;
      } catch (e) {
        last = e;
        // a claim error (expired, not yet valid) means the signature was good: stop there
        if ((e as { code?: string }).code?.startsWith('ERR_JWT_CLAIM')) throw e;
        if ((e as { code?: string }).code === 'ERR_JWT_EXPIRED') throw e;
      }
    }
    throw last;
  }

  /** `targets`: the audiences the token must be for (a TokenReview's), the API audiences when absent. */
  private checkClaims(p: JWTPayload, targets: readonly string[] = this.o.apiAudiences): AuthenticationResult {
    const aud = typeof p.aud === 'string' ? [p.aud] : Array.isArray(p.aud) ? p.aud : [];
    const audiences = aud.filter((a) => targets.includes(a));
    if (!audiences.length)
      return refuse(
        `token audiences ${JSON.stringify(aud)} is invalid for the target audiences ${JSON.stringify(targets)}`,
      );
    const c = p[PRIVATE_CLAIM] as OrchClaim | undefined;
    if (!isClaim(c)) return refuse(`the token has no valid ${PRIVATE_CLAIM} claim`);
    const username = serviceAccountUsername(c.namespace, c.serviceaccount.name);
    if (p.sub !== username)
      return refuse(`the subject ${JSON.stringify(p.sub)} does not name the service account ${username}`);
    if (this.o.lookup) {
      const why = this.lookupRefusal(c);
      if (why) return refuse(why);
    }
    const user: UserInfo = {
      username,
      uid: c.serviceaccount.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${c.namespace}`],
    };
    if (c.pod) user.extra = { [POD_NAME_EXTRA]: [c.pod.name], [POD_UID_EXTRA]: [c.pod.uid] };
    return { status: 'user', user, audiences };
  }

  /** Why a token's account or bound object no longer holds, or undefined when they all do. */
  private lookupRefusal(c: OrchClaim): string | undefined {
    const ns = c.namespace;
    const check = (
      plural: string,
      what: string,
      ref: { name: string; uid: string },
      gracePassed: boolean,
    ) => {
      const o = this.o.registry.byResource('', plural)?.store.getStored(ns, ref.name)?.obj as
        | KObject
        | undefined;
      if (!o) return `${what} ${ns}/${ref.name} has been deleted`;
      const del = o.metadata.deletionTimestamp;
      if (del && (!gracePassed || Date.parse(del) <= this.now()))
        return `${what} ${ns}/${ref.name} has been deleted`;
      if (o.metadata.uid !== ref.uid)
        return `${what} UID (${o.metadata.uid}) does not match claim (${ref.uid})`;
      return undefined;
    };
    return (
      check('serviceaccounts', 'service account', c.serviceaccount, false) ??
      (c.secret ? check('secrets', 'secret', c.secret, false) : undefined) ??
      // a pod in its graceful deletion keeps its tokens until the deletion time has passed
      (c.pod ? check('pods', 'pod', c.pod, true) : undefined)
    );
  }
}

function isRef(r: unknown): r is { name: string; uid: string } {
  const o = r as { name?: unknown; uid?: unknown } | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.name === 'string' &&
    o.name !== '' &&
    typeof o.uid === 'string'
  );
}

function isClaim(c: unknown): c is OrchClaim {
  const o = c as OrchClaim | undefined;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.namespace === 'string' &&
    o.namespace !== '' &&
    isRef(o.serviceaccount) &&
    (o.pod === undefined || isRef(o.pod)) &&
    (o.secret === undefined || isRef(o.secret))
  );
}
