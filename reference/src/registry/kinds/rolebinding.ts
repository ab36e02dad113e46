// RoleBinding (rbac.authorization.orch.io/v1, namespaced): grants a Role of its namespace, or
// a ClusterRole's rules inside its namespace, to users, groups and service accounts.
import { defineKind } from './define.ts';
import { bindingShape, RBAC_GROUP } from './rbac-common.ts';

export const roleBindingDef = defineKind({
  group: RBAC_GROUP,
  kind: 'RoleBinding',
  namespaced: true,
  ...bindingShape(true),
});
