// Property-based: for random RBAC rule sets and random requests, the SubjectAccessReview and
// the real request agree with a small model of role-based authorization (Kubernetes 1.28): a
// request is allowed exactly when some rule of a role bound to the user matches its verb,
// API group, resource and, where the rule names objects, the object's name. fast-check
// prints seed and path of a failure.
import fc from 'fast-check';
import { describe } from 'vitest';
import { check } from '../../harness/src/assert.ts';
import { actingAs } from '../../harness/src/auth/impersonation.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { propertySettings } from '../../harness/src/session.ts';
import { type Rule, rbacObjects, settle, WHAT } from './helpers.ts';

type Verb = 'get' | 'list' | 'create' | 'delete';
type Resource = 'configmaps' | 'secrets';
interface Req {
  verb: Verb;
  resource: Resource;
  /** The object of get and delete. */
  name?: 'a' | 'b';
}

const ruleArb: fc.Arbitrary<Rule> = fc
  .record({
    verbs: fc.oneof(fc.constant(['*']), fc.subarray(['get', 'list', 'create', 'delete'], { minLength: 1 })),
    apiGroups: fc.constantFrom('', '*', 'apps').map((g) => [g]),
    resources: fc.oneof(fc.constant(['*']), fc.subarray(['configmaps', 'secrets'], { minLength: 1 })),
    resourceNames: fc.oneof(fc.constant(undefined), fc.subarray(['a', 'b'], { minLength: 1 })),
  })
  .map(
    (r): Rule => ({
      verbs: [...r.verbs],
      apiGroups: r.apiGroups,
      resources: [...r.resources],
      ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
    }),
  );

const reqArb: fc.Arbitrary<Req> = fc
  .record({
    verb: fc.constantFrom<Verb>('get', 'list', 'create', 'delete'),
    resource: fc.constantFrom<Resource>('configmaps', 'secrets'),
    name: fc.constantFrom<'a' | 'b'>('a', 'b'),
  })
  .map((r) => (r.verb === 'get' || r.verb === 'delete' ? r : { verb: r.verb, resource: r.resource }));

/** The model: some rule matches verb, group "", resource and (when it names objects) the name. */
function allowedByModel(rules: Rule[], q: Req): boolean {
  return rules.some(
    (r) =>
      (r.verbs.includes('*') || r.verbs.includes(q.verb)) &&
      (r.apiGroups ?? []).some((g) => g === '*' || g === '') &&
      (r.resources ?? []).some((x) => x === '*' || x === q.resource) &&
      (!r.resourceNames?.length || (q.name !== undefined && r.resourceNames.includes(q.name))),
  );
}

const MARKER: Rule = {
  verbs: ['get'],
  apiGroups: [''],
  resources: ['pods'],
  resourceNames: ['rbac-law-marker'],
};

describe('authorization: the RBAC law (property-based)', () => {
  const ns = useNamespace('authz-law');
  const rbac = rbacObjects();

  conformance(
    {
      id: 'authorization/law/rbac-model',
      title:
        'Law: for random rule sets and requests, SubjectAccessReview and the real request are allowed exactly when the RBAC model allows',
      doc: 3,
      section: 'What the service does',
      place: WHAT,
      level: 'BEYOND',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(ruleArb, { minLength: 1, maxLength: 3 }),
          fc.array(reqArb, { minLength: 3, maxLength: 6 }),
          async (rules, reqs) => {
            const user = uniqueName('law');
            await rbac.role(client, ns.name, user, [...rules, MARKER]);
            await rbac.roleBinding(client, ns.name, user, { kind: 'Role', name: user }, [
              { kind: 'User', name: user },
            ]);
            const sar = (q: Req | { verb: string; resource: string; name?: string }) =>
              client.post('/apis/authorization.orch.io/v1/subjectaccessreviews', {
                apiVersion: 'authorization.orch.io/v1',
                kind: 'SubjectAccessReview',
                spec: {
                  user,
                  resourceAttributes: {
                    namespace: ns.name,
                    verb: q.verb,
                    resource: q.resource,
                    ...(q.name ? { name: q.name } : {}),
                  },
                },
              });
            const marker = await settle(
              () => sar({ verb: 'get', resource: 'pods', name: 'rbac-law-marker' }),
              (r) => r.json?.status?.allowed === true,
            );
            check(
              marker.json?.status?.allowed === true,
              'the binding takes effect (marker rule allowed)',
              marker.describe(),
            );
            const me = actingAs(client, { user });
            for (const q of reqs) {
              const want = allowedByModel(rules, q);
              const at = `rules ${JSON.stringify(rules)}; ${q.verb} ${q.resource}${q.name ? `/${q.name}` : ''}`;
              const review = await sar(q);
              check(
                (review.json?.status?.allowed === true) === want,
                `SubjectAccessReview allowed=${want} (${at})`,
                JSON.stringify(review.json?.status),
              );
              const base = `/api/v1/namespaces/${ns.name}/${q.resource}`;
              const real =
                q.verb === 'get'
                  ? await me.get(`${base}/${q.name}`)
                  : q.verb === 'list'
                    ? await me.get(base)
                    : q.verb === 'delete'
                      ? await me.delete(`${base}/${q.name}`)
                      : await me.post(base, {
                          apiVersion: 'v1',
                          kind: q.resource === 'configmaps' ? 'ConfigMap' : 'Secret',
                          metadata: { generateName: 'law-' },
                        });
              check(
                (real.status !== 403) === want,
                `the real request ${want ? 'is not refused' : 'is refused with 403'} (${at})`,
                real.describe(),
              );
            }
          },
        ),
        propertySettings(12),
      );
    },
    { timeout: 120_000 },
  );
});
