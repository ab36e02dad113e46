// Role (rbac.authorization.orch.io/v1, namespaced): rules granted in one namespace.
import { arr } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { ResourceDef } from '../types.ts';
import { ALL_VERBS } from './common.ts';
import { policyRuleSchema, RBAC_GROUP, validateRules } from './rbac-common.ts';

export const roleDef: ResourceDef = {
  group: RBAC_GROUP,
  versions: ['v1'],
  kind: 'Role',
  listKind: 'RoleList',
  plural: 'roles',
  singular: 'role',
  namespaced: true,
  verbs: ALL_VERBS,
  subresources: [],
  schema: objectSchema({ rules: arr(policyRuleSchema) }),
  strategy: {
    nameRule: 'path',
    tracksGeneration: false,
    allowUnconditionalUpdate: true,
    zeroValue: () => ({ rules: null }),
    validate: (o) => validateRules(o, true),
    validateUpdate: (o) => validateRules(o, true),
  },
};
