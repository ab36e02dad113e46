// CertificateApproval (doc3 plugin table: "checks the approver has the approve permission for the
// request's signer"): a write of a CertificateSigningRequest's `approval` subresource needs the
// `approve` verb on the request's signer (signer-permission.ts); otherwise 403, worded as 1.28.
import { errors } from '../../errors/status.ts';
import type { AuthorizerChain } from '../../authorization/chain.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { CERTIFICATES_GROUP, mayActForSigner } from './signer-permission.ts';

export const isCsr = (a: AdmissionAttributes) =>
  a.resource.group === CERTIFICATES_GROUP && a.resource.resource === 'certificatesigningrequests';

export const signerOf = (o: unknown) =>
  String((o as { spec?: { signerName?: unknown } } | undefined)?.spec?.signerName ?? '');

export function csrForbidden(a: AdmissionAttributes, message: string) {
  return errors.forbidden(
    `certificatesigningrequests.${CERTIFICATES_GROUP} ${JSON.stringify(a.name)} is forbidden: ${message}`,
    {
      name: a.name,
      group: CERTIFICATES_GROUP,
      kind: 'certificatesigningrequests',
    },
  );
}

export function certificateApproval(env: { authorizer: AuthorizerChain }): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    handles: (a) => isCsr(a) && a.operation === 'UPDATE' && a.subresource === 'approval',
    async validate(a) {
      const signer = signerOf(a.oldObject ?? a.object);
      if (!(await mayActForSigner(env.authorizer, a.ctx.user, 'approve', signer)))
        throw csrForbidden(
          a,
          `user not permitted to approve requests with signerName ${JSON.stringify(signer)}`,
        );
    },
  };
}
