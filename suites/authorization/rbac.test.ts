// Role-based authorization as Kubernetes 1.28 does it (doc3 names it but does not describe
// it): a Role grants inside its namespace through a RoleBinding; a ClusterRole bound by a
// RoleBinding grants inside that namespace only, by a ClusterRoleBinding everywhere;
// resourceNames limit a rule to named objects; nonResourceURLs grant paths; nothing is granted
// without a rule. Each case acts as a user of its own through impersonation.
import { describe } from 'vitest';
import { check, checkStatus } from '../../harness/src/assert.ts';
import { actingAs } from '../../harness/src/auth/impersonation.ts';
import { conformance } from '../../harness/src/case.ts';
import { configMap, paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { rbacObjects, settle, WHAT } from './helpers.ts';

const SECTION = 'What the service does';

describe('authorization: role-based access control', () => {
  const ns = useNamespace('authz-rbac');
  const other = useNamespace('authz-rbac-other');
  const rbac = rbacObjects();

  conformance(
    {
      id: 'authorization/rbac/role-in-its-namespace',
      title:
        'A Role bound by a RoleBinding grants its verbs on its resources in its namespace, and nothing else',
      doc: 3,
      section: SECTION,
      place: WHAT,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const user = uniqueName('rbac-user');
      const me = actingAs(client, { user });
      checkStatus(
        await me.get(paths.configmaps(ns.name)),
        403,
        'Forbidden',
        'before any binding: nothing is granted',
      );
      await rbac.role(client, ns.name, `${user}-read`, [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
      ]);
      await rbac.roleBinding(client, ns.name, `${user}-read`, { kind: 'Role', name: `${user}-read` }, [
        { kind: 'User', name: user },
      ]);
      const ok = await settle(
        () => me.get(paths.configmaps(ns.name)),
        (r) => r.status === 200,
      );
      checkStatus(ok, 200, undefined, "list configmaps in the Role's namespace");
      checkStatus(
        await me.get(paths.configmaps(other.name)),
        403,
        'Forbidden',
        'list configmaps in another namespace',
      );
      checkStatus(
        await me.post(paths.configmaps(ns.name), configMap(uniqueName('cm'))),
        403,
        'Forbidden',
        'create (a verb the Role does not grant)',
      );
      checkStatus(
        await me.get(`/api/v1/namespaces/${ns.name}/secrets`),
        403,
        'Forbidden',
        'list secrets (a resource the Role does not name)',
      );
      const forbidden = await me.get(`/api/v1/namespaces/${ns.name}/secrets`);
      check(
        forbidden.statusObj?.message ===
          `secrets is forbidden: User "${user}" cannot list resource "secrets" in API group "" in the namespace "${ns.name}"`,
        `Kubernetes' wording: secrets is forbidden: User "${user}" cannot list resource "secrets" in API group "" in the namespace "${ns.name}"`,
        forbidden.describe(),
      );
    },
  );

  conformance(
    {
      id: 'authorization/rbac/clusterrole-by-rolebinding',
      title:
        'A ClusterRole bound by a RoleBinding grants inside that namespace only; by a ClusterRoleBinding in every namespace',
      doc: 3,
      section: SECTION,
      place: WHAT,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const user = uniqueName('rbac-cr');
      const group = uniqueName('rbac-group');
      const me = actingAs(client, { user, groups: [group] });
      const role = `${user}-cm-reader`;
      await rbac.clusterRole(client, role, [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] }]);
      await rbac.roleBinding(client, ns.name, role, { kind: 'ClusterRole', name: role }, [
        { kind: 'Group', name: group },
      ]);
      checkStatus(
        await settle(
          () => me.get(paths.configmaps(ns.name)),
          (r) => r.status === 200,
        ),
        200,
        undefined,
        'list in the bound namespace (granted to a group of the user)',
      );
      checkStatus(await me.get(paths.configmaps(other.name)), 403, 'Forbidden', 'list in another namespace');
      checkStatus(await me.get(paths.allConfigmaps()), 403, 'Forbidden', 'list across namespaces');
      await rbac.clusterRoleBinding(client, role, role, [{ kind: 'User', name: user }]);
      checkStatus(
        await settle(
          () => me.get(paths.configmaps(other.name)),
          (r) => r.status === 200,
        ),
        200,
        undefined,
        'list in another namespace once bound cluster-wide',
      );
      checkStatus(
        await me.get(paths.allConfigmaps()),
        200,
        undefined,
        'list across namespaces once bound cluster-wide',
      );
    },
  );

  conformance(
    {
      id: 'authorization/rbac/resource-names',
      title: 'A rule with resourceNames grants get on the named objects only',
      doc: 3,
      section: SECTION,
      place: WHAT,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const user = uniqueName('rbac-names');
      const me = actingAs(client, { user });
      const a = uniqueName('cm-a');
      const b = uniqueName('cm-b');
      for (const n of [a, b])
        checkStatus(
          await client.post(paths.configmaps(ns.name), configMap(n)),
          201,
          undefined,
          `create ${n}`,
        );
      await rbac.role(client, ns.name, user, [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [a] },
      ]);
      await rbac.roleBinding(client, ns.name, user, { kind: 'Role', name: user }, [
        { kind: 'User', name: user },
      ]);
      checkStatus(
        await settle(
          () => me.get(paths.configmap(ns.name, a)),
          (r) => r.status === 200,
        ),
        200,
        undefined,
        `get the named ${a}`,
      );
      checkStatus(await me.get(paths.configmap(ns.name, b)), 403, 'Forbidden', `get ${b}, not named`);
      checkStatus(await me.get(paths.configmaps(ns.name)), 403, 'Forbidden', 'list (a list names no object)');
    },
  );

  conformance(
    {
      id: 'authorization/rbac/subresource',
      title:
        'A rule for a resource does not grant its subresources; "resource/subresource" grants the subresource',
      doc: 3,
      section: SECTION,
      place: WHAT,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const user = uniqueName('rbac-sub');
      await rbac.role(client, ns.name, user, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
      await rbac.roleBinding(client, ns.name, user, { kind: 'Role', name: user }, [
        { kind: 'User', name: user },
      ]);
      const sar = (sub: string) =>
        client.post('/apis/authorization.orch.io/v1/subjectaccessreviews', {
          apiVersion: 'authorization.orch.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user,
            resourceAttributes: { namespace: ns.name, verb: 'get', resource: 'pods', subresource: sub },
          },
        });
      const plain = await settle(
        () => sar(''),
        (r) => r.json?.status?.allowed === true,
      );
      check(plain.json?.status?.allowed === true, 'get pods allowed', plain.describe());
      const status = await sar('status');
      check(
        status.json?.status?.allowed !== true,
        'get pods/status not allowed by a rule for pods',
        status.text.slice(0, 300),
      );
    },
  );

  conformance(
    {
      id: 'authorization/rbac/non-resource-urls',
      title: 'A ClusterRole rule with nonResourceURLs grants those paths (a trailing * grants the subtree)',
      doc: 3,
      section: SECTION,
      place: WHAT,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const user = uniqueName('rbac-urls');
      await rbac.clusterRole(client, user, [
        { verbs: ['get'], nonResourceURLs: ['/conformance/exact', '/conformance/tree/*'] },
      ]);
      await rbac.clusterRoleBinding(client, user, user, [{ kind: 'User', name: user }]);
      const sar = (path: string, verb = 'get') =>
        client.post('/apis/authorization.orch.io/v1/subjectaccessreviews', {
          apiVersion: 'authorization.orch.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user, nonResourceAttributes: { path, verb } },
        });
      await settle(
        () => sar('/conformance/exact'),
        (r) => r.json?.status?.allowed === true,
      );
      for (const [path, verb, want] of [
        ['/conformance/exact', 'get', true],
        ['/conformance/exact/below', 'get', false],
        ['/conformance/tree/a/b', 'get', true],
        ['/conformance/tree', 'get', false],
        ['/conformance/exact', 'post', false],
      ] as const) {
        const r = await sar(path, verb);
        checkStatus(r, 201, undefined, `SubjectAccessReview for ${verb} ${path}`);
        check(
          (r.json?.status?.allowed === true) === want,
          `${verb} ${path}: allowed=${want}`,
          JSON.stringify(r.json?.status),
        );
      }
    },
  );

  conformance(
    {
      id: 'authorization/rbac/default-roles',
      title:
        'The default cluster roles view, edit and admin exist and are aggregated: view grants get on configmaps, not on secrets',
      doc: 3,
      section: SECTION,
      place: `${WHAT}; the default roles of a 1.28 server`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      for (const name of [
        'cluster-admin',
        'admin',
        'edit',
        'view',
        'system:basic-user',
        'system:discovery',
        'system:public-info-viewer',
      ])
        checkStatus(
          await client.get(`/apis/rbac.authorization.orch.io/v1/clusterroles/${name}`),
          200,
          undefined,
          `ClusterRole ${name}`,
        );
      const user = uniqueName('viewer');
      const me = actingAs(client, { user });
      await rbac.roleBinding(client, ns.name, `${user}-view`, { kind: 'ClusterRole', name: 'view' }, [
        { kind: 'User', name: user },
      ]);
      checkStatus(
        await settle(
          () => me.get(paths.configmaps(ns.name)),
          (r) => r.status === 200,
        ),
        200,
        undefined,
        'view: list configmaps',
      );
      checkStatus(
        await me.get(`/api/v1/namespaces/${ns.name}/secrets`),
        403,
        'Forbidden',
        'view: list secrets',
      );
      checkStatus(
        await me.post(paths.configmaps(ns.name), configMap(uniqueName('cm'))),
        403,
        'Forbidden',
        'view: create a configmap',
      );
    },
  );
});
