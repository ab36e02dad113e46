// RoleBinding (rbac.authorization.orch.io/v1, namespaced): grants a Role of its namespace, or
// a ClusterRole's rules inside its namespace, to users, groups and service accounts.
import type { ResourceDef } from '../types.ts';
import { ALL_VERBS } from './common.ts';
import { bindingShape, RBAC_GROUP } from './rbac-common.ts';

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
  ...bindingShape(true),
};
