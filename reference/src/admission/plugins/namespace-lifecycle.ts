// NamespaceLifecycle (doc3 plugin table): the system namespaces may not be deleted. (New
// content in a terminating or missing namespace is refused by the registry itself, as the
// storage of every namespaced kind needs it.)
import { errors } from '../../errors/status.ts';
import { PROTECTED_NAMESPACES } from '../../registry/kinds/namespace.ts';
import type { AdmissionPlugin } from '../types.ts';

export const namespaceLifecycle: AdmissionPlugin = {
  name: 'NamespaceLifecycle',
  handles: (a) => a.operation === 'DELETE' && a.resource.group === '' && a.resource.resource === 'namespaces',
  validate(a) {
    if (PROTECTED_NAMESPACES.includes(a.name))
      throw errors.forbidden(`namespaces "${a.name}" is forbidden: this namespace may not be deleted`, {
        name: a.name,
        kind: 'namespaces',
      });
  },
};
