// CertificateSigningRequest certificates.orch.io/v1beta1 to v1: `signerName` is required (the
// old default, the legacy-unknown signer, cannot be asked for in v1) and so is `usages` (the old
// default is written out).
import type { Rule } from '../types.ts';

// the legacy signer in either dialect
const LEGACY = ['orch.io/legacy-unknown', 'kubernetes.io/legacy-unknown'];

export const certificateRules: Rule[] = [
  {
    kinds: ['CertificateSigningRequest'],
    from: ['certificates.orch.io/v1beta1'],
    to: 'certificates.orch.io/v1',
    convert: (o, _from, notes) => {
      const spec = (o.spec ??= {});
      if (!spec.signerName || LEGACY.includes(spec.signerName))
        notes.push(
          `spec.signerName: ${spec.signerName ? spec.signerName : 'unset (the old default was the legacy-unknown signer)'}; v1 cannot create requests for that signer: name the signer that should sign (e.g. orch.io/kube-apiserver-client)`,
        );
      if (!spec.usages) {
        spec.usages = ['digital signature', 'key encipherment'];
        notes.push(
          'spec.usages: set to ["digital signature","key encipherment"], the old default (required in v1)',
        );
      }
      if (o.status) {
        delete o.status;
        notes.push('status: dropped (approval and the certificate are given by the server)');
      }
      return o;
    },
  },
];
