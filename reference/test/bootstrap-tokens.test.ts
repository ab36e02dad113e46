// Bootstrap tokens (doc3 "Bootstrap token secret" and "Authentication"): each rule of the
// secret's table decides whether `<id>.<secret>` authenticates as system:bootstrap:<id>, and
// the token cleaner (`--controllers=*,tokencleaner`) deletes expired token secrets when they
// expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs, UsageError } from '../src/cli.ts';
import { controllerEnabled } from '../src/controllers/catalog.ts';
import { startServer, type TestServer } from './helpers.ts';

const NS = 'orch-system';
let seq = 0;
/** A fresh token id (6 of a-z0-9) and secret (16 of a-z0-9). */
function ids(): { id: string; secret: string } {
  seq++;
  const id = `t${String(process.pid % 1000).padStart(3, '0')}${String(seq).padStart(2, '0')}`.slice(0, 6);
  return { id, secret: `${id}0123456789`.slice(0, 16).padEnd(16, 'x') };
}

function tokenSecret(
  id: string,
  data: Record<string, string | undefined>,
  extra: Record<string, unknown> = {},
) {
  const stringData: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) if (v !== undefined) stringData[k] = v;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}` },
    type: 'bootstrap.orch.io/token',
    stringData,
    ...extra,
  };
}

async function create(s: TestServer, body: unknown, ns = NS): Promise<void> {
  const r = await s.req('POST', `/api/v1/namespaces/${ns}/secrets`, body);
  expect(r.status, r.text).toBe(201);
}

async function who(s: TestServer, token: string) {
  try {
    return await s.server.authentication.authenticate({ headers: { authorization: `Bearer ${token}` } });
  } catch (e) {
    return { code: (e as { code: number }).code };
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('bootstrap token authentication (--enable-bootstrap-token-auth)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ enableBootstrapTokenAuth: true });
  });
  afterAll(() => s.close());

  /** A token secret with the given fields (defaults: a valid authentication token) and its token text. */
  async function token(
    fields: Record<string, string | undefined> = {},
    extra: Record<string, unknown> = {},
    ns = NS,
  ) {
    const { id, secret } = ids();
    await create(
      s,
      tokenSecret(
        id,
        { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', ...fields },
        extra,
      ),
      ns,
    );
    return { id, text: `${id}.${secret}` };
  }

  it('authenticates as system:bootstrap:<id> in system:bootstrappers and the extra groups', async () => {
    const t = await token({
      description: 'joins nodes',
      expiration: iso(Date.now() + 3_600_000),
      'auth-extra-groups':
        'system:bootstrappers:worker,system:bootstrappers:orch:default-node-token,system:bootstrappers:worker',
    });
    expect(await who(s, t.text)).toMatchObject({
      user: {
        username: `system:bootstrap:${t.id}`,
        groups: [
          'system:bootstrappers',
          'system:bootstrappers:orch:default-node-token',
          'system:bootstrappers:worker',
          'system:authenticated',
        ],
      },
      by: 'bootstrap-token',
    });
    expect(
      (await s.req('GET', '/api/v1/namespaces', undefined, { authorization: `Bearer ${t.text}` })).status,
    ).toBe(403);
    const plain = await token();
    expect(await who(s, plain.text)).toMatchObject({
      user: { groups: ['system:bootstrappers', 'system:authenticated'] },
    });
  });

  it('refuses a wrong secret, an unknown id, or text that is not <6>.<16> of a-z0-9 (401)', async () => {
    const t = await token();
    expect(await who(s, `${t.id}.zzzzzzzzzzzzzzzz`)).toEqual({ code: 401 });
    expect(await who(s, 'qqqqqq.0123456789abcdef')).toEqual({ code: 401 });
    const secret = t.text.split('.')[1]!;
    for (const bad of [
      `${t.id}.${secret.slice(1)}`,
      `${t.id.slice(1)}.${secret}`,
      t.text.toUpperCase(),
      `${t.id}:${secret}`,
      `${t.text}x`,
    ])
      expect(await who(s, bad), bad).toEqual({ code: 401 });
    expect(
      (
        await s.req('GET', '/api/v1/namespaces', undefined, {
          authorization: `Bearer ${t.id}.zzzzzzzzzzzzzzzz`,
        })
      ).status,
    ).toBe(401);
  });

  it('needs usage-bootstrap-authentication to be exactly "true"', async () => {
    for (const usage of [undefined, 'false', 'True', 'yes', ''])
      expect(
        await who(s, (await token({ 'usage-bootstrap-authentication': usage })).text),
        String(usage),
      ).toEqual({ code: 401 });
  });

  it('refuses an expired token and one whose expiration does not parse', async () => {
    expect(await who(s, (await token({ expiration: iso(Date.now() - 1000) })).text)).toEqual({ code: 401 });
    expect(await who(s, (await token({ expiration: 'tomorrow' })).text)).toEqual({ code: 401 });
    expect(await who(s, (await token({ expiration: '2999-01-01' })).text)).toEqual({ code: 401 });
    expect(await who(s, (await token({ expiration: '2999-01-01T00:00:00Z' })).text)).toHaveProperty('user');
  });

  it('refuses a token with an extra group outside system:bootstrappers:', async () => {
    for (const g of [
      'system:masters',
      'system:bootstrappers',
      'system:bootstrappers:',
      'system:bootstrappers:Upper',
      'system:bootstrappers:a, system:bootstrappers:b',
    ])
      expect(await who(s, (await token({ 'auth-extra-groups': g })).text), g).toEqual({ code: 401 });
  });

  it('refuses a secret of another type, another namespace, or whose token-id or token-secret differ', async () => {
    expect(await who(s, (await token({}, { type: 'Opaque' })).text)).toEqual({ code: 401 });
    expect(await who(s, (await token({}, {}, 'default')).text)).toEqual({ code: 401 });
    expect(await who(s, (await token({ 'token-id': 'zzzzzz' })).text)).toEqual({ code: 401 });
    const noSecret = await token({ 'token-secret': undefined });
    expect(await who(s, noSecret.text)).toEqual({ code: 401 });
  });

  it('stops authenticating a token once its secret is deleted', async () => {
    const t = await token();
    expect(await who(s, t.text)).toHaveProperty('user');
    await s.req('DELETE', `/api/v1/namespaces/${NS}/secrets/bootstrap-token-${t.id}`);
    expect(await who(s, t.text)).toEqual({ code: 401 });
  });
});

describe('without --enable-bootstrap-token-auth', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('a valid token secret authenticates nobody', async () => {
    const { id, secret } = ids();
    await create(
      s,
      tokenSecret(id, { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true' }),
    );
    expect(await who(s, `${id}.${secret}`)).toEqual({ code: 401 });
  });
});

/** Whether the secret still exists, polled until it matches `want` or `ms` pass. */
async function waitExists(s: TestServer, name: string, want: boolean, ms: number, ns = NS): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    const exists = (await s.req('GET', `/api/v1/namespaces/${ns}/secrets/${name}`)).status === 200;
    if (exists === want || Date.now() > until) return exists;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('token cleaner (--controllers=*,tokencleaner)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ controllers: ['*', 'tokencleaner'] });
  });
  afterAll(() => s.close());

  it('deletes an already expired token secret at once, and one with an unreadable expiration', async () => {
    const a = ids();
    await create(
      s,
      tokenSecret(a.id, { 'token-id': a.id, 'token-secret': a.secret, expiration: iso(Date.now() - 60_000) }),
    );
    expect(await waitExists(s, `bootstrap-token-${a.id}`, false, 2000)).toBe(false);
    const b = ids();
    await create(s, tokenSecret(b.id, { 'token-id': b.id, 'token-secret': b.secret, expiration: 'never' }));
    expect(await waitExists(s, `bootstrap-token-${b.id}`, false, 2000)).toBe(false);
  });

  it('deletes a token secret when it expires, not before; keeps tokens without expiration and other secrets', async () => {
    const t = ids();
    const expires = Date.now() + 1500;
    await create(
      s,
      tokenSecret(t.id, { 'token-id': t.id, 'token-secret': t.secret, expiration: iso(expires) }),
    );
    const keep = ids();
    await create(s, tokenSecret(keep.id, { 'token-id': keep.id, 'token-secret': keep.secret }));
    await create(s, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'not-a-token' },
      stringData: { expiration: iso(Date.now() - 1000) },
    });
    await new Promise((r) => setTimeout(r, 800));
    expect(await waitExists(s, `bootstrap-token-${t.id}`, true, 0)).toBe(true);
    expect(await waitExists(s, `bootstrap-token-${t.id}`, false, 4000)).toBe(false);
    expect(Date.now()).toBeGreaterThanOrEqual(expires);
    // at the expiration time, not at a poll a long while later (a margin for a loaded machine)
    expect(Date.now() - expires).toBeLessThan(2500);
    expect(await waitExists(s, `bootstrap-token-${keep.id}`, true, 0)).toBe(true);
    expect(await waitExists(s, 'not-a-token', true, 0)).toBe(true);
  });

  it('follows a changed expiration', async () => {
    const t = ids();
    const name = `bootstrap-token-${t.id}`;
    await create(
      s,
      tokenSecret(t.id, {
        'token-id': t.id,
        'token-secret': t.secret,
        expiration: iso(Date.now() + 3_600_000),
      }),
    );
    const patch = await s.req(
      'PATCH',
      `/api/v1/namespaces/${NS}/secrets/${name}`,
      { stringData: { expiration: iso(Date.now() + 300) } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(patch.status, patch.text).toBe(200);
    expect(await waitExists(s, name, false, 2500)).toBe(false);
  });
});

describe('the token cleaner is off by default', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('leaves an expired token secret alone', async () => {
    const t = ids();
    await create(
      s,
      tokenSecret(t.id, { 'token-id': t.id, 'token-secret': t.secret, expiration: iso(Date.now() - 60_000) }),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await waitExists(s, `bootstrap-token-${t.id}`, true, 0)).toBe(true);
  });
});

describe('--controllers and --enable-bootstrap-token-auth flags', () => {
  it('tokencleaner runs only when named', () => {
    expect(controllerEnabled(undefined, 'tokencleaner')).toBe(false);
    expect(controllerEnabled(['*'], 'tokencleaner')).toBe(false);
    expect(controllerEnabled(['*', 'tokencleaner'], 'tokencleaner')).toBe(true);
    expect(controllerEnabled(['tokencleaner'], 'tokencleaner')).toBe(true);
    // the first entry naming it decides (1.28's IsControllerEnabled); the canonical name counts too
    expect(controllerEnabled(['*', 'tokencleaner', '-tokencleaner'], 'tokencleaner')).toBe(true);
    expect(controllerEnabled(['*', '-tokencleaner', 'tokencleaner'], 'tokencleaner')).toBe(false);
    expect(controllerEnabled(['*', 'token-cleaner-controller'], 'tokencleaner')).toBe(true);
  });

  it('parses the flags and refuses unknown controllers', () => {
    const cfg = parseServeArgs(['--enable-bootstrap-token-auth', '--controllers=*,tokencleaner'])!;
    expect(cfg.options).toMatchObject({ enableBootstrapTokenAuth: true, controllers: ['*', 'tokencleaner'] });
    expect(parseServeArgs([])!.options.enableBootstrapTokenAuth).toBeUndefined();
    expect(() => parseServeArgs(['--controllers=*,bogus'])).toThrow(UsageError);
    expect(() => parseServeArgs(['--controllers=*,,tokencleaner'])).toThrow(UsageError);
  });
});
