// FlowSchema and PriorityLevelConfiguration: v1beta1 and v1beta2 to v1beta3, where
// `spec.limited.assuredConcurrencyShares` is named `nominalConcurrencyShares`.
import type { Rule } from '../types.ts';

export const flowcontrolRules: Rule[] = [
  {
    kinds: ['FlowSchema'],
    from: ['flowcontrol.apiserver.orch.io/v1beta1', 'flowcontrol.apiserver.orch.io/v1beta2'],
    to: 'flowcontrol.apiserver.orch.io/v1beta3',
    convert: (o) => o,
  },
  {
    kinds: ['PriorityLevelConfiguration'],
    from: ['flowcontrol.apiserver.orch.io/v1beta1', 'flowcontrol.apiserver.orch.io/v1beta2'],
    to: 'flowcontrol.apiserver.orch.io/v1beta3',
    convert: (o) => {
      const limited = o.spec?.limited;
      if (limited && 'assuredConcurrencyShares' in limited) {
        limited.nominalConcurrencyShares = limited.assuredConcurrencyShares;
        delete limited.assuredConcurrencyShares;
      }
      return o;
    },
  },
];
