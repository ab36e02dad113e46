// The CA that signs approved client certificate requests: --cluster-signing-cert-file and
// --cluster-signing-key-file.
import { type OptionSection, pathFlag, UsageError } from './flags.ts';

export const csrSigningOptions: OptionSection = {
  flags: {
    'cluster-signing-cert-file': { type: 'string' },
    'cluster-signing-key-file': { type: 'string' },
  },
  usage: `  --cluster-signing-cert-file FILE, --cluster-signing-key-file FILE
                             CA certificate and key that sign approved certificate signing
                             requests for orch.io/kube-apiserver-client (both or neither)
`,
  parse({ str, cwd, options }) {
    // paths only: the files are read, and their absence reported, when the server starts
    const signCert = pathFlag('cluster-signing-cert-file', str('cluster-signing-cert-file'), cwd);
    const signKey = pathFlag('cluster-signing-key-file', str('cluster-signing-key-file'), cwd);
    if ((signCert === undefined) !== (signKey === undefined))
      throw new UsageError(
        '--cluster-signing-cert-file and --cluster-signing-key-file go together (both or neither)',
      );
    if (signCert && signKey)
      Object.assign(options, { clusterSigningCertFile: signCert, clusterSigningKeyFile: signKey });
  },
};
