// The access reviews authorization.orch.io/v1beta1 to v1: `spec.group` is named `spec.groups`.
import type { Rule } from '../types.ts';

export const authorizationRules: Rule[] = [
  {
    kinds: [
      'SubjectAccessReview',
      'LocalSubjectAccessReview',
      'SelfSubjectAccessReview',
      'SelfSubjectRulesReview',
    ],
    from: ['authorization.orch.io/v1beta1'],
    to: 'authorization.orch.io/v1',
    convert: (o) => {
      if (o.spec && 'group' in o.spec) {
        o.spec.groups = o.spec.group;
        delete o.spec.group;
      }
      return o;
    },
  },
];
