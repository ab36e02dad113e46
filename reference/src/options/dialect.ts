// --dialect: the words the server speaks (config.ts `dialect`).
import { type OptionSection, UsageError } from './flags.ts';

export const dialectOptions: OptionSection = {
  flags: { dialect: { type: 'string' } },
  usage: `  --dialect orch|kubernetes  the words the API speaks: the spec's (orch, the default) or
                             Kubernetes' (k8s.io groups, kube-system, x-kubernetes-* schema
                             extensions, application/vnd.kubernetes.protobuf, ...), for
                             Kubernetes' own clients and tests
`,
  parse({ str, options }) {
    const d = str('dialect');
    if (d === undefined) return;
    if (d !== 'orch' && d !== 'kubernetes')
      throw new UsageError(`--dialect: "${d}" is not orch or kubernetes`);
    options.dialect = d;
  },
};
