// RoleBinding (rbac.authorization.orch.io/v1, namespaced): grants a Role of its namespace, or
// a ClusterRole's rules inside its namespace, to users, groups and service accounts.
import { arr } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { ResourceDef } from '../types.ts';
import { ALL_VERBS } from './common.ts';
import {
  BINDING_TABLE,
  defaultBinding,
  RBAC_GROUP,
  roleRefSchema,
  subjectSchema,
  validateBinding,
  validateRoleRefUpdate,
} from './rbac-common.ts';

export const roleBindingDef: ResourceDef = {
  group: RBAC_GROUP,
  versions: ['v1'],
  kind: 'RoleBinding',
  listKind: 'RoleBindingList',
  plural: 'rolebindings',
  singular: 'rolebinding',
  namespaced: true,
  verbs: ALL_VERBS,
  subresources: [],
  schema: objectSchema({ subjects: arr(subjectSchema), roleRef: roleRefSchema }),
  strategy: {
    nameRule: 'path',
    tracksGeneration: false,
    allowUnconditionalUpdate: true,
    table: BINDING_TABLE,
    zeroValue: () => ({ roleRef: { apiGroup: '', kind: '', name: '' } }),
    prepareForCreate: (o) => defaultBinding(o),
    prepareForUpdate: (o) => defaultBinding(o),
    validate: (o) => validateBinding(o, true),
    validateUpdate: (o, old) => [...validateBinding(o, true), ...validateRoleRefUpdate(o, old)],
  },
};
