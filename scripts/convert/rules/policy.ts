// policy/v1beta1: PodDisruptionBudget to policy/v1 (an empty selector now selects every pod of
// the namespace; it selected none), and PodSecurityPolicy, which has no replacement API.
import type { Obj, Rule } from '../types.ts';

const isEmptySelector = (s: Obj | undefined) =>
  !!s && !Object.keys(s.matchLabels ?? {}).length && !(s.matchExpressions ?? []).length;

export const policyRules: Rule[] = [
  {
    kinds: ['PodDisruptionBudget'],
    from: ['policy/v1beta1'],
    to: 'policy/v1',
    convert: (o, _from, notes) => {
      if (isEmptySelector(o.spec?.selector))
        notes.push(
          'spec.selector: empty; in policy/v1beta1 it selected no pods, in policy/v1 it selects every pod in the namespace: remove the selector to keep selecting none',
        );
      return o;
    },
  },
  {
    kinds: ['PodSecurityPolicy'],
    from: ['policy/v1beta1', 'extensions/v1beta1'],
    to: '',
    convert: (_o, _from, notes) => {
      notes.push(
        'PodSecurityPolicy is no longer served and has no replacement API: use pod security admission (the namespace labels pod-security.orch.io/enforce, audit, warn) or an admission webhook',
      );
      return undefined;
    },
  },
];
