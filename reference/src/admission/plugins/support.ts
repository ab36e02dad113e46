// What the built-in plugins share: Kubernetes' admission refusal (403 naming the resource and
// object), the objects of a resource read from the registry, and the server's own identity for
// the writes a plugin makes (quota usage, finalizer release).
import { errors, qualifiedResource, type StatusError } from '../../errors/status.ts';
import type { Registry } from '../../registry/registry.ts';
import type { RequestContext } from '../../registry/types.ts';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionAttributes } from '../types.ts';

/** `<resource> "<name>" is forbidden: <why>`, as Kubernetes' admission.NewForbidden words it. */
export function admissionForbidden(a: AdmissionAttributes, why: string): StatusError {
  const resource = qualifiedResource(a.resource.group, a.resource.resource);
  const name = a.name || a.object?.metadata?.name || '';
  const message = name ? `${resource} "${name}" is forbidden: ${why}` : `${resource} is forbidden: ${why}`;
  return errors.forbidden(message, {
    name: name || undefined,
    group: a.resource.group || undefined,
    kind: a.resource.resource,
  });
}

/**
 * `<resource> "<name>" is forbidden: <why>` with the request's own name, quoted as JSON and
 * kept even when empty (NodeRestriction, OwnerReferencesPermissionEnforcement).
 */
export function requestForbidden(a: AdmissionAttributes, why: string): StatusError {
  return errors.forbidden(
    `${qualifiedResource(a.resource.group, a.resource.resource)} ${JSON.stringify(a.name)} is forbidden: ${why}`,
    { name: a.name, group: a.resource.group || undefined, kind: a.resource.resource },
  );
}

/** Whether a request is a write of a resource itself (not a subresource) by the given operations. */
export function isWriteOf(
  a: AdmissionAttributes,
  group: string,
  resource: string,
  ops: readonly string[],
): boolean {
  return (
    a.resource.group === group &&
    a.resource.resource === resource &&
    a.subresource === '' &&
    ops.includes(a.operation)
  );
}

/** Every stored object of a resource (in a namespace, or everywhere when ''). */
export async function listAll(
  registry: Registry,
  group: string,
  plural: string,
  namespace = '',
): Promise<KObject[]> {
  return (
    heldObjects(registry, group, plural, namespace) ??
    (await registry.byResource(group, plural)!.store.list(namespace, {})).items
  );
}

/**
 * The stored objects of a resource as the server holds them (as Kubernetes' plugins read their
 * informers' listers), without waiting; undefined for a kind computed on reads (then listAll).
 */
export function heldObjects(
  registry: Registry,
  group: string,
  plural: string,
  namespace = '',
): KObject[] | undefined {
  const served = registry.byResource(group, plural);
  if (!served) return [];
  return served.store.current(namespace);
}

/** One stored object, or undefined. */
export function getStored(
  registry: Registry,
  group: string,
  plural: string,
  namespace: string,
  name: string,
): KObject | undefined {
  return registry.byResource(group, plural)?.store.getStored(namespace, name)?.obj;
}

/** The server's own identity for the writes plugins make (no admission runs for them). */
export function serverContext(): RequestContext {
  return { user: { username: 'system:apiserver', groups: ['system:masters'] }, warnings: [], dryRun: false };
}
