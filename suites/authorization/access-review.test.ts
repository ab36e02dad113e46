// The access review objects of `authorization.orch.io/v1` (SubjectAccessReview,
// SelfSubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview): not described by
// the documents beyond doc2's note that SubjectAccessReview's `spec.group` became
// `spec.groups`; Kubernetes 1.28 answers them from the same authorizer as real requests.
import { describe } from 'vitest';
import { check, checkCause, checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import { actingAs } from '../../harness/src/auth/impersonation.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { rbacObjects, settle, WHAT } from './helpers.ts';

const AZ = '/apis/authorization.orch.io/v1';
const SECTION = 'What the service does';

describe('authorization: access reviews', () => {
  const ns = useNamespace('authz-review');
  const rbac = rbacObjects();

  conformance(
    {
      id: 'authorization/review/subject-access-review-groups',
      title:
        'A SubjectAccessReview decides for the user and groups in spec (spec.groups), as the real request would be decided',
      doc: 2,
      section: 'Retired API versions and replacements',
      place: 'SubjectAccessReview: `spec.group` renamed to `spec.groups` (in authorization.orch.io/v1)',
      specRules: [
        'doc2/retired-api-versions-replacements/subjectaccessreview-family-spec-group-renamed-spec',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const group = uniqueName('sar-group');
      const role = uniqueName('sar-role');
      await rbac.role(client, ns.name, role, [
        { verbs: ['list'], apiGroups: [''], resources: ['configmaps'] },
      ]);
      await rbac.roleBinding(client, ns.name, role, { kind: 'Role', name: role }, [
        { kind: 'Group', name: group },
      ]);
      const sar = (groups: string[]) =>
        client.post(`${AZ}/subjectaccessreviews`, {
          apiVersion: 'authorization.orch.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: 'sar-someone',
            groups,
            resourceAttributes: { namespace: ns.name, verb: 'list', resource: 'configmaps' },
          },
        });
      const yes = await settle(
        () => sar([group]),
        (r) => r.json?.status?.allowed === true,
      );
      checkStatus(yes, 201, undefined, 'SubjectAccessReview');
      checkEqual(yes.json?.status?.allowed, true, 'allowed through the group in spec.groups');
      const no = await sar([]);
      check(no.json?.status?.allowed !== true, 'not allowed without the group', show(no.json?.status));
      // the real request agrees
      const real = await actingAs(client, { user: 'sar-someone', groups: [group] }).get(
        `/api/v1/namespaces/${ns.name}/configmaps`,
      );
      checkStatus(real, 200, undefined, 'the real list as that user and group');
    },
  );

  conformance(
    {
      id: 'authorization/review/self-subject-access-review',
      title:
        'A SelfSubjectAccessReview answers for the caller: allowed for what it may do, not for what it may not',
      doc: 3,
      section: SECTION,
      place: WHAT,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const user = uniqueName('ssar');
      const me = actingAs(client, { user });
      await rbac.role(client, ns.name, user, [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
      ]);
      await rbac.roleBinding(client, ns.name, user, { kind: 'Role', name: user }, [
        { kind: 'User', name: user },
      ]);
      const ask = (verb: string) =>
        me.post(`${AZ}/selfsubjectaccessreviews`, {
          apiVersion: 'authorization.orch.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { namespace: ns.name, verb, resource: 'configmaps' } },
        });
      const yes = await settle(
        () => ask('get'),
        (r) => r.json?.status?.allowed === true,
      );
      checkStatus(yes, 201, undefined, 'SelfSubjectAccessReview (every authenticated user may create one)');
      checkEqual(yes.json?.status?.allowed, true, 'get configmaps: allowed');
      const no = await ask('delete');
      check(no.json?.status?.allowed !== true, 'delete configmaps: not allowed', show(no.json?.status));
    },
  );

  conformance(
    {
      id: 'authorization/review/local-namespace-match',
      title:
        "A LocalSubjectAccessReview whose spec names another namespace than its own (its path's) is refused with 422 Invalid on spec.resourceAttributes.namespace",
      doc: 3,
      section: SECTION,
      place: WHAT,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const r = await client.post(`${AZ}/namespaces/${ns.name}/localsubjectaccessreviews`, {
        apiVersion: 'authorization.orch.io/v1',
        kind: 'LocalSubjectAccessReview',
        metadata: { namespace: ns.name },
        spec: {
          user: 'x',
          resourceAttributes: { namespace: 'elsewhere', verb: 'get', resource: 'configmaps' },
        },
      });
      checkStatus(
        r,
        422,
        'Invalid',
        "spec.resourceAttributes.namespace differs from metadata.namespace (the path's)",
      );
      checkCause(r, {
        field: 'spec.resourceAttributes.namespace',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "elsewhere": must match metadata.namespace',
      });
      const ok = await client.post(`${AZ}/namespaces/${ns.name}/localsubjectaccessreviews`, {
        apiVersion: 'authorization.orch.io/v1',
        kind: 'LocalSubjectAccessReview',
        metadata: { namespace: ns.name },
        spec: { user: 'x', resourceAttributes: { namespace: ns.name, verb: 'get', resource: 'configmaps' } },
      });
      checkStatus(ok, 201, undefined, 'the same review in its own namespace');
      check(ok.json?.status?.allowed !== true, 'nothing granted to x', show(ok.json?.status));
    },
  );

  conformance(
    {
      id: 'authorization/review/self-subject-rules-review',
      title: "A SelfSubjectRulesReview lists the caller's rules in a namespace, the granted ones included",
      doc: 3,
      section: SECTION,
      place: WHAT,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const user = uniqueName('ssrr');
      await rbac.role(client, ns.name, user, [
        { verbs: ['watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['only-this'] },
      ]);
      await rbac.roleBinding(client, ns.name, user, { kind: 'Role', name: user }, [
        { kind: 'User', name: user },
      ]);
      const me = actingAs(client, { user });
      const ask = () =>
        me.post(`${AZ}/selfsubjectrulesreviews`, {
          apiVersion: 'authorization.orch.io/v1',
          kind: 'SelfSubjectRulesReview',
          spec: { namespace: ns.name },
        });
      const has = (r: Awaited<ReturnType<typeof ask>>) =>
        (r.json?.status?.resourceRules ?? []).some(
          (x: { verbs?: string[]; resources?: string[]; resourceNames?: string[] }) =>
            x.verbs?.includes('watch') &&
            x.resources?.includes('configmaps') &&
            x.resourceNames?.includes('only-this'),
        );
      const r = await settle(ask, has);
      checkStatus(r, 201, undefined, 'SelfSubjectRulesReview');
      check(has(r), 'a resource rule watch configmaps [only-this]', show(r.json?.status?.resourceRules));
      checkEqual(r.json?.status?.incomplete, false, 'status.incomplete (RBAC can list every rule)');
    },
  );
});
