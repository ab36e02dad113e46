// ClusterRoleBinding (rbac.authorization.orch.io/v1, cluster-scoped): grants a ClusterRole
// cluster-wide to users, groups and service accounts (which must name their namespace).
import type { ResourceDef } from '../types.ts';
import { ALL_VERBS } from './common.ts';
import { bindingShape, RBAC_GROUP } from './rbac-common.ts';

export const clusterRoleBindingDef: ResourceDef = {
  group: RBAC_GROUP,
  versions: ['v1'],
  kind: 'ClusterRoleBinding',
  listKind: 'ClusterRoleBindingList',
  plural: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  namespaced: false,
  verbs: ALL_VERBS,
  subresources: [],
  ...bindingShape(false),
};
