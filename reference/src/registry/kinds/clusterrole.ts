// ClusterRole (rbac.authorization.orch.io/v1, cluster-scoped): rules granted cluster-wide
// (through a ClusterRoleBinding) or in a namespace (through a RoleBinding). A cluster role
// with an aggregationRule has its rules filled by the aggregation controller from the
// cluster roles its selectors match.
import type { StatusCause } from '../../errors/status.ts';
import { arr, obj } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { type LabelSelectorObj, validateLabelSelector } from './common.ts';
import { defineKind } from './define.ts';
import { labelSelectorSchema, policyRuleSchema, RBAC_GROUP, validateRules } from './rbac-common.ts';

function validate(o: KObject): StatusCause[] {
  const out = validateRules(o, false);
  const agg = o.aggregationRule as { clusterRoleSelectors?: LabelSelectorObj[] } | undefined | null;
  if (agg) {
    const sels = Array.isArray(agg.clusterRoleSelectors) ? agg.clusterRoleSelectors : [];
    if (sels.length === 0)
      out.required(
        'aggregationRule.clusterRoleSelectors',
        'at least one clusterRoleSelector required if aggregationRule is non-nil',
      );
    sels.forEach((s, i) => {
      out.push(...validateLabelSelector(`aggregationRule.clusterRoleSelectors[${i}]`, s));
    });
  }
  return out;
}

export const clusterRoleDef = defineKind({
  group: RBAC_GROUP,
  kind: 'ClusterRole',
  namespaced: false,
  schema: objectSchema({
    rules: arr(policyRuleSchema),
    aggregationRule: obj({ clusterRoleSelectors: arr(labelSelectorSchema) }),
  }),
  nameRule: 'path',
  zeroValue: () => ({ rules: null }),
  validate: (o) => validate(o),
  validateUpdate: (o) => validate(o),
  normalize: false,
});
