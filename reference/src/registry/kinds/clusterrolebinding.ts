// ClusterRoleBinding (rbac.authorization.orch.io/v1, cluster-scoped): grants a ClusterRole
// cluster-wide to users, groups and service accounts (which must name their namespace).
import { defineKind } from './define.ts';
import { bindingShape, RBAC_GROUP } from './rbac-common.ts';

export const clusterRoleBindingDef = defineKind({
  group: RBAC_GROUP,
  kind: 'ClusterRoleBinding',
  namespaced: false,
  ...bindingShape(false),
});
