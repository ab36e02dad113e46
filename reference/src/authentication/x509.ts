// Client certificates (`--client-ca-file`, doc3 "Authentication"): a certificate chain that
// the client CAs verify names the user: username = the subject's common name, one group per
// organization. A request without a certificate is not this method's, nor (as in Kubernetes'
// common-name conversion) one whose trusted certificate has no common name: the request is
// then anonymous unless another method accepts it. A presented certificate that is not
// trusted (unknown issuer, a bad signature, outside its validity dates, not for client
// authentication) is refused, so the request is a 401 unless another method (a bearer
// token) accepts it. Each connection's chain is verified once; its validity dates are
// checked on every request.
import { X509Certificate } from 'node:crypto';
import type { UserInfo } from '../registry/types.ts';
import { type AuthenticationRequest, type AuthenticationResult, type Authenticator, NOT_MINE } from './types.ts';
import { type VerifiedChain, validAt, verifyChain } from './x509-chain.ts';
import { subjectOf } from './x509-subject.ts';

/** A refusal; a verified chain and its user (none when the certificate names no user). */
type Checked = { error: string } | (VerifiedChain & { user?: UserInfo });

export class X509Authenticator implements Authenticator {
  readonly name = 'x509';
  private readonly checked = new WeakMap<Buffer, Checked>();

  constructor(
    private readonly roots: readonly X509Certificate[],
    private readonly now: () => number = Date.now,
  ) {}

  authenticate(r: AuthenticationRequest): AuthenticationResult {
    const chain = r.peerCertificates;
    if (!chain?.length) return NOT_MINE;
    let c = this.checked.get(chain[0]!);
    if (!c) {
      c = this.check(chain);
      this.checked.set(chain[0]!, c);
    }
    if ('error' in c) return { status: 'error', message: c.error };
    const late = validAt(c, this.now());
    if (late) return { status: 'error', message: late };
    return c.user ? { status: 'user', user: c.user } : NOT_MINE;
  }

  private check(chain: Buffer[]): Checked {
    let certs: X509Certificate[];
    try {
      certs = chain.map((der) => new X509Certificate(der));
    } catch (e) {
      return { error: `unreadable client certificate: ${(e as Error).message}` };
    }
    const v = verifyChain(certs, this.roots);
    if ('error' in v) return v;
    const { commonName, organizations } = subjectOf(chain[0]!);
    if (!commonName) return v;
    return { ...v, user: { username: commonName, groups: organizations } };
  }
}
