// CertificateSigning (doc3 plugin table: "checks the signer has permission when
// `status.certificate` is set"): a write of a CertificateSigningRequest's `status` subresource
// that changes `status.certificate` needs the `sign` verb on the request's signer; a status
// write that leaves the certificate as it was (a condition, say) needs nothing more.
import type { AuthorizerChain } from '../../authorization/chain.ts';
import type { AdmissionPlugin } from '../types.ts';
import { csrForbidden, isCsr, signerOf } from './certificate-approval.ts';
import { mayActForSigner } from './signer-permission.ts';

const certificateOf = (o: unknown) =>
  (o as { status?: { certificate?: unknown } } | undefined)?.status?.certificate;

export function certificateSigning(env: { authorizer: AuthorizerChain }): AdmissionPlugin {
  return {
    name: 'CertificateSigning',
    handles: (a) => isCsr(a) && a.operation === 'UPDATE' && a.subresource === 'status',
    async validate(a) {
      const now = certificateOf(a.object);
      if (now === certificateOf(a.oldObject) || !now) return;
      const signer = signerOf(a.oldObject ?? a.object);
      if (!(await mayActForSigner(env.authorizer, a.ctx.user, 'sign', signer)))
        throw csrForbidden(
          a,
          `user not permitted to sign requests with signerName ${JSON.stringify(signer)}`,
        );
    },
  };
}
