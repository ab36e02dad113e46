// Role-based access control on a real server: the four kinds and their 1.28 validation, the
// default policy a 1.28 server creates (shared/kubernetes-1.28/rbac-defaults.json in the orch
// words), aggregation, the RBAC authorizer's decisions and reasons, escalation prevention,
// and the authorization modes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaticTokenAuthenticator } from '../src/authentication/token-file.ts';
import type { UserInfo } from '../src/registry/types.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { readFact } from './k8s-facts.ts';

const G = 'rbac.authorization.orch.io';
const RBAC = `/apis/${G}/v1`;

/** The spec's word mapping of Kubernetes names (k8s.io and kubernetes.io become orch.io; kube-system, kube-public). */
function orchWords(v: unknown): unknown {
  if (typeof v === 'string')
    return v
      .replaceAll('kube-system', 'orch-system')
      .replaceAll('kube-public', 'orch-public')
      .replaceAll('k8s.io', 'orch.io')
      .replaceAll('kubernetes.io', 'orch.io');
  if (Array.isArray(v)) return v.map(orchWords);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [orchWords(k), orchWords(x)]));
  return v;
}

function withUsers(ts: TestServer, users: Record<string, UserInfo>) {
  ts.server.authentication.add(new StaticTokenAuthenticator(new Map(Object.entries(users))));
  return (
    token: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => ts.req(method, path, body, { authorization: `Bearer ${token}`, ...headers });
}

const role = (name: string, rules: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: `${G}/v1`,
  kind: 'Role',
  metadata: { name },
  rules,
  ...extra,
});
const clusterRole = (name: string, rules: unknown[] | null, extra: Record<string, unknown> = {}) => ({
  apiVersion: `${G}/v1`,
  kind: 'ClusterRole',
  metadata: { name, ...((extra.metadata as object) ?? {}) },
  rules,
  ...(extra.aggregationRule ? { aggregationRule: extra.aggregationRule } : {}),
});
const binding = (
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  roleRef: unknown,
  subjects: unknown[],
) => ({
  apiVersion: `${G}/v1`,
  kind,
  metadata: { name },
  roleRef,
  subjects,
});
const user = (name: string) => ({ kind: 'User', apiGroup: G, name });
const group = (name: string) => ({ kind: 'Group', apiGroup: G, name });

describe('the default policy of a 1.28 server', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startServer();
  });
  afterAll(() => ts?.close());

  it('every default cluster role, binding, role and role binding exists as 1.28 creates it', async () => {
    const facts = orchWords(readFact('rbac-defaults.json')) as Record<string, any[]>;
    for (const [plural, path] of [
      ['clusterroles', `${RBAC}/clusterroles`],
      ['clusterrolebindings', `${RBAC}/clusterrolebindings`],
      ['roles', `${RBAC}/roles`],
      ['rolebindings', `${RBAC}/rolebindings`],
    ] as const) {
      const list = (await ts.req('GET', path)).json.items as any[];
      expect(list.length, plural).toBe(facts[plural]!.length);
      for (const f of facts[plural]!) {
        const got = list.filter((o) => o.metadata.name === f.name);
        expect(got.length, `${plural} ${f.name}`).toBeGreaterThan(0);
        const o = got[0];
        expect(o.metadata.labels).toEqual(f.labels);
        expect(o.metadata.annotations).toEqual(f.annotations);
        if (plural.endsWith('bindings')) {
          expect(o.roleRef).toEqual(f.roleRef);
          expect(
            got.some((x) => JSON.stringify(x.subjects) === JSON.stringify(f.subjects)),
            f.name,
          ).toBe(true);
        } else if (f.aggregationRule) expect(o.aggregationRule).toEqual(f.aggregationRule);
        else
          expect(
            got.some((x) => JSON.stringify(x.rules) === JSON.stringify(f.rules)),
            f.name,
          ).toBe(true);
      }
    }
    // the namespaced ones live in the system namespaces
    const nss = new Set(
      ((await ts.req('GET', `${RBAC}/roles`)).json.items as any[]).map((o) => o.metadata.namespace),
    );
    expect([...nss].sort()).toEqual(['orch-public', 'orch-system']);
  });

  it('aggregated defaults hold the rules of the roles they select (view in edit in admin)', async () => {
    const get = async (n: string) => (await ts.req('GET', `${RBAC}/clusterroles/${n}`)).json;
    const view = await get('view');
    const edit = await get('edit');
    const admin = await get('admin');
    const toView = await get('system:aggregate-to-view');
    expect(toView.rules.length).toBeGreaterThan(0);
    expect(view.rules).toEqual(toView.rules);
    for (const r of view.rules) expect(edit.rules).toContainEqual(r);
    for (const r of edit.rules) expect(admin.rules).toContainEqual(r);
  });

  it('anonymous users may read the version and health; authenticated users discovery too', async () => {
    const as = withUsers(ts, { 'plain-token': { username: 'plain', groups: [] } });
    for (const p of ['/version', '/healthz', '/livez', '/readyz'])
      expect((await ts.req('GET', p, undefined, { authorization: '' })).status, p).toBe(200);
    for (const p of ['/api', '/apis', '/openapi/v2']) {
      expect((await ts.req('GET', p, undefined, { authorization: '' })).status, p).toBe(403);
      expect((await as('plain-token', 'GET', p)).status, p).toBe(200);
    }
    expect((await as('plain-token', 'GET', '/api/v1/namespaces')).status).toBe(403);
  });
});

describe('a durable server restarts without duplicating the defaults', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'orch-rbac-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps one of each, and keeps a change made to a default', async () => {
    const a = await startServer({ inMemory: false, dataDir: dir, fsync: false });
    const count = (await a.req('GET', `${RBAC}/clusterroles`)).json.items.length;
    const cur = (await a.req('GET', `${RBAC}/clusterroles/system:basic-user`)).json;
    cur.metadata.labels.extra = 'kept';
    expect((await a.req('PUT', `${RBAC}/clusterroles/system:basic-user`, cur)).status).toBe(200);
    const grant = await a.req(
      'POST',
      `${RBAC}/clusterrolebindings`,
      binding('ClusterRoleBinding', 'kept-view', { apiGroup: G, kind: 'ClusterRole', name: 'view' }, [
        user('keeper'),
      ]),
    );
    expect(grant.status, grant.text).toBe(201);
    await a.close();
    const b = await startServer({ inMemory: false, dataDir: dir, fsync: false });
    try {
      expect((await b.req('GET', `${RBAC}/clusterroles`)).json.items.length).toBe(count);
      const again = (await b.req('GET', `${RBAC}/clusterroles/system:basic-user`)).json;
      expect(again.metadata.labels.extra).toBe('kept');
      // the policy read back at start decides at once
      const as = withUsers(b, { keeper: { username: 'keeper', groups: [] } });
      expect((await as('keeper', 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
      expect((await as('keeper', 'GET', '/api/v1/namespaces/default/secrets')).status).toBe(403);
    } finally {
      await b.close();
    }
  });
});

describe('the kinds: 1.28 validation and defaults', () => {
  let ts: TestServer;
  let ns: string;
  beforeAll(async () => {
    ts = await startServer();
    ns = uniqueName('rbac');
    await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  });
  afterAll(() => ts?.close());

  const causes = (r: { json: any }) =>
    (r.json.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);

  it('rules need verbs, groups and resources; a Role may not name non-resource URLs', async () => {
    const r = await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/roles`,
      role('bad', [{ apiGroups: [''] }, { verbs: ['get'], nonResourceURLs: ['/x'] }]),
    );
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(causes(r)).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].resources: Required value: resource rules must supply at least one resource',
      'rules[1].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs',
    ]);
    const both = await ts.req(
      'POST',
      `${RBAC}/clusterroles`,
      clusterRole(uniqueName('cr'), [{ verbs: ['get'], nonResourceURLs: ['/x'], resources: ['pods'] }]),
    );
    expect(causes(both)).toEqual([
      'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs',
    ]);
    const agg = await ts.req(
      'POST',
      `${RBAC}/clusterroles`,
      clusterRole(uniqueName('cr'), null, { aggregationRule: {} }),
    );
    expect(causes(agg)).toEqual([
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
  });

  it('bindings: roleRef required and of a known kind, subjects of known kinds and groups; apiGroup defaulted', async () => {
    const r = await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'bad', { kind: 'Pod', name: '' }, [
        { kind: 'Robot', name: 'r2' },
        { kind: 'User', apiGroup: 'other', name: 'u' },
        { kind: 'ServiceAccount', apiGroup: G, name: 'sa' },
      ]),
    );
    expect(r.status).toBe(422);
    expect(causes(r)).toEqual([
      'roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      `subjects[1].apiGroup: Unsupported value: "other": supported values: "${G}"`,
      `subjects[2].apiGroup: Unsupported value: "${G}": supported values: ""`,
    ]);
    const crb = await ts.req(
      'POST',
      `${RBAC}/clusterrolebindings`,
      binding('ClusterRoleBinding', uniqueName('crb'), { apiGroup: G, kind: 'Role', name: 'x' }, [
        { kind: 'ServiceAccount', name: 'sa' },
      ]),
    );
    expect(causes(crb)).toEqual([
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'subjects[0].namespace: Required value',
    ]);
    const ok = await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'defaulted', { kind: 'ClusterRole', name: 'view' }, [
        { kind: 'User', name: 'u' },
        { kind: 'ServiceAccount', name: 'sa' },
      ]),
    );
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.roleRef).toEqual({ apiGroup: G, kind: 'ClusterRole', name: 'view' });
    expect(ok.json.subjects).toEqual([
      { kind: 'User', apiGroup: G, name: 'u' },
      { kind: 'ServiceAccount', name: 'sa' },
    ]);
  });

  it('roleRef is immutable', async () => {
    const path = `${RBAC}/namespaces/${ns}/rolebindings/defaulted`;
    const cur = (await ts.req('GET', path)).json;
    cur.roleRef.name = 'edit';
    const r = await ts.req('PUT', path, cur);
    expect(r.status).toBe(422);
    expect(causes(r)).toEqual([
      `roleRef: Invalid value: rbac.RoleRef{APIGroup:"${G}", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef`,
    ]);
  });

  it('kubectl columns: bindings print their role and, wide, their subjects', async () => {
    const r = await ts.req('GET', `${RBAC}/namespaces/${ns}/rolebindings/defaulted`, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.orch.io',
    });
    expect(r.json.columnDefinitions.map((c: any) => c.name)).toEqual([
      'Name',
      'Role',
      'Age',
      'Users',
      'Groups',
      'ServiceAccounts',
    ]);
    const cells = r.json.rows[0].cells;
    expect([cells[0], cells[1], cells[3], cells[4], cells[5]]).toEqual([
      'defaulted',
      'ClusterRole/view',
      'u',
      '',
      '/sa',
    ]);
  });
});

describe('aggregation follows the selected cluster roles live', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startServer();
  });
  afterAll(() => ts?.close());

  it('rules come when a labelled role appears and go when its label goes', async () => {
    const label = `example.com/${uniqueName('agg')}`;
    const agg = uniqueName('agg');
    const c = await ts.req(
      'POST',
      `${RBAC}/clusterroles`,
      clusterRole(agg, null, {
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [label]: 'true' } }] },
      }),
    );
    expect(c.status, c.text).toBe(201);
    const rulesA = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
    const rulesB = [{ verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'] }, rulesA[0]];
    await ts.req(
      'POST',
      `${RBAC}/clusterroles`,
      clusterRole('b-part', rulesB, { metadata: { labels: { [label]: 'true' } } }),
    );
    await ts.req(
      'POST',
      `${RBAC}/clusterroles`,
      clusterRole('a-part', rulesA, { metadata: { labels: { [label]: 'true' } } }),
    );
    const rulesOf = async () => {
      await ts.server.authz.idle();
      return (await ts.req('GET', `${RBAC}/clusterroles/${agg}`)).json.rules;
    };
    // in name order, each rule once
    expect(await rulesOf()).toEqual([rulesA[0], rulesB[0]]);
    const a = (await ts.req('GET', `${RBAC}/clusterroles/a-part`)).json;
    a.metadata.labels = {};
    await ts.req('PUT', `${RBAC}/clusterroles/a-part`, a);
    expect(await rulesOf()).toEqual([rulesB[0], rulesB[1]]);
    await ts.req('DELETE', `${RBAC}/clusterroles/b-part`);
    expect(await rulesOf()).toEqual([]);
  });
});

describe('the RBAC authorizer', () => {
  let ts: TestServer;
  let as: ReturnType<typeof withUsers>;
  let ns: string;
  let other: string;
  const reason = (path: string) => {
    const ev = [...ts.server.audit!.events].reverse().find((e: any) => e.requestURI === path) as any;
    return ev?.annotations?.['authorization.orch.io/reason'];
  };
  beforeAll(async () => {
    ts = await startServer({ auditInMemory: 1000 });
    as = withUsers(ts, {
      alice: { username: 'alice', groups: ['devs'] },
      bob: { username: 'bob', groups: [] },
    });
    ns = uniqueName('authz');
    other = uniqueName('authz');
    for (const n of [ns, other]) await ts.req('POST', '/api/v1/namespaces', { metadata: { name: n } });
  });
  afterAll(() => ts?.close());

  it('nothing bound: 403 in Kubernetes words', async () => {
    const r = await as('alice', 'GET', `/api/v1/namespaces/${ns}/configmaps`);
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      `configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
  });

  it('a Role bound in its namespace allows there only; the reason names the binding', async () => {
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/roles`,
      role('cm-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]),
    );
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'alice-cm', { apiGroup: G, kind: 'Role', name: 'cm-reader' }, [user('alice')]),
    );
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    expect((await as('alice', 'GET', path)).status).toBe(200);
    expect(reason(path)).toBe(
      `RBAC: allowed by RoleBinding "alice-cm/${ns}" of Role "cm-reader" to User "alice"`,
    );
    expect((await as('alice', 'GET', `/api/v1/namespaces/${other}/configmaps`)).status).toBe(403);
    expect((await as('alice', 'GET', '/api/v1/configmaps')).status).toBe(403);
    expect((await as('alice', 'POST', path, { metadata: { name: 'x' } })).status).toBe(403);
    expect((await as('bob', 'GET', path)).status).toBe(403);
  });

  it('a ClusterRole through a RoleBinding applies in the binding namespace only; through a ClusterRoleBinding everywhere', async () => {
    await ts.req(
      'POST',
      `${RBAC}/clusterroles`,
      clusterRole('secret-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }]),
    );
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'bob-secrets', { apiGroup: G, kind: 'ClusterRole', name: 'secret-reader' }, [
        user('bob'),
      ]),
    );
    expect((await as('bob', 'GET', `/api/v1/namespaces/${ns}/secrets`)).status).toBe(200);
    expect((await as('bob', 'GET', `/api/v1/namespaces/${other}/secrets`)).status).toBe(403);
    await ts.req(
      'POST',
      `${RBAC}/clusterrolebindings`,
      binding(
        'ClusterRoleBinding',
        'devs-secrets',
        { apiGroup: G, kind: 'ClusterRole', name: 'secret-reader' },
        [group('devs')],
      ),
    );
    const all = '/api/v1/secrets';
    expect((await as('alice', 'GET', all)).status).toBe(200);
    expect(reason(all)).toBe(
      'RBAC: allowed by ClusterRoleBinding "devs-secrets" of ClusterRole "secret-reader" to Group "devs"',
    );
    expect((await as('alice', 'GET', `/api/v1/namespaces/${other}/secrets`)).status).toBe(200);
    // a deleted binding no longer allows, at once
    await ts.req('DELETE', `${RBAC}/clusterrolebindings/devs-secrets`);
    expect((await as('alice', 'GET', all)).status).toBe(403);
  });

  it('resource names, subresources, `*/subresource`, `*` and non-resource URLs with a `*` suffix', async () => {
    await ts.req(
      'POST',
      `${RBAC}/clusterroles`,
      clusterRole('fine', [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['named'] },
        { verbs: ['get'], apiGroups: [''], resources: ['pods/status'] },
        { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] },
        { verbs: ['*'], apiGroups: ['coordination.orch.io'], resources: ['*'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz/*'] },
      ]),
    );
    await ts.req(
      'POST',
      `${RBAC}/clusterrolebindings`,
      binding('ClusterRoleBinding', 'carol-fine', { apiGroup: G, kind: 'ClusterRole', name: 'fine' }, [
        user('carol'),
      ]),
    );
    ts.server.authentication.add(
      new StaticTokenAuthenticator(new Map([['carol', { username: 'carol', groups: [] }]])),
    );
    await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'named' } });
    await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'unnamed' } });
    expect((await as('carol', 'GET', `/api/v1/namespaces/${ns}/configmaps/named`)).status).toBe(200);
    expect((await as('carol', 'GET', `/api/v1/namespaces/${ns}/configmaps/unnamed`)).status).toBe(403);
    expect((await as('carol', 'GET', `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(403);
    // pods/status but not pods (404: allowed, and the pod does not exist)
    expect((await as('carol', 'GET', `/api/v1/namespaces/${ns}/pods/p/status`)).status).toBe(404);
    expect((await as('carol', 'GET', `/api/v1/namespaces/${ns}/pods/p`)).status).toBe(403);
    expect((await as('carol', 'GET', `/apis/apps/v1/namespaces/${ns}/deployments/d/scale`)).status).toBe(404);
    expect((await as('carol', 'GET', `/apis/apps/v1/namespaces/${ns}/deployments/d`)).status).toBe(403);
    expect((await as('carol', 'GET', `/apis/coordination.orch.io/v1/namespaces/${ns}/leases`)).status).toBe(
      200,
    );
    expect((await as('carol', 'GET', '/healthz/ping')).status).toBe(200);
    expect((await as('carol', 'GET', '/healthz')).status).toBe(200); // system:public-info-viewer
    expect((await as('carol', 'GET', '/metrics')).status).toBe(403);
  });

  it('service account subjects match system:serviceaccount:<ns>:<name>, in the binding namespace by default', async () => {
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'sa-cm', { apiGroup: G, kind: 'Role', name: 'cm-reader' }, [
        { kind: 'ServiceAccount', name: 'robot' },
      ]),
    );
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const r = await ts.req('GET', path, undefined, {
      'impersonate-user': `system:serviceaccount:${ns}:robot`,
    });
    expect(r.status, r.text).toBe(200);
    expect(reason(path)).toBe(
      `RBAC: allowed by RoleBinding "sa-cm/${ns}" of Role "cm-reader" to ServiceAccount "robot/${ns}"`,
    );
    const elsewhere = await ts.req('GET', path, undefined, {
      'impersonate-user': `system:serviceaccount:${other}:robot`,
    });
    expect(elsewhere.status).toBe(403);
  });

  it('a binding to a role that does not exist: the 403 says so', async () => {
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${other}/rolebindings`,
      binding('RoleBinding', 'dangling', { apiGroup: G, kind: 'ClusterRole', name: 'nope' }, [user('dave')]),
    );
    ts.server.authentication.add(
      new StaticTokenAuthenticator(new Map([['dave', { username: 'dave', groups: [] }]])),
    );
    const r = await as('dave', 'GET', `/api/v1/namespaces/${other}/pods`);
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      `pods is forbidden: User "dave" cannot list resource "pods" in API group "" in the namespace "${other}": RBAC: clusterrole.${G} "nope" not found`,
    );
  });
});

describe('escalation prevention', () => {
  let ts: TestServer;
  let as: ReturnType<typeof withUsers>;
  let ns: string;
  beforeAll(async () => {
    ts = await startServer();
    as = withUsers(ts, { erin: { username: 'erin', groups: ['team'] } });
    ns = uniqueName('esc');
    await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    // erin manages roles and bindings in ns and may read configmaps there, nothing else
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/roles`,
      role('role-admin', [
        { verbs: ['create', 'update', 'get'], apiGroups: [G], resources: ['roles', 'rolebindings'] },
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
      ]),
    );
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'erin', { apiGroup: G, kind: 'Role', name: 'role-admin' }, [user('erin')]),
    );
  });
  afterAll(() => ts?.close());

  it('a role granting only what the creator holds is created; more is refused with the missing rules', async () => {
    const ok = await as(
      'erin',
      'POST',
      `${RBAC}/namespaces/${ns}/roles`,
      role('cm-get', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
    );
    expect(ok.status, ok.text).toBe(201);
    const no = await as(
      'erin',
      'POST',
      `${RBAC}/namespaces/${ns}/roles`,
      role('more', [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['configmaps', 'secrets'] }]),
    );
    expect(no.status).toBe(403);
    expect(no.json.reason).toBe('Forbidden');
    expect(no.json.message).toBe(
      `roles.${G} "more" is forbidden: user "erin" (groups=["team" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n` +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
    );
  });

  it('`escalate` on roles lifts the check', async () => {
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/roles`,
      role('escalator', [{ verbs: ['escalate'], apiGroups: [G], resources: ['roles'] }]),
    );
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'erin-escalate', { apiGroup: G, kind: 'Role', name: 'escalator' }, [
        user('erin'),
      ]),
    );
    const r = await as(
      'erin',
      'POST',
      `${RBAC}/namespaces/${ns}/roles`,
      role('secrets-all', [{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }]),
    );
    expect(r.status, r.text).toBe(201);
  });

  it('a binding needs the role permissions or `bind`; a missing role is 404', async () => {
    const no = await as(
      'erin',
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'give-secrets', { apiGroup: G, kind: 'Role', name: 'secrets-all' }, [
        user('frank'),
      ]),
    );
    expect(no.status).toBe(403);
    expect(no.json.message).toContain(
      `rolebindings.${G} "give-secrets" is forbidden: user "erin" (groups=["team" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:`,
    );
    const held = await as(
      'erin',
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'give-cm', { apiGroup: G, kind: 'Role', name: 'cm-get' }, [user('frank')]),
    );
    expect(held.status, held.text).toBe(201);
    const missing = await as(
      'erin',
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'give-none', { apiGroup: G, kind: 'Role', name: 'absent' }, [user('frank')]),
    );
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe(`role.${G} "absent" not found`);
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/roles`,
      role('binder', [
        { verbs: ['bind'], apiGroups: [G], resources: ['roles'], resourceNames: ['secrets-all'] },
      ]),
    );
    await ts.req(
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'erin-bind', { apiGroup: G, kind: 'Role', name: 'binder' }, [user('erin')]),
    );
    const bound = await as(
      'erin',
      'POST',
      `${RBAC}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', 'give-secrets', { apiGroup: G, kind: 'Role', name: 'secrets-all' }, [
        user('frank'),
      ]),
    );
    expect(bound.status, bound.text).toBe(201);
  });

  it('an aggregationRule needs full authority', async () => {
    // (`escalate` would lift this check too, as in Kubernetes)
    await ts.req(
      'POST',
      `${RBAC}/clusterroles`,
      clusterRole('cr-creator', [{ verbs: ['create'], apiGroups: [G], resources: ['clusterroles'] }]),
    );
    await ts.req(
      'POST',
      `${RBAC}/clusterrolebindings`,
      binding('ClusterRoleBinding', 'erin-cr', { apiGroup: G, kind: 'ClusterRole', name: 'cr-creator' }, [
        user('erin'),
      ]),
    );
    const r = await as(
      'erin',
      'POST',
      `${RBAC}/clusterroles`,
      clusterRole('sneaky', null, {
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] },
      }),
    );
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      `clusterroles.${G} "sneaky" is forbidden: must have cluster-admin privileges to use the aggregationRule`,
    );
  });
});

describe('authorization modes and anonymous access', () => {
  it('AlwaysDeny: only system:masters passes', async () => {
    const ts = await startServer({ authorizationModes: ['AlwaysDeny'] });
    try {
      const as = withUsers(ts, { gina: { username: 'gina', groups: [] } });
      expect((await ts.req('GET', '/api/v1/namespaces')).status).toBe(200);
      expect((await as('gina', 'GET', '/version')).status).toBe(403);
      expect((await ts.req('GET', '/version', undefined, { authorization: '' })).status).toBe(403);
    } finally {
      await ts.close();
    }
  });

  it('AlwaysAllow: anyone authenticated may do anything, and anonymous access is off (401)', async () => {
    const ts = await startServer({ authorizationModes: ['AlwaysAllow'] });
    try {
      const as = withUsers(ts, { gina: { username: 'gina', groups: [] } });
      expect((await as('gina', 'GET', '/api/v1/namespaces/default/secrets')).status).toBe(200);
      expect((await ts.req('GET', '/version', undefined, { authorization: '' })).status).toBe(401);
    } finally {
      await ts.close();
    }
  });

  it('RBAC then AlwaysDeny: what RBAC does not allow is denied; anonymous-auth off answers 401', async () => {
    const ts = await startServer({ authorizationModes: ['RBAC', 'AlwaysDeny'], anonymous: false });
    try {
      const as = withUsers(ts, { gina: { username: 'gina', groups: [] } });
      expect((await as('gina', 'GET', '/api')).status).toBe(200);
      expect((await as('gina', 'GET', '/api/v1/namespaces')).status).toBe(403);
      expect((await ts.req('GET', '/version', undefined, { authorization: '' })).status).toBe(401);
    } finally {
      await ts.close();
    }
  });
});
