// Client certificates (`--client-ca-file`, doc3 "Authentication"): a certificate chain that
// the client CAs verify names the user: username = the subject's common name, one group per
// organization. A request without a certificate is not this method's, nor (as in Kubernetes'
// common-name conversion) one whose trusted certificate has no common name: the request is
// then anonymous unless another method accepts it. A presented certificate that is not
// trusted (unknown issuer, a bad signature, outside its validity dates, not for client
// authentication) is refused, so the request is a 401 unless another method (a bearer
// token) accepts it. Each connection's chain is verified once; its validity dates are
// checked on every request.
import type { X509Certificate } from 'node:crypto';
import type { UserInfo } from '../registry/types.ts';
import type { MaybePromise } from '../util/maybe-async.ts';
import {
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  NOT_MINE,
} from './types.ts';
import { VerifiedChains } from './x509-chain.ts';
import { subjectReader, subjectReaderLoaded } from './x509-subject-reader.ts';

export class X509Authenticator implements Authenticator {
  readonly name = 'x509';
  private readonly chains: VerifiedChains<{ user?: UserInfo }>;

  constructor(roots: readonly X509Certificate[], now: () => number = Date.now) {
    this.chains = new VerifiedChains(roots, userOf, now);
  }

  authenticate(r: AuthenticationRequest): MaybePromise<AuthenticationResult> {
    const chain = r.peerCertificates;
    if (!chain?.length) return NOT_MINE;
    // the first certificate loads the reader of subject names, then is looked at as any other
    if (!subjectReaderLoaded()) return subjectReader().then(() => this.authenticate(r));
    const c = this.chains.verify(chain);
    if ('error' in c) return { status: 'error', message: c.error };
    return c.user ? { status: 'user', user: c.user } : NOT_MINE;
  }
}

/** The user a trusted leaf names: its common name, one group per organization (none without a common name). */
function userOf(leaf: Buffer): { user?: UserInfo } {
  // loaded: authenticate() loads it before any chain is verified
  const { commonName, organizations } = subjectReaderLoaded()!(leaf);
  return commonName ? { user: { username: commonName, groups: organizations } } : {};
}
