// --show-hidden-metrics-for-version: the metrics this release hides, shown again.

import { previousMinor, showHiddenProblem } from '../metrics/lifecycle.ts';
import { SERVER_RELEASE } from '../server/version.ts';
import { type OptionSection, UsageError } from './flags.ts';

export const metricsOptions: OptionSection = {
  flags: { 'show-hidden-metrics-for-version': { type: 'string' } },
  usage: `  --show-hidden-metrics-for-version V
                             show again on /metrics the metrics this release hides (deprecated
                             long enough ago); only the previous minor release is accepted:
                             ${previousMinor(SERVER_RELEASE)}
`,
  parse({ str, options }) {
    const showHidden = str('show-hidden-metrics-for-version');
    if (showHidden === undefined) return;
    const problem = showHiddenProblem(showHidden, SERVER_RELEASE);
    if (problem) throw new UsageError(problem);
    if (showHidden) options.showHiddenMetricsForVersion = showHidden;
  },
};
