// Impersonation on a real server with RBAC rules granting the `impersonate` verb (doc3
// "Authentication": users, groups, serviceaccounts, uids and userextras/<key> with
// resourceNames), the identity the request then has (SelfSubjectReview tells), and the real
// kubectl's --as and --as-group.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaticTokenAuthenticator } from '../src/authentication/token-file.ts';
import { writeKubeconfig } from '../src/kubeconfig.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { findKubectl, kubectlMissing } from './kubectl-bin.ts';

const G = 'rbac.authorization.orch.io';
const RBAC = `/apis/${G}/v1`;
const WHOAMI = '/apis/authentication.orch.io/v1/selfsubjectreviews';

let ts: TestServer;
let ns: string;
const as = (
  token: string,
  method: string,
  path: string,
  headers: Record<string, string | string[]> = {},
  body: unknown = {},
) =>
  ts.req(method, path, method === 'POST' ? body : undefined, {
    authorization: `Bearer ${token}`,
    ...(headers as Record<string, string>),
  });
const whoami = async (token: string, headers: Record<string, string | string[]>) => {
  const r = await as(token, 'POST', WHOAMI, headers);
  return r.status === 201 ? r.json.status.userInfo : r;
};

beforeAll(async () => {
  ts = await startServer({ tls: true });
  ts.server.authentication.add(
    new StaticTokenAuthenticator(
      new Map([
        ['ivan', { username: 'ivan', groups: [] }],
        ['judy', { username: 'judy', groups: [] }],
      ]),
    ),
  );
  ns = uniqueName('imp');
  await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  // ivan may impersonate user "target", group "team", service account <ns>/robot, uid "1234"
  // and the extra scopes=read; nothing else
  await ts.req('POST', `${RBAC}/clusterroles`, {
    metadata: { name: 'impersonator' },
    rules: [
      { verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['target'] },
      { verbs: ['impersonate'], apiGroups: [''], resources: ['groups'], resourceNames: ['team'] },
      {
        verbs: ['impersonate'],
        apiGroups: ['authentication.orch.io'],
        resources: ['uids'],
        resourceNames: ['1234'],
      },
      {
        verbs: ['impersonate'],
        apiGroups: ['authentication.orch.io'],
        resources: ['userextras/scopes'],
        resourceNames: ['read'],
      },
    ],
  });
  await ts.req('POST', `${RBAC}/clusterrolebindings`, {
    metadata: { name: 'ivan-impersonates' },
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'impersonator' },
    subjects: [{ kind: 'User', name: 'ivan' }],
  });
  await ts.req('POST', `${RBAC}/namespaces/${ns}/roles`, {
    metadata: { name: 'sa-impersonator' },
    rules: [
      { verbs: ['impersonate'], apiGroups: [''], resources: ['serviceaccounts'], resourceNames: ['robot'] },
    ],
  });
  await ts.req('POST', `${RBAC}/namespaces/${ns}/rolebindings`, {
    metadata: { name: 'ivan-sa' },
    roleRef: { apiGroup: G, kind: 'Role', name: 'sa-impersonator' },
    subjects: [{ kind: 'User', name: 'ivan' }],
  });
  // "target" may list pods in ns
  await ts.req('POST', `${RBAC}/namespaces/${ns}/roles`, {
    metadata: { name: 'pod-lister' },
    rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }],
  });
  await ts.req('POST', `${RBAC}/namespaces/${ns}/rolebindings`, {
    metadata: { name: 'target-pods' },
    roleRef: { apiGroup: G, kind: 'Role', name: 'pod-lister' },
    subjects: [{ kind: 'User', name: 'target' }],
  });
});
afterAll(() => ts?.close());

describe('impersonation with RBAC', () => {
  it('a granted user: the request runs with the target permissions (and not the caller)', async () => {
    const own = await as('ivan', 'GET', `/api/v1/namespaces/${ns}/pods`);
    expect(own.status).toBe(403);
    const r = await as('ivan', 'GET', `/api/v1/namespaces/${ns}/pods`, { 'impersonate-user': 'target' });
    expect(r.status, r.text).toBe(200);
    expect(await whoami('ivan', { 'impersonate-user': 'target' })).toEqual({
      username: 'target',
      groups: ['system:authenticated'],
    });
  });

  it('resourceNames limit whom: another user is refused, named in the 403', async () => {
    const r = await as('ivan', 'GET', `/api/v1/namespaces/${ns}/pods`, { 'impersonate-user': 'other' });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      'users "other" is forbidden: User "ivan" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const judy = await as('judy', 'GET', '/version', { 'impersonate-user': 'target' });
    expect(judy.status).toBe(403);
  });

  it('groups, uid and extras each need their grant; the identity carries them', async () => {
    expect(
      await whoami('ivan', {
        'impersonate-user': 'target',
        'impersonate-group': 'team',
        'impersonate-uid': '1234',
        'impersonate-extra-scopes': 'read',
      }),
    ).toEqual({
      username: 'target',
      uid: '1234',
      groups: ['team', 'system:authenticated'],
      extra: { scopes: ['read'] },
    });
    const group = await as('ivan', 'POST', WHOAMI, {
      'impersonate-user': 'target',
      'impersonate-group': 'admins',
    });
    expect(group.status).toBe(403);
    expect(group.json.message).toBe(
      'groups "admins" is forbidden: User "ivan" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
    const uid = await as('ivan', 'POST', WHOAMI, { 'impersonate-user': 'target', 'impersonate-uid': '9' });
    expect(uid.status).toBe(403);
    expect(uid.json.message).toBe(
      'uids.authentication.orch.io "9" is forbidden: User "ivan" cannot impersonate resource "uids" in API group "authentication.orch.io" at the cluster scope',
    );
    const extra = await as('ivan', 'POST', WHOAMI, {
      'impersonate-user': 'target',
      'impersonate-extra-scopes': 'write',
    });
    expect(extra.status).toBe(403);
    expect(extra.json.message).toBe(
      'userextras.authentication.orch.io "write" is forbidden: User "ivan" cannot impersonate resource "userextras/scopes" in API group "authentication.orch.io" at the cluster scope',
    );
  });

  it('a service account: checked as serviceaccounts in its namespace; its groups unless groups are asked for', async () => {
    const robot = `system:serviceaccount:${ns}:robot`;
    expect(await whoami('ivan', { 'impersonate-user': robot })).toEqual({
      username: robot,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
    });
    expect(await whoami('ivan', { 'impersonate-user': robot, 'impersonate-group': 'team' })).toEqual({
      username: robot,
      groups: ['team', 'system:authenticated'],
    });
    const other = await as('ivan', 'POST', WHOAMI, {
      'impersonate-user': `system:serviceaccount:${ns}:other`,
    });
    expect(other.status).toBe(403);
    expect(other.json.message).toBe(
      `serviceaccounts "other" is forbidden: User "ivan" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "${ns}"`,
    );
  });

  it('system:anonymous gets system:unauthenticated; asking for system:unauthenticated drops system:authenticated', async () => {
    // system:public-info-viewer is bound to system:unauthenticated, system:discovery only to system:authenticated
    const anonymous = { 'impersonate-user': 'system:anonymous' };
    expect((await ts.req('GET', '/version', undefined, anonymous)).status).toBe(200);
    expect((await ts.req('GET', '/api', undefined, anonymous)).status).toBe(403);
    const unauth = { 'impersonate-user': 'someone', 'impersonate-group': 'system:unauthenticated' };
    expect((await ts.req('GET', '/version', undefined, unauth)).status).toBe(200);
    const r = await ts.req('GET', '/api', undefined, unauth);
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('forbidden: User "someone" cannot get path "/api"');
    // without it, system:authenticated is added: discovery is allowed
    expect((await ts.req('GET', '/api', undefined, { 'impersonate-user': 'someone' })).status).toBe(200);
  });

  it('groups, uid or extras without a user: 400', async () => {
    const cases: Record<string, string>[] = [
      { 'impersonate-group': 'team' },
      { 'impersonate-uid': '1234' },
      { 'impersonate-extra-scopes': 'read' },
    ];
    for (const h of cases) {
      const r = await as('ivan', 'GET', '/version', h);
      expect(r.status, JSON.stringify(h)).toBe(400);
      expect(r.json.reason).toBe('BadRequest');
    }
  });

  it('repeated group headers are separate groups; a comma stays inside a group name', async () => {
    // the admin may impersonate anything
    const r = await ts.req(
      'POST',
      WHOAMI,
      {},
      { 'impersonate-user': 'x', 'impersonate-group': ['a,b', 'c'] as unknown as string },
    );
    expect(r.json.status.userInfo.groups).toEqual(['a,b', 'c', 'system:authenticated']);
  });
});

const kubectlBin = findKubectl();

describe('kubectl --as and --as-group', () => {
  let dir: string;
  let kubeconfig: string;
  const run = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) =>
      execFile(
        kubectlBin!,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
        { env: { ...process.env, HOME: dir }, timeout: 25_000 },
        (err, stdout, stderr) =>
          resolve({
            code: err ? Number((err as { code?: number }).code ?? -1) : 0,
            stdout: String(stdout),
            stderr: String(stderr),
          }),
      ),
    );
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-as-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfig, { server: ts.url, token: 'ivan', caPem: ts.server.caPem });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('kubectl is installed', () => {
    const why = kubectlMissing(kubectlBin);
    expect(why, why).toBeUndefined();
  });

  it('get pods --as a granted user works; as another user is refused', async () => {
    const ok = await run('get', 'pods', '-n', ns, '--as', 'target');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr + ok.stdout).toContain('No resources found');
    const no = await run('get', 'pods', '-n', ns, '--as', 'other');
    expect(no.code).toBe(1);
    expect(no.stderr).toContain(
      'users "other" is forbidden: User "ivan" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  it('auth whoami --as --as-group', async () => {
    const r = await run('auth', 'whoami', '--as', 'target', '--as-group', 'team', '-o', 'json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status.userInfo).toEqual({
      username: 'target',
      groups: ['team', 'system:authenticated'],
    });
    const no = await run('auth', 'whoami', '--as', 'target', '--as-group', 'admins');
    expect(no.code).toBe(1);
    // kubectl words a refused self review its own way
    expect(no.stderr).toContain('you do not have permission to call it');
  });
});
