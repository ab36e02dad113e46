// Whether a user may act for a signer (doc3 plugin table: CertificateApproval, CertificateSigning;
// the permission's shape follows Kubernetes 1.28): the verb (approve, sign, attest) on the
// `signers` resource of the certificates group, named by the signer name or, failing that, by
// the wildcard of its domain, `<domain>/*`.
import type { AuthorizerChain } from '../../authorization/chain.ts';
import type { UserInfo } from '../../registry/types.ts';

export const CERTIFICATES_GROUP = 'certificates.orch.io';

async function allowed(authz: AuthorizerChain, user: UserInfo, verb: string, name: string): Promise<boolean> {
  const r = await authz.authorize({
    user,
    verb,
    resourceRequest: true,
    apiGroup: CERTIFICATES_GROUP,
    apiVersion: '*',
    resource: 'signers',
    subresource: '',
    namespace: '',
    name,
    path: '',
  });
  return r.decision === 'allow';
}

export async function mayActForSigner(
  authz: AuthorizerChain,
  user: UserInfo,
  verb: string,
  signerName: string,
): Promise<boolean> {
  if (await allowed(authz, user, verb, signerName)) return true;
  const slash = signerName.indexOf('/');
  return slash > 0 && (await allowed(authz, user, verb, `${signerName.slice(0, slash)}/*`));
}
