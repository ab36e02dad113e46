// Retired versions whose objects have the replacement's shape: only apiVersion changes.
import type { Rule } from '../types.ts';

const same = (kinds: string[], from: string[], to: string): Rule => ({
  kinds,
  from,
  to,
  convert: (o) => o,
});

export const sameShapeRules: Rule[] = [
  same(
    ['CSIStorageCapacity', 'CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'],
    ['storage.orch.io/v1beta1'],
    'storage.orch.io/v1',
  ),
  same(['CronJob'], ['batch/v1beta1'], 'batch/v1'),
  same(['RuntimeClass'], ['node.orch.io/v1beta1'], 'node.orch.io/v1'),
  same(['APIService'], ['apiregistration.orch.io/v1beta1'], 'apiregistration.orch.io/v1'),
  same(['TokenReview'], ['authentication.orch.io/v1beta1'], 'authentication.orch.io/v1'),
  same(['Lease'], ['coordination.orch.io/v1beta1'], 'coordination.orch.io/v1'),
  same(['IngressClass'], ['networking.orch.io/v1beta1'], 'networking.orch.io/v1'),
  same(
    ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
    ['rbac.authorization.orch.io/v1beta1'],
    'rbac.authorization.orch.io/v1',
  ),
  same(['PriorityClass'], ['scheduling.orch.io/v1beta1'], 'scheduling.orch.io/v1'),
  same(['NetworkPolicy'], ['extensions/v1beta1'], 'networking.orch.io/v1'),
];
