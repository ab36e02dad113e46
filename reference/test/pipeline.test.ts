// The request pipeline's stages, each through its interface and through a real server:
// authentication as a union (not mine / a user / an error; 401 only when none accepts; an
// invalid bearer token never anonymous), impersonation, authorization with reasons,
// admission with plugins that change at run time, and one audit event per request.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdmissionAttributes } from '../src/admission/types.ts';
import { StaticTokenAuthenticator } from '../src/authentication/token-file.ts';
import type { AuthenticationRequest, Authenticator } from '../src/authentication/types.ts';
import { AuthenticationUnion, Unauthenticated } from '../src/authentication/union.ts';
import { AuthorizerChain } from '../src/authorization/chain.ts';
import type { AuthorizationAttributes, Authorizer } from '../src/authorization/types.ts';
import { errors } from '../src/errors/status.ts';
import { configMap, scratchDir, startServer, type TestServer, uniqueName } from './helpers.ts';

const req = (headers: Record<string, string>): AuthenticationRequest => ({ headers });
const tokens = (t: Record<string, string>) =>
  new StaticTokenAuthenticator(new Map(Object.entries(t).map(([k, u]) => [k, { username: u, groups: [] }])));

/** An authenticator that refuses any request carrying `X-Refuse` (as a broken credential of its kind). */
const refuser: Authenticator = {
  name: 'refuser',
  authenticate: async (r) =>
    r.headers['x-refuse'] ? { status: 'error', message: 'refused by test' } : { status: 'none' },
};

describe('authentication union', () => {
  it('the first method that accepts decides, and the user gets system:authenticated', async () => {
    const u = new AuthenticationUnion([tokens({ a: 'alice' }), tokens({ a: 'mallory', b: 'bob' })], false);
    const r = await u.authenticate(req({ authorization: 'Bearer a' }));
    expect(r.user.username).toBe('alice');
    expect(r.user.groups).toContain('system:authenticated');
    expect(r.by).toBe('static-token');
    // a token the first method does not know is not refused by it: the second one accepts it
    expect((await u.authenticate(req({ authorization: 'Bearer b' }))).user.username).toBe('bob');
  });

  it('no credentials: anonymous when anonymous access is on, else 401', async () => {
    const on = new AuthenticationUnion([tokens({ a: 'alice' })], true);
    const r = await on.authenticate(req({}));
    expect(r.user).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
    const off = new AuthenticationUnion([tokens({ a: 'alice' })], false);
    await expect(off.authenticate(req({}))).rejects.toMatchObject({ code: 401, reason: 'Unauthorized' });
  });

  it('an invalid bearer token is a 401, never anonymous (doc3)', async () => {
    const u = new AuthenticationUnion([tokens({ a: 'alice' })], true);
    const e = await Promise.resolve(u.authenticate(req({ authorization: 'Bearer nope' }))).catch((x) => x);
    expect(e).toBeInstanceOf(Unauthenticated);
    expect(e.code).toBe(401);
    expect(e.refusals).toEqual(['invalid bearer token']);
  });

  it('a method that recognises and refuses the request makes it a 401 even with anonymous on', async () => {
    const u = new AuthenticationUnion([refuser], true);
    const e = await Promise.resolve(u.authenticate(req({ 'x-refuse': '1' }))).catch((x) => x);
    expect(e).toBeInstanceOf(Unauthenticated);
    expect(e.refusals).toEqual(['refuser: refused by test']);
  });

  it('a method that throws refuses (it never lets the request through)', async () => {
    const broken: Authenticator = {
      name: 'broken',
      authenticate: async () => Promise.reject(new Error('backend down')),
    };
    const u = new AuthenticationUnion([broken], true);
    await expect(u.authenticate(req({}))).rejects.toMatchObject({ code: 401 });
  });

  it('methods that answer at once are asked without a promise; a later one that awaits still decides in order', async () => {
    const sync = new AuthenticationUnion([tokens({ a: 'alice' })], false);
    const now = sync.authenticate(req({ authorization: 'Bearer a' }));
    expect(now).not.toBeInstanceOf(Promise);
    expect((now as { user: { username: string } }).user.username).toBe('alice');
    // sync "none", then an async refusal, then a sync method that would accept: the refusal
    // is kept and the third method still decides
    const slow: Authenticator = {
      name: 'slow',
      authenticate: (r) =>
        new Promise((ok) =>
          setTimeout(
            () => ok(r.headers['x-refuse'] ? { status: 'error', message: 'later' } : { status: 'none' }),
            5,
          ),
        ),
    };
    const mixed = new AuthenticationUnion([tokens({}), slow, tokens({ b: 'bob' })], false);
    const later = mixed.authenticate(req({ authorization: 'Bearer b' }));
    expect(later).toBeInstanceOf(Promise);
    expect((await later).user.username).toBe('bob');
    const e = await Promise.resolve(
      mixed.authenticate(req({ authorization: 'Bearer zzz', 'x-refuse': '1' })),
    ).catch((x) => x);
    expect(e.refusals).toEqual(['slow: later']);
    // a 401 is always a rejected promise, never a synchronous throw
    const none = sync.authenticate(req({}));
    expect(none).toBeInstanceOf(Promise);
    await expect(none).rejects.toBeInstanceOf(Unauthenticated);
  });
});

const attrs = (over: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: { username: 'alice', groups: ['system:authenticated'] },
  verb: 'list',
  resourceRequest: true,
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'configmaps',
  subresource: '',
  namespace: 'default',
  name: '',
  path: '/api/v1/namespaces/default/configmaps',
  ...over,
});

describe('authorization chain', () => {
  const fixed = (name: string, decision: 'allow' | 'deny' | 'no-opinion', reason = ''): Authorizer => ({
    name,
    authorize: async () => ({ decision, reason }),
  });

  it('the first allow or deny decides, with its reason and its name', async () => {
    const c = new AuthorizerChain([
      fixed('a', 'no-opinion', 'not mine'),
      fixed('b', 'deny', 'nope'),
      fixed('c', 'allow'),
    ]);
    expect(await c.authorize(attrs())).toEqual({ decision: 'deny', reason: 'nope', by: 'b' });
  });

  it('all without opinion: refused, with their reasons', async () => {
    const c = new AuthorizerChain([fixed('a', 'no-opinion', 'x'), fixed('b', 'no-opinion', 'y')]);
    const r = await c.authorize(attrs());
    expect(r.decision).toBe('no-opinion');
    expect(r.reason).toBe('x; y');
    expect(await c.allowed(attrs())).toBe(false);
  });

  it('answers at once when every authorizer does; an authorizer that awaits or throws is asked in its turn', async () => {
    const now: Authorizer = { name: 'now', authorize: () => ({ decision: 'no-opinion', reason: 'r1' }) };
    const allow: Authorizer = { name: 'allow', authorize: () => ({ decision: 'allow', reason: 'ok' }) };
    const sync = new AuthorizerChain([now, allow]);
    expect(sync.authorize(attrs())).toEqual({ decision: 'allow', reason: 'ok', by: 'allow' });
    const broken: Authorizer = { name: 'broken', authorize: () => Promise.reject(new Error('down')) };
    const thrower: Authorizer = {
      name: 'thrower',
      authorize: () => {
        throw new Error('bug');
      },
    };
    const mixed = new AuthorizerChain([now, broken, thrower, fixed('late', 'no-opinion', 'r4')]);
    const r = mixed.authorize(attrs());
    expect(r).toBeInstanceOf(Promise);
    expect(await r).toEqual({ decision: 'no-opinion', reason: 'r1; broken: down; thrower: bug; r4' });
  });
});

describe('the pipeline in a running server', () => {
  let ts: TestServer;
  let ns: string;
  const auditDir = scratchDir('orch-audit-');
  const as = (
    token: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => ts.req(method, path, body, { authorization: `Bearer ${token}`, ...headers });

  beforeAll(async () => {
    ts = await startServer({ auditLogPath: join(auditDir, 'audit.log'), auditInMemory: 1000 });
    // a second token method added at run time: the admin token table must not refuse its tokens
    ts.server.authentication.add(
      new StaticTokenAuthenticator(
        new Map([['alice-token', { username: 'alice', uid: 'u-alice', groups: ['devs'] }]]),
      ),
    );
    // alice may list configmaps in namespaces whose name starts with "alice-", nothing else
    ts.server.authorization.add({
      name: 'test-policy',
      authorize: async (a) =>
        a.user.username === 'alice' &&
        a.resource === 'configmaps' &&
        a.verb === 'list' &&
        a.namespace.startsWith('alice-')
          ? { decision: 'allow', reason: 'alice lists her configmaps' }
          : { decision: 'no-opinion', reason: '' },
    });
    ns = uniqueName('alice-');
    expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  });
  afterAll(() => ts?.close());

  it('a token of a method added later is accepted; authorization decides per request', async () => {
    const ok = await as('alice-token', 'GET', `/api/v1/namespaces/${ns}/configmaps`);
    expect(ok.status, ok.text).toBe(200);
    const no = await as('alice-token', 'GET', '/api/v1/namespaces/default/configmaps');
    expect(no.status).toBe(403);
    expect(no.json.message).toBe(
      'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
  });

  it('an unknown bearer token is a 401 although anonymous access is on', async () => {
    const r = await as('not-a-token', 'GET', '/version');
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    const anon = await request(`${ts.url}/version`);
    expect(anon.statusCode).toBe(200);
    await anon.body.dump();
  });

  it('impersonation: authorized per part, then the request runs as the target', async () => {
    // the admin may impersonate anyone: alice's permissions then apply
    const r = await ts.req('GET', '/api/v1/namespaces/default/configmaps', undefined, {
      'impersonate-user': 'alice',
    });
    expect(r.status).toBe(403);
    expect(r.json.message).toContain('User "alice" cannot list');
    const ok = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, {
      'impersonate-user': 'alice',
    });
    expect(ok.status, ok.text).toBe(200);
    // alice may not impersonate
    const no = await as('alice-token', 'GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, {
      'impersonate-user': 'bob',
    });
    expect(no.status).toBe(403);
    expect(no.json.message).toContain('User "alice" cannot impersonate resource "users"');
    // a group without a user is malformed
    const bad = await ts.req('GET', '/version', undefined, { 'impersonate-group': 'devs' });
    expect(bad.status).toBe(400);
  });

  it('admission plugins added at run time see the request attributes; reads are never admitted', async () => {
    const seen: AdmissionAttributes[] = [];
    ts.server.admission.addSource(() => [
      {
        name: 'test-recorder',
        handles: (a) => a.resource.resource === 'configmaps' && a.namespace === ns,
        validate(a) {
          seen.push(a);
          a.ctx.audit?.annotate('test.orch.io/seen', a.operation);
          if (a.name.startsWith('deny-'))
            throw errors.forbidden(`configmaps "${a.name}" is forbidden: denied by test-recorder`);
        },
      },
    ]);
    const c = await ts.req(
      'POST',
      `/api/v1/namespaces/${ns}/configmaps?fieldManager=tester&dryRun=All`,
      configMap('cm-1'),
    );
    expect(c.status, c.text).toBe(201);
    const d = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('deny-1'));
    expect(d.status).toBe(403);
    expect(d.json.message).toContain('denied by test-recorder');
    await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps`);
    expect(seen.map((a) => a.operation)).toEqual(['CREATE', 'CREATE']);
    const first = seen[0]!;
    expect(first.requestKind).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(first.resource).toEqual({ group: '', version: 'v1', resource: 'configmaps' });
    expect(first.dryRun).toBe(true);
    expect(first.options).toMatchObject({ kind: 'CreateOptions', fieldManager: 'tester', dryRun: ['All'] });
    expect(first.ctx.user.username).toBe('orch-admin');
  });

  it("one audit event per request, with who, what, the outcome and the stages' annotations", async () => {
    const before = ts.server.audit!.events.length;
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('audited'), {
      'audit-id': 'test-audit-1',
    });
    expect(r.status, r.text).toBe(201);
    expect(r.headers['audit-id']).toBe('test-audit-1');
    const forbidden = await as('alice-token', 'DELETE', `/api/v1/namespaces/${ns}/configmaps/audited`);
    expect(forbidden.status).toBe(403);
    await new Promise((res) => setTimeout(res, 50));
    const events = ts.server.audit!.events.slice(before);
    expect(events).toHaveLength(2);
    const [create, del] = events;
    expect(create).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.orch.io/v1',
      level: 'Metadata',
      auditID: 'test-audit-1',
      stage: 'ResponseComplete',
      verb: 'create',
      user: { username: 'orch-admin' },
      objectRef: { resource: 'configmaps', namespace: ns, apiVersion: 'v1' },
      responseStatus: { code: 201 },
      annotations: {
        'authorization.orch.io/decision': 'allow',
        // the privileged group allows without a reason, as in Kubernetes
        'authorization.orch.io/reason': '',
        'test.orch.io/seen': 'CREATE',
      },
    });
    expect(del).toMatchObject({
      verb: 'delete',
      user: { username: 'alice' },
      objectRef: { name: 'audited' },
      responseStatus: { code: 403, status: 'Failure', reason: 'Forbidden' },
      annotations: { 'authorization.orch.io/decision': 'forbid' },
    });
    // the log is written after the answer: wait until the create's line is whole in the file
    // (a loaded machine read it half written)
    const file = join(auditDir, 'audit.log');
    const whole = () => readFileSync(file, 'utf8').split('\n').slice(0, -1);
    for (let i = 0; i < 100 && !whole().some((l) => l.includes('"test-audit-1"')); i++)
      await new Promise((res) => setTimeout(res, 50));
    const fromFile = whole().map((l) => JSON.parse(l));
    expect(fromFile.map((e) => e.auditID)).toContain('test-audit-1');
  });
});
