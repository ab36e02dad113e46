// Role-based authorization's escalation prevention (Kubernetes 1.28): a user may create or
// update a Role only with every permission it grants (or the `escalate` verb on roles), and
// may bind a role only with its permissions (or the `bind` verb on it).
import { describe } from 'vitest';
import { checkStatus } from '../../harness/src/assert.ts';
import { actingAs } from '../../harness/src/auth/impersonation.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { RBAC, rbacObjects, settle, WHAT } from './helpers.ts';

const SECTION = 'What the service does';

describe('authorization: escalation prevention', () => {
  const ns = useNamespace('authz-esc');
  const rbac = rbacObjects();

  conformance(
    {
      id: 'authorization/escalation/role-needs-its-permissions',
      title:
        'A user who may create Roles cannot create one that grants more than it holds, unless it holds escalate',
      doc: 3,
      section: SECTION,
      place: `${WHAT}; escalation prevention`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const user = uniqueName('esc');
      const me = actingAs(client, { user });
      await rbac.role(client, ns.name, `${user}-mgr`, [
        { verbs: ['create', 'get'], apiGroups: ['rbac.authorization.orch.io'], resources: ['roles'] },
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
      ]);
      await rbac.roleBinding(client, ns.name, `${user}-mgr`, { kind: 'Role', name: `${user}-mgr` }, [
        { kind: 'User', name: user },
      ]);
      const role = (name: string, verbs: string[]) => ({
        apiVersion: 'rbac.authorization.orch.io/v1',
        kind: 'Role',
        metadata: { name },
        rules: [{ verbs, apiGroups: [''], resources: ['configmaps'] }],
      });
      const within = await settle(
        () => me.post(`${RBAC}/namespaces/${ns.name}/roles`, role(`${user}-within`, ['get'])),
        (r) => r.status === 201,
      );
      checkStatus(within, 201, undefined, 'a Role granting only what the user holds');
      checkStatus(
        await me.post(`${RBAC}/namespaces/${ns.name}/roles`, role(`${user}-beyond`, ['get', 'delete'])),
        403,
        'Forbidden',
        'a Role granting delete, which the user lacks',
      );
      await rbac.role(client, ns.name, `${user}-esc`, [
        { verbs: ['escalate'], apiGroups: ['rbac.authorization.orch.io'], resources: ['roles'] },
      ]);
      await rbac.roleBinding(client, ns.name, `${user}-esc`, { kind: 'Role', name: `${user}-esc` }, [
        { kind: 'User', name: user },
      ]);
      const esc = await settle(
        () => me.post(`${RBAC}/namespaces/${ns.name}/roles`, role(`${user}-beyond`, ['get', 'delete'])),
        (r) => r.status === 201,
      );
      checkStatus(esc, 201, undefined, 'the same Role once the user holds escalate');
    },
  );

  conformance(
    {
      id: 'authorization/escalation/binding-needs-role-or-bind',
      title:
        'A user who may create RoleBindings cannot bind a role granting more than it holds, unless it holds bind on that role',
      doc: 3,
      section: SECTION,
      place: `${WHAT}; escalation prevention`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const user = uniqueName('bind');
      const me = actingAs(client, { user });
      await rbac.role(client, ns.name, `${user}-mgr`, [
        { verbs: ['create'], apiGroups: ['rbac.authorization.orch.io'], resources: ['rolebindings'] },
      ]);
      await rbac.roleBinding(client, ns.name, `${user}-mgr`, { kind: 'Role', name: `${user}-mgr` }, [
        { kind: 'User', name: user },
      ]);
      await rbac.role(client, ns.name, `${user}-power`, [
        { verbs: ['*'], apiGroups: [''], resources: ['secrets'] },
      ]);
      const binding = (name: string) => ({
        apiVersion: 'rbac.authorization.orch.io/v1',
        kind: 'RoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: `${user}-power` },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: user }],
      });
      // wait until the manager role is in force (a binding of a role it may bind would pass)
      await settle(
        () =>
          me.post(`${RBAC}/namespaces/${ns.name}/rolebindings`, binding(`${user}-probe`), {
            query: { dryRun: 'All' },
          }),
        // in force: the refusal is no longer "cannot create rolebindings" but the escalation one
        (r) => r.status !== 403 || /attempting to grant|not currently held/.test(r.statusObj?.message ?? ''),
      );
      checkStatus(
        await me.post(`${RBAC}/namespaces/${ns.name}/rolebindings`, binding(`${user}-self`)),
        403,
        'Forbidden',
        'binding a role with permissions the user lacks',
      );
      await rbac.role(client, ns.name, `${user}-binder`, [
        {
          verbs: ['bind'],
          apiGroups: ['rbac.authorization.orch.io'],
          resources: ['roles'],
          resourceNames: [`${user}-power`],
        },
      ]);
      await rbac.roleBinding(client, ns.name, `${user}-binder`, { kind: 'Role', name: `${user}-binder` }, [
        { kind: 'User', name: user },
      ]);
      const ok = await settle(
        () => me.post(`${RBAC}/namespaces/${ns.name}/rolebindings`, binding(`${user}-self`)),
        (r) => r.status === 201,
      );
      checkStatus(ok, 201, undefined, 'the same binding once the user holds bind on the role');
    },
  );
});
