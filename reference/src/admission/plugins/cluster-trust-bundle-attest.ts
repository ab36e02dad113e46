// ClusterTrustBundleAttest (doc3 plugin table, default on): a ClusterTrustBundle that names a
// signer may be written only by a user with the `attest` verb on that signer (as Kubernetes
// 1.28). The reference does not serve ClusterTrustBundle (alpha in 1.28, its API off by
// default), so the plugin sees no request until the kind is served.
import type { AuthorizerChain } from '../../authorization/chain.ts';
import { errors } from '../../errors/status.ts';
import type { AdmissionPlugin } from '../types.ts';
import { CERTIFICATES_GROUP, mayActForSigner } from './signer-permission.ts';

type Bundle = { spec?: { signerName?: unknown; trustBundle?: unknown } } | undefined;

export function clusterTrustBundleAttest(env: { authorizer: AuthorizerChain }): AdmissionPlugin {
  return {
    name: 'ClusterTrustBundleAttest',
    handles: (a) =>
      a.resource.group === CERTIFICATES_GROUP &&
      a.resource.resource === 'clustertrustbundles' &&
      (a.operation === 'CREATE' || a.operation === 'UPDATE') &&
      !a.subresource,
    async validate(a) {
      const now = (a.object as Bundle)?.spec;
      const signer = typeof now?.signerName === 'string' ? now.signerName : '';
      if (!signer) return;
      const old = (a.oldObject as Bundle)?.spec;
      if (a.operation === 'UPDATE' && old?.signerName === signer && old?.trustBundle === now?.trustBundle)
        return;
      if (!(await mayActForSigner(env.authorizer, a.ctx.user, 'attest', signer)))
        throw errors.forbidden(
          `clustertrustbundles.${CERTIFICATES_GROUP} ${JSON.stringify(a.name)} is forbidden: user not permitted to attest for signerName ${JSON.stringify(signer)}`,
          { name: a.name, group: CERTIFICATES_GROUP, kind: 'clustertrustbundles' },
        );
    },
  };
}
