// OwnerReferencesPermissionEnforcement (doc3 plugin table: "only holders of delete permission
// change `metadata.ownerReferences`; `blockOwnerDeletion` needs update on the owner's finalizers
// subresource"), worded as Kubernetes 1.28:
// - an update that changes owner references needs `delete` on the object (a create does not:
//   whoever may create an object could also not have made it);
// - each owner reference that newly sets blockOwnerDeletion true needs `update` on the owner's
//   `finalizers` subresource (the owner found by its apiVersion and kind; an owner kind the
//   server does not serve cannot be checked, so the write is refused).
import type { AuthorizerChain } from '../../authorization/chain.ts';
import type { Registry } from '../../registry/registry.ts';
import type { AdmissionPlugin } from '../types.ts';
import { requestForbidden } from './support.ts';

interface OwnerRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

const refsOf = (o: unknown): OwnerRef[] => {
  const r = (o as { metadata?: { ownerReferences?: unknown } } | undefined)?.metadata?.ownerReferences;
  return Array.isArray(r) ? (r.filter((x) => x && typeof x === 'object') as OwnerRef[]) : [];
};
const same = (a: OwnerRef, b: OwnerRef) =>
  a.apiVersion === b.apiVersion &&
  a.kind === b.kind &&
  a.name === b.name &&
  a.uid === b.uid &&
  !!a.controller === !!b.controller &&
  !!a.blockOwnerDeletion === !!b.blockOwnerDeletion;
const sameRefs = (a: OwnerRef[], b: OwnerRef[]) => a.length === b.length && a.every((r, i) => same(r, b[i]!));

/** The served resource of an owner's apiVersion and kind. */
function resourceOf(
  registry: Registry,
  apiVersion: string,
  kind: string,
): { group: string; plural: string; namespaced: boolean } | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  for (const s of registry.all())
    if (s.def.group === group && s.def.kind === kind && s.def.versions.includes(version))
      return { group, plural: s.def.plural, namespaced: s.def.namespaced };
  return undefined;
}

/** The references that set blockOwnerDeletion and did not already (the same owner, blocking). */
const newlyBlocking = (now: OwnerRef[], old: OwnerRef[]): OwnerRef[] =>
  now.filter(
    (r) =>
      r.blockOwnerDeletion === true &&
      !old.some(
        (o) =>
          o.blockOwnerDeletion === true &&
          o.uid === r.uid &&
          o.name === r.name &&
          o.kind === r.kind &&
          o.apiVersion === r.apiVersion,
      ),
  );

export function ownerReferencesPermissionEnforcement(env: {
  registry: Registry;
  authorizer: AuthorizerChain;
}): AdmissionPlugin {
  return {
    name: 'OwnerReferencesPermissionEnforcement',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && !a.subresource,
    async validate(a) {
      const now = refsOf(a.object);
      const old = refsOf(a.oldObject);
      if (a.operation === 'CREATE' ? now.length === 0 : sameRefs(now, old)) return;
      if (a.operation !== 'CREATE') {
        const del = await env.authorizer.authorize({
          user: a.ctx.user,
          verb: 'delete',
          resourceRequest: true,
          apiGroup: a.resource.group,
          apiVersion: a.resource.version,
          resource: a.resource.resource,
          subresource: '',
          namespace: a.namespace,
          name: a.name,
          path: '',
        });
        if (del.decision !== 'allow')
          throw requestForbidden(
            a,
            `cannot set an ownerRef on a resource you can't delete: ${del.reason || 'no RBAC policy matched'}`,
          );
      }
      for (const r of newlyBlocking(now, old)) {
        const res = resourceOf(env.registry, String(r.apiVersion ?? ''), String(r.kind ?? ''));
        if (!res)
          throw requestForbidden(
            a,
            `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${r.apiVersion} Kind ${r.kind}`,
          );
        const fin = await env.authorizer.authorize({
          user: a.ctx.user,
          verb: 'update',
          resourceRequest: true,
          apiGroup: res.group,
          apiVersion: '*',
          resource: res.plural,
          subresource: 'finalizers',
          namespace: res.namespaced ? a.namespace : '',
          name: String(r.name ?? ''),
          path: '',
        });
        if (fin.decision !== 'allow')
          throw requestForbidden(
            a,
            `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${fin.reason || 'no RBAC policy matched'}`,
          );
      }
    },
  };
}
