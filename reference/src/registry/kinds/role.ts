// Role (rbac.authorization.orch.io/v1, namespaced): rules granted in one namespace.
import { arr } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import { defineKind } from './define.ts';
import { policyRuleSchema, RBAC_GROUP, validateRules } from './rbac-common.ts';

export const roleDef = defineKind({
  group: RBAC_GROUP,
  kind: 'Role',
  namespaced: true,
  schema: objectSchema({ rules: arr(policyRuleSchema) }),
  nameRule: 'path',
  zeroValue: () => ({ rules: null }),
  validate: (o) => validateRules(o, true),
  validateUpdate: (o) => validateRules(o, true),
  normalize: false,
});
