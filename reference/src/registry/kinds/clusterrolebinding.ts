// ClusterRoleBinding (rbac.authorization.orch.io/v1, cluster-scoped): grants a ClusterRole
// cluster-wide to users, groups and service accounts (which must name their namespace).
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
  schema: objectSchema({ subjects: arr(subjectSchema), roleRef: roleRefSchema }),
  strategy: {
    nameRule: 'path',
    tracksGeneration: false,
    allowUnconditionalUpdate: true,
    table: BINDING_TABLE,
    zeroValue: () => ({ roleRef: { apiGroup: '', kind: '', name: '' } }),
    prepareForCreate: (o) => defaultBinding(o),
    prepareForUpdate: (o) => defaultBinding(o),
    validate: (o) => validateBinding(o, false),
    validateUpdate: (o, old) => [...validateBinding(o, false), ...validateRoleRefUpdate(o, old)],
  },
};
