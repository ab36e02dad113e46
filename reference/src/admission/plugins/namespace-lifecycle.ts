// NamespaceLifecycle (doc3 plugin table): the system namespaces may not be deleted, and, as in
// Kubernetes 1.28, the creation of a namespaced object in a namespace that does not exist is
// refused (404 NotFound for the namespace) in the mutating phase, before any later plugin or
// webhook sees it (after NamespaceAutoProvision, which may create it). New content in a
// terminating namespace is refused by the registry itself, as the storage of every namespaced
// kind needs it.
import { errors } from '../../errors/status.ts';
import { PROTECTED_NAMESPACES } from '../../registry/kinds/namespace.ts';
import type { Registry } from '../../registry/registry.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';

/** Kinds whose creation only asks a question (Kubernetes' accessReviewResources): any namespace will do. */
const REVIEWS = new Set([
  'localsubjectaccessreviews',
  'subjectaccessreviews',
  'selfsubjectaccessreviews',
  'tokenreviews',
]);

const isNamespaceDelete = (a: AdmissionAttributes) =>
  a.operation === 'DELETE' && a.resource.group === '' && a.resource.resource === 'namespaces';

const isContentCreate = (a: AdmissionAttributes) =>
  a.operation === 'CREATE' &&
  !!a.namespace &&
  !(a.kind.group === '' && a.kind.kind === 'Namespace') &&
  !REVIEWS.has(a.resource.resource);

export const namespaceLifecycle = (env: { registry: Registry }): AdmissionPlugin => ({
  name: 'NamespaceLifecycle',
  handles: (a) => isNamespaceDelete(a) || isContentCreate(a),
  mutate(a) {
    if (!isContentCreate(a)) return;
    if (!env.registry.namespace(a.namespace)) throw errors.notFound('', 'namespaces', a.namespace);
  },
  validate(a) {
    if (isNamespaceDelete(a) && PROTECTED_NAMESPACES.includes(a.name))
      throw errors.forbidden(`namespaces "${a.name}" is forbidden: this namespace may not be deleted`, {
        name: a.name,
        kind: 'namespaces',
      });
  },
});
