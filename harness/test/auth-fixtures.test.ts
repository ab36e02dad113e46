// The authentication fixtures and the harness's callback servers, checked with independent
// tools: certificates verified with node:crypto, id_tokens verified with jose against the key
// set the issuer serves, the token webhook's answers read over real TLS with the fixtures' CA.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, importSPKI, jwtVerify } from 'jose';
import { Agent, request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthCallbacks, startAuthCallbacks } from '../src/auth/callbacks.ts';
import { callbackCounts, oidcIdToken, serviceAccountJwt } from '../src/auth/credentials.ts';
import { type AuthFixtures, loadAuthFixtures, makeAuthFixtures, serverFlags } from '../src/auth/fixtures.ts';
import { issue, makeCsr } from '../src/auth/pki.ts';

describe('authentication fixtures', () => {
  let f: AuthFixtures;
  let cb: AuthCallbacks;
  beforeAll(async () => {
    f = await makeAuthFixtures(mkdtempSync(join(tmpdir(), 'orch-fx-')));
    cb = await startAuthCallbacks(f);
  });
  afterAll(async () => {
    await cb?.close();
    if (f) rmSync(f.dir, { recursive: true, force: true });
  });

  it('are described by a file that reads back as written, with private keys not world-readable', () => {
    expect(loadAuthFixtures(f.dir)).toEqual(f);
    for (const p of [
      f.clientCa.key,
      f.serviceAccount.privateKey,
      f.requestHeader.proxyKey,
      f.oidc.signingJwk,
      f.tokenFile,
    ])
      expect(statSync(p).mode & 0o077, p).toBe(0);
  });

  it('print one flag per method, each naming an existing file', () => {
    const flags = serverFlags(f);
    for (const name of [
      '--client-ca-file',
      '--token-auth-file',
      '--service-account-key-file',
      '--requestheader-client-ca-file',
      '--oidc-issuer-url',
      '--authentication-token-webhook-config-file',
    ])
      expect(
        flags.some((x) => x.startsWith(`${name}=`)),
        name,
      ).toBe(true);
    for (const x of flags) {
      const v = x.split('=').slice(1).join('=');
      if (v.startsWith('/')) expect(statSync(v).isFile(), x).toBe(true);
    }
  });

  it('write a token file in the documented CSV shape (token, user, uid, quoted groups)', () => {
    const lines = readFileSync(f.tokenFile, 'utf8').trim().split('\n');
    expect(lines[0]).toBe(
      `${f.tokens[0]!.token},conformance-alice,uid-alice,"conformance-devs,conformance-readers"`,
    );
    expect(lines[1]).toBe(`${f.tokens[1]!.token},conformance-bob,uid-bob`);
  });

  it('issue client certificates that chain to the client CA, with CN and each O in the subject', async () => {
    const ca = new X509Certificate(readFileSync(f.clientCa.cert));
    const kp = await issue(
      { cert: readFileSync(f.clientCa.cert, 'utf8'), key: readFileSync(f.clientCa.key, 'utf8') },
      { cn: 'jane', orgs: ['a', 'b,c'] },
    );
    const leaf = new X509Certificate(kp.cert);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.subject.split('\n')).toEqual(['CN=jane', 'O=a', 'O=b\\,c']);
    const other = new X509Certificate(readFileSync(f.requestHeader.ca));
    expect(leaf.verify(other.publicKey)).toBe(false);
  });

  it('make certificate signing requests in PEM', async () => {
    const { csr } = await makeCsr('csr-user', ['g1']);
    expect(csr).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----\n/);
  });

  it('sign service-account tokens that the public key verifies', async () => {
    const jwt = await serviceAccountJwt(f, { sub: 'system:serviceaccount:ns:sa', aud: ['x'] });
    const key = await importSPKI(readFileSync(f.serviceAccount.publicKey, 'utf8'), 'RS256');
    const { payload } = await jwtVerify(jwt, key, { issuer: f.serviceAccount.issuer, audience: 'x' });
    expect(payload.sub).toBe('system:serviceaccount:ns:sa');
  });

  it('serve an OpenID issuer over TLS whose key set verifies the id_tokens the suites sign', async () => {
    const dispatcher = new Agent({ connect: { ca: readFileSync(f.oidc.ca, 'utf8') } });
    const disc = await request(`${f.oidc.issuerUrl}/.well-known/openid-configuration`, { dispatcher });
    expect(disc.statusCode).toBe(200);
    const doc = (await disc.body.json()) as { issuer: string; jwks_uri: string };
    expect(doc.issuer).toBe(f.oidc.issuerUrl);
    const keys = (await (await request(doc.jwks_uri, { dispatcher })).body.json()) as {
      keys: Record<string, unknown>[];
    };
    expect(keys.keys).toHaveLength(1);
    expect(keys.keys[0]).not.toHaveProperty('d'); // the private part stays private
    const jwks = createLocalJWKSet(keys as never);
    const tok = await oidcIdToken(f, { sub: 's1', email: 'jane@example.com', email_verified: true });
    const { payload } = await jwtVerify(tok, jwks, { issuer: f.oidc.issuerUrl, audience: f.oidc.clientId });
    expect(payload.tenant).toBe('conformance');
  });

  it('answer TokenReview on the webhook named by the connection file, in the version asked, and count the calls', async () => {
    const cfg = parseYaml(readFileSync(f.webhook.kubeconfig, 'utf8'));
    const server = cfg.clusters[0].cluster.server as string;
    const ca = Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8');
    const dispatcher = new Agent({ connect: { ca } });
    const before = await callbackCounts(f);
    const ask = async (token: string, apiVersion: string) => {
      const r = await request(server, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion, kind: 'TokenReview', spec: { token } }),
      });
      return (await r.body.json()) as {
        apiVersion: string;
        status: { authenticated: boolean; user?: { username: string } };
      };
    };
    const yes = await ask(f.webhook.tokens[0]!.token, 'authentication.orch.io/v1');
    expect(yes.apiVersion).toBe('authentication.orch.io/v1');
    expect(yes.status).toMatchObject({ authenticated: true, user: { username: 'conformance-webhook-user' } });
    const no = await ask('nope', 'authentication.orch.io/v1beta1');
    expect(no.apiVersion).toBe('authentication.orch.io/v1beta1');
    expect(no.status.authenticated).toBe(false);
    expect((await callbackCounts(f)).tokenReviews - before.tokenReviews).toBe(2);
  });
});
