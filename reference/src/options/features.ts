// --feature-gates: the Kubernetes 1.28 feature gates.
import type { FeatureGates } from '../config.ts';
import { knownFeatureGates, parseFeatureGateList, resolveFeatureGates } from '../features/feature-gates.ts';
import { type OptionSection, UsageError } from './flags.ts';

export const featureGateOptions: OptionSection = {
  flags: { 'feature-gates': { type: 'string', multiple: true } },
  usage: `  --feature-gates LIST       Name=true|false pairs for the Kubernetes 1.28 feature gates, e.g.
                             WatchList=true,APIResponseCompression=false; an unknown gate, or a GA
                             gate locked to true set to false, is refused; GA and deprecated gates
                             warn. AllAlpha / AllBeta set every alpha / beta gate not named. Alpha
                             and beta gates:
${knownFeatureGates()
  .map((g) => `                               ${g}`)
  .join('\n')}
`,
  parse({ values, options, warnings }) {
    const gates = (values['feature-gates'] as string[] | undefined) ?? [];
    if (!gates.length) return;
    try {
      const r = resolveFeatureGates(parseFeatureGateList(gates.join(',')));
      options.featureGates = r.gates as FeatureGates;
      warnings.push(...r.warnings);
    } catch (e) {
      throw new UsageError(`--feature-gates: ${(e as Error).message}`);
    }
  },
};
