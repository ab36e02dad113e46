// CertificateSubjectRestriction (doc3 plugin table: "rejects client-signer requests with group
// `system:masters`"): a new CertificateSigningRequest for the API server's client signer whose
// subject names the organization (group) `system:masters` is refused with 403, worded as 1.28.
// A request that does not parse is left to the kind's validation. The request is read
// (csr-organizations.ts) only for that signer.
import { KUBE_APISERVER_CLIENT_SIGNER } from '../../registry/kinds/certificatesigningrequest.ts';
import type { AdmissionPlugin } from '../types.ts';
import { csrForbidden, isCsr, signerOf } from './certificate-approval.ts';

export const certificateSubjectRestriction: AdmissionPlugin = {
  name: 'CertificateSubjectRestriction',
  handles: (a) => isCsr(a) && a.operation === 'CREATE' && !a.subresource,
  async validate(a) {
    if (signerOf(a.object) !== KUBE_APISERVER_CLIENT_SIGNER) return;
    const spec = (a.object as { spec?: { request?: unknown } }).spec;
    const { organizations } = await import('./csr-organizations.ts');
    if (organizations(spec?.request).includes('system:masters'))
      throw csrForbidden(
        a,
        `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`,
      );
  },
};
