// OpenID Connect (doc3 "Authentication", the --oidc-* flags) against a real HTTPS issuer on
// 127.0.0.1 whose certificate comes from a test CA (@peculiar/x509), with ID tokens signed by
// jose. The issuer counts its requests: keys are fetched once and again only for an unknown
// key id (rate-limited), never per request; until they are loaded, tokens are refused.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, type JWK, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcAuthenticator, type OidcSettings } from '../src/authentication/oidc-authenticator.ts';
import { AuthenticationUnion } from '../src/authentication/union.ts';
import { parseServeArgs, UsageError } from '../src/cli.ts';
import { generateCertificate } from '../src/http/tls.ts';
import { scratchDir, startServer, type TestServer } from './helpers.ts';

const dir = scratchDir('oidc-');

interface Issuer {
  url: string;
  caPem: string;
  caFile: string;
  counts: { discovery: number; keys: number };
  /** Public keys served in the key set. */
  keys: JWK[];
  /** Discovery answers 503 while this is above zero (decremented per request). */
  failDiscovery: number;
  close(): Promise<void>;
}

async function startIssuer(): Promise<Issuer> {
  const cert = await generateCertificate(['127.0.0.1']);
  const caFile = join(dir, `ca-${Math.random().toString(36).slice(2)}.pem`);
  writeFileSync(caFile, cert.ca);
  const issuer: Issuer = {
    url: '',
    caPem: cert.ca,
    caFile,
    counts: { discovery: 0, keys: 0 },
    keys: [],
    failDiscovery: 0,
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      issuer.counts.discovery++;
      if (issuer.failDiscovery > 0) {
        issuer.failDiscovery--;
        send(503, {});
        return;
      }
      send(200, {
        issuer: issuer.url,
        jwks_uri: `${issuer.url}/keys`,
        id_token_signing_alg_values_supported: ['RS256'],
      });
    } else if (req.url === '/keys') {
      issuer.counts.keys++;
      send(200, { keys: issuer.keys });
    } else send(404, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  issuer.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return issuer;
}

async function publish(issuer: Issuer, key: KeyObject, kid: string, alg = 'RS256'): Promise<void> {
  issuer.keys.push({ ...(await exportJWK(key)), kid, alg, use: 'sig' });
}

const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const k1 = rsa();
const k2 = rsa();
const rogue = rsa();
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const CLIENT = 'orch-client';

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!cond() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return cond();
}

/** The user a token authenticates as, or { code: 401 }, through a union holding only the authenticator. */
async function who(a: OidcAuthenticator, token: string) {
  try {
    return await new AuthenticationUnion([a], true).authenticate({
      headers: { authorization: `Bearer ${token}` },
    });
  } catch (e) {
    return { code: (e as { code: number }).code };
  }
}

describe('OpenID Connect', () => {
  let issuer: Issuer;
  /** Signs an ID token of the issuer (valid for an hour) with overrides. */
  let idToken: (
    claims?: Record<string, unknown>,
    key?: KeyObject,
    header?: Record<string, unknown>,
  ) => Promise<string>;
  const authenticators: OidcAuthenticator[] = [];
  async function authenticator(
    s: Partial<OidcSettings> = {},
    refreshIntervalMs = 10_000,
  ): Promise<OidcAuthenticator> {
    const a = new OidcAuthenticator(
      { issuerUrl: issuer.url, clientId: CLIENT, caPem: issuer.caPem, ...s },
      { refreshIntervalMs },
    );
    authenticators.push(a);
    expect(await waitFor(() => a.ready, 3000)).toBe(true);
    return a;
  }

  beforeAll(async () => {
    issuer = await startIssuer();
    await publish(issuer, k1.publicKey, 'k1');
    await publish(issuer, ec.publicKey, 'ec1', 'ES256');
    idToken = (claims = {}, key = k1.privateKey, header = { alg: 'RS256', kid: 'k1' }) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer.url, aud: CLIENT, sub: 'alice', iat: now, exp: now + 3600, ...claims })
        .setProtectedHeader(header as { alg: string })
        .sign(key);
    };
  });
  afterAll(async () => {
    for (const a of authenticators) a.stop();
    await issuer.close();
  });

  describe('through the server (--oidc-* options)', () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startServer({
        oidc: {
          issuerUrl: issuer.url,
          clientId: CLIENT,
          caFile: issuer.caFile,
          groupsClaim: 'groups',
          groupsPrefix: 'oidc:',
        },
        auditInMemory: 100,
      });
    });
    afterAll(() => s.close());

    it('accepts an ID token: username <issuer>#<sub>, prefixed groups; fetches the keys once, not per request', async () => {
      const token = await idToken({ groups: ['dev', 'ops'] });
      const oidc = s.server.authentication.authenticators.find((a) => a.name === 'oidc') as OidcAuthenticator;
      expect(await waitFor(() => oidc.ready, 3000)).toBe(true);
      const before = { ...issuer.counts };
      const r = await s.server.authentication.authenticate({ headers: { authorization: `Bearer ${token}` } });
      expect(r.user).toEqual({
        username: `${issuer.url}#alice`,
        groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'],
      });
      expect(r.by).toBe('oidc');
      for (let i = 0; i < 30; i++)
        expect(
          (await s.req('GET', '/api/v1/namespaces', undefined, { authorization: `Bearer ${token}` })).status,
        ).toBe(403);
      expect(issuer.counts).toEqual(before);
      expect(issuer.counts.discovery).toBe(1);
      expect(issuer.counts.keys).toBe(1);
    });

    it('refuses a token of the issuer signed by a key it does not publish (401)', async () => {
      const forged = await idToken({}, rogue.privateKey);
      expect(
        (await s.req('GET', '/api/v1/namespaces', undefined, { authorization: `Bearer ${forged}` })).status,
      ).toBe(401);
    });
  });

  it('refreshes the key set for an unknown key id, at most once per interval', async () => {
    const a = await authenticator({}, 300);
    const fetched = issuer.counts.keys;
    await publish(issuer, k2.publicKey, 'k2');
    const rotated = await idToken({}, k2.privateKey, { alg: 'RS256', kid: 'k2' });
    // within the interval after the load: no fetch, the new key is not known yet
    expect(await who(a, rotated)).toEqual({ code: 401 });
    expect(issuer.counts.keys).toBe(fetched);
    await new Promise((r) => setTimeout(r, 350));
    expect(await who(a, rotated)).toMatchObject({ user: { username: `${issuer.url}#alice` } });
    expect(issuer.counts.keys).toBe(fetched + 1);
    // unknown key ids right after a refresh: refused without a fetch
    for (const kid of ['k3', 'k4', 'k5'])
      expect(await who(a, await idToken({}, rogue.privateKey, { alg: 'RS256', kid }))).toEqual({ code: 401 });
    expect(issuer.counts.keys).toBe(fetched + 1);
    for (let i = 0; i < 10; i++) expect(await who(a, rotated)).toHaveProperty('user');
    expect(issuer.counts.keys).toBe(fetched + 1);
    // past the interval, an unknown key id may refresh once more (and is still refused)
    await new Promise((r) => setTimeout(r, 350));
    const unknown = await idToken({}, rogue.privateKey, { alg: 'RS256', kid: 'k6' });
    expect(await Promise.all([who(a, unknown), who(a, unknown), who(a, unknown)])).toEqual([
      { code: 401 },
      { code: 401 },
      { code: 401 },
    ]);
    expect(issuer.counts.keys).toBe(fetched + 2);
  });

  it('refuses expired tokens (no skew), tokens for another client, without exp, or not yet valid past a minute', async () => {
    const a = await authenticator();
    const now = Math.floor(Date.now() / 1000);
    expect(await who(a, await idToken({ exp: now - 2 }))).toEqual({ code: 401 });
    expect(await who(a, await idToken({ aud: 'someone-else' }))).toEqual({ code: 401 });
    expect(await who(a, await idToken({ aud: ['someone-else', CLIENT] }))).toHaveProperty('user');
    expect(await who(a, await idToken({ exp: undefined }))).toEqual({ code: 401 });
    expect(await who(a, await idToken({ nbf: now + 30 }))).toHaveProperty('user');
    expect(await who(a, await idToken({ nbf: now + 120 }))).toEqual({ code: 401 });
  });

  it('accepts only the configured signing algorithms; alg none and garbage are refused', async () => {
    const rsOnly = await authenticator();
    const esToken = await idToken({}, ec.privateKey, { alg: 'ES256', kid: 'ec1' });
    expect(await who(rsOnly, esToken)).toEqual({ code: 401 });
    const both = await authenticator({ signingAlgs: ['RS256', 'ES256'] });
    expect(await who(both, esToken)).toHaveProperty('user');
    const now = Math.floor(Date.now() / 1000);
    const none = new UnsecuredJWT({ iss: issuer.url, aud: CLIENT, sub: 'alice', exp: now + 60 }).encode();
    expect(await who(both, none)).toEqual({ code: 401 });
    const good = await idToken();
    expect(await who(both, `${good.slice(0, -3)}abc`)).toEqual({ code: 401 });
    expect(await who(both, 'not.a.jwt')).toEqual({ code: 401 });
  });

  it('username claim and prefix rules (email without prefix, email_verified, "-")', async () => {
    const email = await authenticator({ usernameClaim: 'email' });
    expect(await who(email, await idToken({ email: 'a@example.com' }))).toMatchObject({
      user: { username: 'a@example.com' },
    });
    expect(await who(email, await idToken({ email: 'a@example.com', email_verified: true }))).toHaveProperty(
      'user',
    );
    expect(await who(email, await idToken({ email: 'a@example.com', email_verified: false }))).toEqual({
      code: 401,
    });
    expect(await who(email, await idToken({ email: 'a@example.com', email_verified: 'true' }))).toEqual({
      code: 401,
    });
    expect(await who(email, await idToken())).toEqual({ code: 401 });
    const named = await authenticator({ usernameClaim: 'name' });
    expect(await who(named, await idToken({ name: 'Alice' }))).toMatchObject({
      user: { username: `${issuer.url}#Alice` },
    });
    expect(await who(named, await idToken({ name: 42 }))).toEqual({ code: 401 });
    const none = await authenticator({ usernamePrefix: '-' });
    expect(await who(none, await idToken())).toMatchObject({ user: { username: 'alice' } });
    const prefixed = await authenticator({ usernameClaim: 'email', usernamePrefix: 'oidc:' });
    expect(await who(prefixed, await idToken({ email: 'b@example.com' }))).toMatchObject({
      user: { username: 'oidc:b@example.com' },
    });
  });

  it('groups claim as a list or a string; required claims must match', async () => {
    const a = await authenticator({ groupsClaim: 'roles', requiredClaims: { tenant: 'blue', tier: 'gold' } });
    const ok = { tenant: 'blue', tier: 'gold' };
    expect(await who(a, await idToken({ ...ok, roles: 'admin' }))).toMatchObject({
      user: { groups: ['admin', 'system:authenticated'] },
    });
    expect(await who(a, await idToken({ ...ok, roles: ['a', 'b'] }))).toMatchObject({
      user: { groups: ['a', 'b', 'system:authenticated'] },
    });
    expect(await who(a, await idToken({ ...ok }))).toMatchObject({
      user: { groups: ['system:authenticated'] },
    });
    expect(await who(a, await idToken({ ...ok, roles: [1] }))).toEqual({ code: 401 });
    expect(await who(a, await idToken({ ...ok, roles: { a: 1 } }))).toEqual({ code: 401 });
    expect(await who(a, await idToken({ tenant: 'blue' }))).toEqual({ code: 401 });
    expect(await who(a, await idToken({ tenant: 'red', tier: 'gold' }))).toEqual({ code: 401 });
  });

  it("a token of another issuer is not this method's", async () => {
    const a = await authenticator();
    const other = await idToken({ iss: 'https://elsewhere.example' });
    expect(a.authenticate({ headers: { authorization: `Bearer ${other}` } })).toEqual({ status: 'none' });
  });

  it('an issuer the CA bundle does not vouch for is never trusted', async () => {
    const untrusted = new OidcAuthenticator({ issuerUrl: issuer.url, clientId: CLIENT }, { retryMs: 50 });
    authenticators.push(untrusted);
    await new Promise((r) => setTimeout(r, 300));
    expect(untrusted.ready).toBe(false);
    expect(await who(untrusted, await idToken())).toEqual({ code: 401 });
  });
});

describe('OpenID Connect before the issuer answers', () => {
  it('the server starts at once, refuses tokens (401) until the keys are loaded, then accepts them', async () => {
    const issuer = await startIssuer();
    await publish(issuer, k1.publicKey, 'k1');
    // three failed discovery calls: the first load cannot succeed before 250 + 500 + 1000 ms
    issuer.failDiscovery = 3;
    const s = await startServer({ oidc: { issuerUrl: issuer.url, clientId: CLIENT, caFile: issuer.caFile } });
    try {
      const oidc = s.server.authentication.authenticators.find((a) => a.name === 'oidc') as OidcAuthenticator;
      expect(oidc.ready).toBe(false);
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ iss: issuer.url, aud: CLIENT, sub: 'bob', iat: now, exp: now + 600 })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .sign(k1.privateKey);
      const status = async () =>
        (await s.req('GET', '/api/v1/namespaces', undefined, { authorization: `Bearer ${token}` })).status;
      expect(await status()).toBe(401);
      const until = Date.now() + 8000;
      let last = 401;
      while (last !== 403 && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 50));
        last = await status();
      }
      expect(last).toBe(403);
      expect(issuer.counts.discovery).toBe(4);
      expect(issuer.counts.keys).toBe(1);
    } finally {
      await s.close();
      await issuer.close();
    }
  });
});

describe('--oidc-* flags', () => {
  const ca = join(dir, 'flag-ca.pem');
  writeFileSync(ca, 'x');
  it('parses them', () => {
    const cfg = parseServeArgs([
      '--oidc-issuer-url=https://issuer.example',
      '--oidc-client-id=c',
      '--oidc-username-claim=email',
      '--oidc-username-prefix=-',
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=g:',
      '--oidc-required-claim=a=1',
      '--oidc-required-claim=b=x=y',
      `--oidc-ca-file=${ca}`,
      '--oidc-signing-algs=RS256,ES256',
    ])!;
    expect(cfg.options.oidc).toEqual({
      issuerUrl: 'https://issuer.example',
      clientId: 'c',
      usernameClaim: 'email',
      usernamePrefix: '-',
      groupsClaim: 'groups',
      groupsPrefix: 'g:',
      requiredClaims: { a: '1', b: 'x=y' },
      caFile: ca,
      signingAlgs: ['RS256', 'ES256'],
    });
    expect(parseServeArgs([])!.options.oidc).toBeUndefined();
  });

  it('refuses an http issuer, a missing issuer or client id, bad claims and algorithms', () => {
    for (const bad of [
      ['--oidc-issuer-url=http://issuer.example', '--oidc-client-id=c'],
      ['--oidc-issuer-url=https://issuer.example'],
      ['--oidc-client-id=c'],
      ['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=c', '--oidc-required-claim=novalue'],
      ['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=c', '--oidc-signing-algs=HS256'],
      ['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=c', '--oidc-signing-algs=none'],
      ['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=c', '--oidc-ca-file=/nonexistent'],
    ])
      expect(() => parseServeArgs(bad), bad.join(' ')).toThrow(UsageError);
  });
});
