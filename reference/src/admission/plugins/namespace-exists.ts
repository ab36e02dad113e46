// NamespaceExists (doc3 plugin table: rejects requests naming a missing namespace): as
// Kubernetes 1.28, a create, update or delete of a namespaced object in a namespace that does
// not exist is refused with 404 NotFound for the namespace.
import { errors } from '../../errors/status.ts';
import type { Registry } from '../../registry/registry.ts';
import type { AdmissionPlugin } from '../types.ts';

export const namespaceExists = (env: { registry: Registry }): AdmissionPlugin => ({
  name: 'NamespaceExists',
  handles: (a) =>
    a.operation !== 'CONNECT' && !!a.namespace && !(a.kind.group === '' && a.kind.kind === 'Namespace'),
  validate(a) {
    if (!env.registry.byResource('', 'namespaces')?.store.getStored('', a.namespace))
      throw errors.notFound('', 'namespaces', a.namespace);
  },
});
