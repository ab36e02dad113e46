// Escalation prevention (Kubernetes' policy-based RBAC storage), as an admission plugin that
// runs first (the server adds it before the configured plugins; it is not one of them, as
// Kubernetes checks this in the RBAC kinds' storage whatever the plugins): creating or updating a Role or ClusterRole needs every permission it grants
// (or `escalate` on it), setting an aggregationRule needs full authority, and creating a
// binding needs the referenced role's permissions (or `bind` on it). Members of
// system:masters pass; the server's own writes are not admitted and so not checked.
import type { AuthorizerChain } from '../../authorization/chain.ts';
import type { RbacIndex } from '../../authorization/rbac/rbac-index.ts';
import { missingRules, type PolicyRule, toRules } from '../../authorization/rbac/rules.ts';
import { errors } from '../../errors/status.ts';
import { RBAC_GROUP } from '../../registry/kinds/rbac-common.ts';
import type { UserInfo } from '../../registry/types.ts';
import { deepEqual } from '../../util/object.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const goStrings = (l: readonly string[]) => `[${l.map((s) => JSON.stringify(s)).join(' ')}]`;

/** Whether the user may do `verb` on the RBAC object (`escalate` or `bind` it). */
const allowedBy = async (
  authz: AuthorizerChain,
  user: UserInfo,
  verb: string,
  resource: string,
  name: string,
  namespace: string,
) => {
  const r = await authz.authorize({
    user,
    verb,
    resourceRequest: true,
    apiGroup: RBAC_GROUP,
    apiVersion: '',
    resource,
    subresource: '',
    namespace,
    name,
    path: '',
  });
  return r.decision === 'allow';
};

/** The forbidden text when the user does not hold `wanted` in the namespace, else undefined. */
const notHeld = (
  index: RbacIndex,
  user: UserInfo,
  namespace: string,
  wanted: PolicyRule[],
): string | undefined => {
  const owner = index.rulesFor(user, namespace);
  const missing = missingRules(owner.rules, wanted);
  if (missing.length === 0) return undefined;
  let msg = `user ${JSON.stringify(user.username)} (groups=${goStrings(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing.join('\n')}`;
  if (owner.errors.length) msg += `; resolution errors: [${owner.errors.join(' ')}]`;
  return msg;
};

const refuse = (a: AdmissionAttributes, why: string) =>
  errors.forbidden(`${a.resource.resource}.${RBAC_GROUP} ${JSON.stringify(a.name)} is forbidden: ${why}`, {
    name: a.name,
    group: RBAC_GROUP,
    kind: a.resource.resource,
  });

export function escalationPlugin(index: RbacIndex, authz: AuthorizerChain): AdmissionPlugin {
  return {
    name: 'RBACEscalation',
    handles: (a) =>
      a.resource.group === RBAC_GROUP &&
      a.subresource === '' &&
      (a.operation === 'CREATE' || a.operation === 'UPDATE') &&
      !a.ctx.user.groups.includes('system:masters'),
    async mutate(a) {
      const user = a.ctx.user;
      const obj = a.object!;
      const plural = a.resource.resource;
      if (plural === 'roles' || plural === 'clusterroles') {
        if (await allowedBy(authz, user, 'escalate', plural, a.name, a.namespace)) return;
        const why = notHeld(index, user, a.namespace, toRules(obj.rules));
        if (why) throw refuse(a, why);
        if (plural === 'clusterroles') {
          const agg = obj.aggregationRule ?? undefined;
          const changed =
            a.operation === 'CREATE' ? !!agg : !deepEqual(agg, a.oldObject?.aggregationRule ?? undefined);
          if (changed && notHeld(index, user, '', FULL_AUTHORITY))
            throw refuse(a, 'must have cluster-admin privileges to use the aggregationRule');
        }
        return;
      }
      if (plural !== 'rolebindings' && plural !== 'clusterrolebindings') return;
      const ref = (obj.roleRef ?? {}) as { kind?: unknown; name?: unknown };
      const oldRef = a.oldObject?.roleRef;
      // the role reference cannot change (validation says so): an update grants nothing new
      if (a.operation === 'UPDATE' && deepEqual(oldRef, obj.roleRef)) return;
      const kind = typeof ref.kind === 'string' ? ref.kind : '';
      const name = typeof ref.name === 'string' ? ref.name : '';
      if (kind !== 'Role' && kind !== 'ClusterRole') return; // validation refuses it
      const namespace = plural === 'rolebindings' ? a.namespace : '';
      if (await allowedBy(authz, user, 'bind', kind === 'Role' ? 'roles' : 'clusterroles', name, namespace))
        return;
      const rules = index.roleRules(kind, name, namespace);
      if (!rules) throw errors.notFound(RBAC_GROUP, kind.toLowerCase(), name);
      const why = notHeld(index, user, namespace, rules);
      if (why) throw refuse(a, why);
    },
  };
}
