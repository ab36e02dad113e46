// doc3 § Authentication, "Impersonation headers": the caller is authenticated first, must
// hold the `impersonate` verb for what it impersonates, then requests are evaluated as the
// target. Impersonate-Group, Impersonate-Extra-<name> and Impersonate-Uid need the user
// header. Permissions are granted on `users`, `groups`, `serviceaccounts` (core group) and
// `uids`, `userextras/<name>` (authentication group), optionally limited by resourceNames.
import { describe } from 'vitest';
import { check, checkEqual, checkStatus } from '../../harness/src/assert.ts';
import { clientWith, serviceAccountToken } from '../../harness/src/auth/credentials.ts';
import { impersonationHeaders } from '../../harness/src/auth/impersonation.ts';
import type { Client } from '../../harness/src/client.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { rbacObjects, settle } from './helpers.ts';

const SECTION = 'Authentication';
const SSR = '/apis/authentication.orch.io/v1beta1/selfsubjectreviews';
const TABLE =
  'Impersonation headers (the caller is authenticated first, must hold the `impersonate` verb for what it impersonates, then requests are evaluated as the target)';

async function review(c: Client, headers: Record<string, string | string[]>) {
  return c.post(
    SSR,
    { apiVersion: 'authentication.orch.io/v1beta1', kind: 'SelfSubjectReview' },
    { headers },
  );
}

describe('authorization: impersonation', () => {
  const ns = useNamespace('authz-imp');
  const rbac = rbacObjects();

  conformance(
    {
      id: 'authorization/impersonation/evaluated-as-target',
      title:
        'With the four headers the request is evaluated as the named user, with the named groups, uid and extra',
      doc: 3,
      section: SECTION,
      place: `${TABLE}: Impersonate-User | user name; Impersonate-Group | repeatable; Impersonate-Extra-<name> | name lower-case, percent-encoded when needed; Impersonate-Uid | optional`,
      specRules: [
        'doc3/authentication/impersonation-headers-caller-authenticated-first-must',
        'doc3/authentication/impersonate-group-repeatable-needs-user-header',
        'doc3/authentication/impersonate-extra-name-name-lower-case',
        'doc3/authentication/impersonate-uid-optional-needs-user-header',
        'doc3/authentication/impersonate-user-user-name',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const user = uniqueName('imp-jane');
      const r = await review(
        client,
        impersonationHeaders({
          user,
          groups: ['imp-g1', 'imp-g2'],
          uid: 'imp-uid-1',
          extra: { 'scopes/read': ['a', 'b'] },
        }),
      );
      checkStatus(r, 201, undefined, 'SelfSubjectReview while impersonating');
      const u = r.json?.status?.userInfo ?? {};
      checkEqual(u.username, user, 'username is the impersonated user');
      checkEqual(u.uid, 'imp-uid-1', 'uid from Impersonate-Uid');
      for (const g of ['imp-g1', 'imp-g2'])
        check((u.groups ?? []).includes(g), `group ${g}`, JSON.stringify(u.groups));
      checkEqual(u.extra?.['scopes/read'], ['a', 'b'], 'extra key percent-decoded, values in order');
    },
  );

  for (const [what, headers, rule] of [
    [
      'Impersonate-Group',
      { 'Impersonate-Group': 'imp-g1' },
      'doc3/authentication/impersonate-group-repeatable-needs-user-header',
    ],
    [
      'Impersonate-Uid',
      { 'Impersonate-Uid': 'imp-uid' },
      'doc3/authentication/impersonate-uid-optional-needs-user-header',
    ],
    [
      'Impersonate-Extra-<name>',
      { 'Impersonate-Extra-scopes': 'x' },
      'doc3/authentication/impersonate-extra-name-name-lower-case',
    ],
  ] as const)
    conformance(
      {
        id: `authorization/impersonation/needs-user-${what
          .toLowerCase()
          .replace(/[^a-z]+/g, '-')
          .replace(/-+$/, '')}`,
        title: `${what} without Impersonate-User is refused (4xx), not served as the caller`,
        doc: 3,
        section: SECTION,
        place: `${TABLE}: ${what} | ... needs the user header`,
        specRules: [rule],
        level: 'MUST',
      },
      async ({ client }) => {
        const r = await review(client, headers);
        check(r.status >= 400 && r.status < 500, 'a 4xx refusal', r.describe());
      },
    );

  conformance(
    {
      id: 'authorization/impersonation/empty-user-header',
      title:
        'An empty Impersonate-User with Impersonate-Group is refused (4xx): an empty user header impersonates no user, so the group has none',
      doc: 3,
      section: SECTION,
      place: `${TABLE}: Impersonate-User | user name; Impersonate-Group | repeatable; needs the user header`,
      specRules: [
        'doc3/authentication/impersonation-headers-caller-authenticated-first-must',
        'doc3/authentication/impersonate-group-repeatable-needs-user-header',
        'doc3/authentication/impersonate-user-user-name',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const r = await review(client, { 'Impersonate-User': '', 'Impersonate-Group': 'system:masters' });
      check(
        r.status >= 400 && r.status < 500,
        'a 4xx refusal, not served as the caller nor a 5xx',
        r.describe(),
      );
      check(
        r.statusObj?.kind === 'Status' && r.statusObj?.code === r.status,
        'the refusal is a Status whose code is the HTTP status',
        r.describe(),
      );
    },
  );

  conformance(
    {
      id: 'authorization/impersonation/extra-key-not-decodable',
      title:
        'An Impersonate-Extra-<name> whose name is not valid percent-encoding (`bad%zz`) is no error: the key is kept as sent',
      doc: 3,
      section: SECTION,
      place: `${TABLE}: Impersonate-Extra-<name> | name lower-case, percent-encoded when needed (Kubernetes 1.28 keeps a name that does not unescape as it is)`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const user = uniqueName('imp-bad-extra');
      const r = await review(client, { 'Impersonate-User': user, 'Impersonate-Extra-Bad%zz': 'v' });
      checkStatus(r, 201, undefined, 'SelfSubjectReview while impersonating with an undecodable extra key');
      checkEqual(r.json?.status?.userInfo?.username, user, 'evaluated as the impersonated user');
      checkEqual(
        r.json?.status?.userInfo?.extra?.['bad%zz'],
        ['v'],
        'the extra key lower-cased and kept as sent',
      );
    },
  );

  conformance(
    {
      id: 'authorization/impersonation/extra-key-any-name',
      title:
        'Impersonate-Extra-__proto__ and Impersonate-Extra-constructor impersonate extras of those keys, like any other name',
      doc: 3,
      section: SECTION,
      place: `${TABLE}: Impersonate-Extra-<name> | name lower-case, percent-encoded when needed; needs the user header`,
      specRules: ['doc3/authentication/impersonate-extra-name-name-lower-case'],
      level: 'MUST',
    },
    async ({ client }) => {
      const user = uniqueName('imp-proto');
      const r = await review(client, {
        'Impersonate-User': user,
        'Impersonate-Extra-__proto__': 'p',
        'Impersonate-Extra-Constructor': 'c',
      });
      checkStatus(
        r,
        201,
        undefined,
        'SelfSubjectReview while impersonating extras __proto__ and constructor',
      );
      const extra = r.json?.status?.userInfo?.extra ?? {};
      checkEqual(Object.getOwnPropertyDescriptor(extra, '__proto__')?.value, ['p'], 'the extra __proto__');
      checkEqual(
        Object.getOwnPropertyDescriptor(extra, 'constructor')?.value,
        ['c'],
        'the extra constructor (lower-cased)',
      );
    },
  );

  conformance(
    {
      id: 'authorization/impersonation/anonymous-with-group',
      title:
        'A caller allowed to impersonate only system:anonymous is refused with 403 when it also asks for the group system:masters',
      doc: 3,
      section: SECTION,
      place: `${TABLE}: ... must hold the \`impersonate\` verb for what it impersonates; Permissions are granted on resources \`users\`, \`groups\` ... with optional \`resourceNames\` restrictions`,
      specRules: ['doc3/authentication/impersonation-headers-caller-authenticated-first-must'],
      level: 'MUST',
    },
    async ({ client }) => {
      const sa = uniqueName('imp-anon');
      const { token } = await serviceAccountToken(client, ns.name, sa);
      const me = clientWith(client.target, { token });
      const role = `${ns.name}-${sa}`;
      await rbac.clusterRole(client, role, [
        {
          verbs: ['impersonate'],
          apiGroups: [''],
          resources: ['users'],
          resourceNames: ['system:anonymous'],
        },
      ]);
      await rbac.clusterRoleBinding(client, role, role, [
        { kind: 'ServiceAccount', name: sa, namespace: ns.name },
      ]);
      // /version is open to system:unauthenticated, the group system:anonymous gets
      const version = (headers: Record<string, string | string[]>) => me.get('/version', { headers });
      const ok = await settle(
        () => version(impersonationHeaders({ user: 'system:anonymous' })),
        (r) => r.status === 200,
      );
      checkStatus(ok, 200, undefined, 'GET /version impersonating system:anonymous (granted)');
      const r = await version(impersonationHeaders({ user: 'system:anonymous', groups: ['system:masters'] }));
      checkStatus(r, 403, 'Forbidden', 'system:anonymous with the group system:masters (no grant on groups)');
      check(
        /impersonate/.test(r.statusObj?.message ?? ''),
        'refused for impersonating, not for the request',
        r.describe(),
      );
    },
  );

  conformance(
    {
      id: 'authorization/impersonation/needs-permission',
      title: 'A caller without the impersonate verb is refused with 403 when it sends Impersonate-User',
      doc: 3,
      section: SECTION,
      place: `${TABLE}: ... must hold the \`impersonate\` verb for what it impersonates`,
      specRules: ['doc3/authentication/impersonation-headers-caller-authenticated-first-must'],
      level: 'MUST',
    },
    async ({ client }) => {
      const { token } = await serviceAccountToken(client, ns.name, uniqueName('imp-plain'));
      const r = await review(
        clientWith(client.target, { token }),
        impersonationHeaders({ user: 'someone-else' }),
      );
      checkStatus(r, 403, 'Forbidden', 'a service account without impersonate rights');
    },
  );

  conformance(
    {
      id: 'authorization/impersonation/resource-names',
      title:
        'impersonate on users with resourceNames allows exactly the named users; groups and uids need their own grants',
      doc: 3,
      section: SECTION,
      place:
        'Permissions are granted on resources `users`, `groups`, `serviceaccounts` (core group) and, in the authentication group, `uids` and `userextras/<name>`, with the verb `impersonate` and optional `resourceNames` restrictions',
      specRules: ['doc3/authentication/permissions-granted-resources-users-groups-serviceaccounts'],
      level: 'MUST',
    },
    async ({ client }) => {
      const sa = uniqueName('imp-sa');
      const { token } = await serviceAccountToken(client, ns.name, sa);
      const me = clientWith(client.target, { token });
      const role = `${ns.name}-${sa}`;
      await rbac.clusterRole(client, role, [
        { verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['imp-allowed'] },
        { verbs: ['impersonate'], apiGroups: [''], resources: ['groups'], resourceNames: ['imp-group-ok'] },
        {
          verbs: ['impersonate'],
          apiGroups: ['authentication.orch.io'],
          resources: ['uids'],
          resourceNames: ['uid-ok'],
        },
      ]);
      await rbac.clusterRoleBinding(client, role, role, [
        { kind: 'ServiceAccount', name: sa, namespace: ns.name },
      ]);
      const ok = await settle(
        () => review(me, impersonationHeaders({ user: 'imp-allowed' })),
        (r) => r.status === 201,
      );
      checkStatus(ok, 201, undefined, 'impersonate the named user');
      checkEqual(ok.json?.status?.userInfo?.username, 'imp-allowed', 'evaluated as the named user');
      checkStatus(
        await review(me, impersonationHeaders({ user: 'imp-other' })),
        403,
        'Forbidden',
        'impersonate a user not named',
      );
      checkStatus(
        await review(me, impersonationHeaders({ user: 'imp-allowed', groups: ['imp-group-ok'] })),
        201,
        undefined,
        'with a granted group',
      );
      checkStatus(
        await review(me, impersonationHeaders({ user: 'imp-allowed', groups: ['imp-group-no'] })),
        403,
        'Forbidden',
        'with a group not granted',
      );
      checkStatus(
        await review(me, impersonationHeaders({ user: 'imp-allowed', uid: 'uid-ok' })),
        201,
        undefined,
        'with a granted uid',
      );
      checkStatus(
        await review(me, impersonationHeaders({ user: 'imp-allowed', uid: 'uid-no' })),
        403,
        'Forbidden',
        'with a uid not granted',
      );
      checkStatus(
        await review(me, impersonationHeaders({ user: 'imp-allowed', extra: { scopes: ['x'] } })),
        403,
        'Forbidden',
        'with an extra not granted (userextras/scopes)',
      );
    },
  );

  conformance(
    {
      id: 'authorization/impersonation/service-account',
      title:
        'Impersonating system:serviceaccount:<ns>:<name> needs impersonate on that serviceaccount in its namespace',
      doc: 3,
      section: SECTION,
      place: 'Permissions are granted on resources `users`, `groups`, `serviceaccounts` (core group) ...',
      specRules: ['doc3/authentication/permissions-granted-resources-users-groups-serviceaccounts'],
      level: 'MUST',
    },
    async ({ client }) => {
      const sa = uniqueName('imp-caller');
      const { token } = await serviceAccountToken(client, ns.name, sa);
      const me = clientWith(client.target, { token });
      const target = `system:serviceaccount:${ns.name}:imp-target`;
      checkStatus(
        await review(me, impersonationHeaders({ user: target })),
        403,
        'Forbidden',
        'before the grant',
      );
      await rbac.role(client, ns.name, sa, [
        {
          verbs: ['impersonate'],
          apiGroups: [''],
          resources: ['serviceaccounts'],
          resourceNames: ['imp-target'],
        },
      ]);
      await rbac.roleBinding(client, ns.name, sa, { kind: 'Role', name: sa }, [
        { kind: 'ServiceAccount', name: sa, namespace: ns.name },
      ]);
      const ok = await settle(
        () => review(me, impersonationHeaders({ user: target })),
        (r) => r.status === 201,
      );
      checkStatus(ok, 201, undefined, 'impersonate the service account once granted');
      const groups: string[] = ok.json?.status?.userInfo?.groups ?? [];
      check(
        groups.includes('system:serviceaccounts') && groups.includes(`system:serviceaccounts:${ns.name}`),
        'the service-account groups of the target',
        JSON.stringify(groups),
      );
    },
  );
});
