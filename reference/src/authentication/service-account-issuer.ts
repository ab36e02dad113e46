// The minting half of service-account tokens: a signed JWT whose claims are shaped as
// Kubernetes 1.28 shapes them (iss, sub, aud, exp, iat, nbf and the private `orch.io` claim
// naming the namespace, the account and the bound pod or secret; 1.28 has no `jti`).
import { jose } from './jose.ts';
import type { SigningKeySource } from './service-account-keys.ts';

/** The default issuer (Kubernetes': https://kubernetes.default.svc.cluster.local). */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://orch.default.svc.cluster.local';
export const PRIVATE_CLAIM = 'orch.io';

export interface ObjectRef {
  name: string;
  uid: string;
}

/** The private claim: where the token comes from and what it is bound to. */
export interface OrchClaim {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
}

export interface TokenRequestClaims {
  namespace: string;
  serviceAccount: ObjectRef;
  audiences: string[];
  expirationSeconds: number;
  pod?: ObjectRef;
  secret?: ObjectRef;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

export class ServiceAccountTokenIssuer {
  constructor(
    private readonly keys: SigningKeySource,
    /** The issuer written into tokens (the first `--service-account-issuer`). */
    readonly issuer: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A signed token and its expiry (ms since the epoch); the expiry is taken before signing, so it is never later than `exp`. */
  async mint(c: TokenRequestClaims): Promise<{ token: string; expires: number }> {
    const { SignJWT } = await jose();
    const key = this.keys.get();
    const nowMs = this.now();
    const iat = Math.floor(nowMs / 1000);
    const exp = iat + c.expirationSeconds;
    const priv: OrchClaim = {
      namespace: c.namespace,
      serviceaccount: { name: c.serviceAccount.name, uid: c.serviceAccount.uid },
    };
    if (c.pod) priv.pod = { name: c.pod.name, uid: c.pod.uid };
    if (c.secret) priv.secret = { name: c.secret.name, uid: c.secret.uid };
    const token = await new SignJWT({ [PRIVATE_CLAIM]: priv })
      .setProtectedHeader({ alg: key.alg, kid: key.kid })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(c.namespace, c.serviceAccount.name))
      .setAudience(c.audiences)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .sign(key.privateKey);
    return { token, expires: iat * 1000 + c.expirationSeconds * 1000 };
  }
}
