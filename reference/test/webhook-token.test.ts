// Webhook token authentication (doc3 "Other callbacks", "Review objects") against a real
// HTTPS callback server on 127.0.0.1 (certificates from test CAs made with @peculiar/x509):
// the TokenReview the server sends, the answers it accepts or refuses (401, never allow on a
// failure), the cache by token with its TTL (an injected clock, counted calls), the
// version flag, and a client certificate or token from the connection file.
import { webcrypto } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { AuthenticationUnion } from '../src/authentication/union.ts';
import { loadWebhookConnection } from '../src/authentication/webhook-connection.ts';
import { WebhookTokenAuthenticator } from '../src/authentication/webhook-token-authenticator.ts';
import { parseServeArgs, UsageError } from '../src/cli.ts';
import { generateCertificate } from '../src/http/tls.ts';
import { scratchDir, startServer, type TestServer } from './helpers.ts';

const dir = scratchDir('token-webhook-');
const DEFAULT_AUDIENCE = 'https://orch.default.svc.cluster.local';

interface Call {
  review: any;
  authorization?: string;
  clientCert: boolean;
}
interface Webhook {
  url: string;
  caPem: string;
  calls: Call[];
  /** What the webhook answers (status code and body), given the review it received. */
  answer: (review: any) => { code?: number; body: unknown; retryAfter?: boolean } | 'hang' | 'reset';
  close(): Promise<void>;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

/** A client CA and a certificate it issued for clientAuth (PEM). */
async function clientCertificate(): Promise<{ ca: string; cert: string; key: string }> {
  const caKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 3_600_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=webhook-client-ca',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=orch-apiserver',
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingKey: caKeys.privateKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    ],
  });
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
  return { ca: ca.toString('pem'), cert: cert.toString('pem'), key };
}

async function startWebhook(clientCa?: string): Promise<Webhook> {
  const tls = await generateCertificate(['127.0.0.1']);
  const hook: Webhook = {
    url: '',
    caPem: tls.ca,
    calls: [],
    answer: () => ({ body: {} }),
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer(
    {
      key: tls.key,
      cert: tls.cert,
      ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: true } : {}),
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        let review: any;
        try {
          review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          review = undefined;
        }
        hook.calls.push({
          review,
          authorization: req.headers.authorization,
          clientCert: !!(req.socket as import('node:tls').TLSSocket).getPeerCertificate?.()?.subject,
        });
        const a = hook.answer(review);
        if (a === 'hang') return;
        if (a === 'reset') {
          // the connection closed without an answer (the client sees "socket hang up", ECONNRESET)
          req.socket.destroy();
          return;
        }
        const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
        res.writeHead(a.code ?? 200, {
          'content-type': 'application/json',
          ...(a.retryAfter ? { 'retry-after': '0' } : {}),
        });
        res.end(text);
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/review`;
  return hook;
}

let files = 0;
function connectionFile(cluster: Record<string, unknown>, user: Record<string, unknown> = {}): string {
  const p = join(dir, `webhook-${++files}.kubeconfig`);
  writeFileSync(
    p,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'webhook', cluster }],
      users: [{ name: 'apiserver', user }],
      contexts: [{ name: 'webhook', context: { cluster: 'webhook', user: 'apiserver' } }],
      'current-context': 'webhook',
    }),
  );
  return p;
}

/** A TokenReview reply in the version of the review. */
const reply = (review: any, status: Record<string, unknown>) => ({
  body: { apiVersion: review.apiVersion, kind: 'TokenReview', status },
});
const alice = { username: 'alice', uid: 'u-1', groups: ['dev'], extra: { scopes: ['read', 'write'] } };

async function who(s: TestServer, token: string) {
  try {
    return await s.server.authentication.authenticate({ headers: { authorization: `Bearer ${token}` } });
  } catch (e) {
    return { code: (e as { code: number }).code };
  }
}

describe('webhook token authentication', () => {
  let hook: Webhook;
  let s: TestServer;
  let now = Date.now();
  beforeAll(async () => {
    hook = await startWebhook();
    const cfg = connectionFile(
      { server: hook.url, 'certificate-authority-data': Buffer.from(hook.caPem).toString('base64') },
      { token: 'hook-secret' },
    );
    s = await startServer({
      tokenWebhook: { configFile: cfg, timeoutMs: 1000, retry: { initialMs: 10, factor: 1.5, attempts: 5 } },
      clock: () => now,
    });
  });
  afterAll(async () => {
    await s.close();
    await hook.close();
  });

  it('sends a v1beta1 TokenReview with the token and the API audiences, and accepts its user', async () => {
    hook.calls = [];
    hook.answer = (r) => reply(r, { authenticated: true, user: alice });
    const r = await who(s, 'tok-accept');
    expect(r).toMatchObject({
      user: {
        username: 'alice',
        uid: 'u-1',
        groups: ['dev', 'system:authenticated'],
        extra: { scopes: ['read', 'write'] },
      },
      by: 'webhook-token',
      audiences: [DEFAULT_AUDIENCE],
    });
    expect(hook.calls).toHaveLength(1);
    expect(hook.calls[0]!.review).toMatchObject({
      apiVersion: 'authentication.orch.io/v1beta1',
      kind: 'TokenReview',
      spec: { token: 'tok-accept', audiences: [DEFAULT_AUDIENCE] },
    });
    expect(hook.calls[0]!.authorization).toBe('Bearer hook-secret');
    expect(
      (await s.req('GET', '/api/v1/namespaces', undefined, { authorization: 'Bearer tok-accept' })).status,
    ).toBe(403);
  });

  it('caches answers by token for the TTL (2 minutes by default)', async () => {
    hook.calls = [];
    hook.answer = (r) => reply(r, { authenticated: true, user: { username: `user-of-${r.spec.token}` } });
    const start = now;
    try {
      expect(await who(s, 'tok-cache-a')).toHaveProperty('user.username', 'user-of-tok-cache-a');
      expect(await who(s, 'tok-cache-b')).toHaveProperty('user.username', 'user-of-tok-cache-b');
      expect(hook.calls).toHaveLength(2);
      for (let i = 0; i < 20; i++)
        expect(await who(s, 'tok-cache-a')).toHaveProperty('user.username', 'user-of-tok-cache-a');
      expect(hook.calls).toHaveLength(2);
      now = start + 119_000;
      expect(await who(s, 'tok-cache-a')).toHaveProperty('user');
      expect(hook.calls).toHaveLength(2);
      now = start + 121_000;
      expect(await who(s, 'tok-cache-a')).toHaveProperty('user');
      expect(hook.calls).toHaveLength(3);
      expect(await who(s, 'tok-cache-a')).toHaveProperty('user');
      expect(hook.calls).toHaveLength(3);
    } finally {
      now = start;
    }
  });

  it('requests that arrive together with one token share one call', async () => {
    hook.calls = [];
    hook.answer = (r) => reply(r, { authenticated: true, user: alice });
    const all = await Promise.all(Array.from({ length: 10 }, () => who(s, 'tok-together')));
    for (const r of all) expect(r).toHaveProperty('user.username', 'alice');
    expect(hook.calls).toHaveLength(1);
  });

  it('refuses (401) a token the webhook does not authenticate; a plain refusal is cached, one with an error is not', async () => {
    hook.calls = [];
    hook.answer = (r) => reply(r, { authenticated: false });
    expect(await who(s, 'tok-refused')).toEqual({ code: 401 });
    expect(await who(s, 'tok-refused')).toEqual({ code: 401 });
    expect(hook.calls).toHaveLength(1);
    hook.answer = (r) => reply(r, { authenticated: false, error: 'token revoked' });
    expect(await who(s, 'tok-error')).toEqual({ code: 401 });
    expect(await who(s, 'tok-error')).toEqual({ code: 401 });
    expect(hook.calls).toHaveLength(3);
    // an error in an answer that says authenticated is ignored
    hook.answer = (r) => reply(r, { authenticated: true, user: alice, error: 'ignored' });
    expect(await who(s, 'tok-ok-with-error')).toHaveProperty('user.username', 'alice');
  });

  it('never lets a failed call through: HTTP errors, bad replies and timeouts are 401 and are asked again', async () => {
    const cases: [string, Webhook['answer']][] = [
      ['500', () => ({ code: 500, body: { message: 'boom' } })],
      ['not json', () => ({ body: 'not json' })],
      [
        'other version',
        () => ({
          body: {
            apiVersion: 'authentication.orch.io/v1',
            kind: 'TokenReview',
            status: { authenticated: true, user: alice },
          },
        }),
      ],
      [
        'other kind',
        (r) => ({
          body: { apiVersion: r.apiVersion, kind: 'Status', status: { authenticated: true, user: alice } },
        }),
      ],
      ['no status', (r) => ({ body: { apiVersion: r.apiVersion, kind: 'TokenReview' } })],
      ['authenticated as a string', (r) => reply(r, { authenticated: 'true', user: alice })],
      ['no username', (r) => reply(r, { authenticated: true, user: { groups: ['x'] } })],
      ['groups not strings', (r) => reply(r, { authenticated: true, user: { username: 'a', groups: [1] } })],
      [
        'extra not lists',
        (r) => reply(r, { authenticated: true, user: { username: 'a', extra: { k: 'v' } } }),
      ],
    ];
    for (const [name, answer] of cases) {
      hook.calls = [];
      hook.answer = answer;
      const token = `tok-bad-${name.replace(/ /g, '-')}`;
      expect(await who(s, token), name).toEqual({ code: 401 });
      // a 500 is transient: tried five times (Kubernetes' backoff steps); the others once
      const perRequest = name === '500' ? 5 : 1;
      expect(hook.calls, name).toHaveLength(perRequest);
      if (name === '500' || name === 'not json' || name === 'other version') {
        expect(await who(s, token), name).toEqual({ code: 401 });
        expect(hook.calls, name).toHaveLength(2 * perRequest);
      }
    }
    hook.calls = [];
    hook.answer = () => 'hang';
    const t0 = Date.now();
    expect(await who(s, 'tok-hang')).toEqual({ code: 401 });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(hook.calls).toHaveLength(1);
  });

  it('retries a transient failure (500, 429, Retry-After, a reset connection) and then accepts; a 401 or 403 from the webhook is not retried', async () => {
    // a 503 alone is final; with Retry-After it is transient
    for (const first of [{ code: 500 }, { code: 429 }, { code: 503, retryAfter: true }]) {
      hook.calls = [];
      let n = 0;
      hook.answer = (r) =>
        n++ === 0 ? { ...first, body: {} } : reply(r, { authenticated: true, user: alice });
      expect(await who(s, `tok-transient-${first.code}`), String(first.code)).toHaveProperty(
        'user.username',
        'alice',
      );
      expect(hook.calls, String(first.code)).toHaveLength(2);
    }
    // a connection cut before the answer (ECONNRESET) is transient too
    hook.calls = [];
    let cut = 0;
    hook.answer = (r) => (cut++ === 0 ? 'reset' : reply(r, { authenticated: true, user: alice }));
    expect(await who(s, 'tok-transient-reset'), 'reset').toHaveProperty('user.username', 'alice');
    expect(hook.calls, 'reset').toHaveLength(2);
    for (const code of [401, 403, 503]) {
      hook.calls = [];
      hook.answer = () => ({ code, body: {} });
      expect(await who(s, `tok-final-${code}`)).toEqual({ code: 401 });
      expect(hook.calls, String(code)).toHaveLength(1);
    }
  });

  it('audiences: a reply naming none of the API audiences is refused, one naming some is accepted for those', async () => {
    hook.answer = (r) => reply(r, { authenticated: true, user: alice, audiences: ['elsewhere'] });
    expect(await who(s, 'tok-aud-other')).toEqual({ code: 401 });
    hook.answer = (r) =>
      reply(r, { authenticated: true, user: alice, audiences: ['elsewhere', DEFAULT_AUDIENCE] });
    expect(await who(s, 'tok-aud-some')).toMatchObject({ audiences: [DEFAULT_AUDIENCE] });
  });
});

describe('webhook version v1, a client certificate, and a cache TTL of 0', () => {
  it('sends a v1 TokenReview over a connection authenticated by the client certificate', async () => {
    const client = await clientCertificate();
    const hook = await startWebhook(client.ca);
    writeFileSync(join(dir, 'client.crt'), client.cert);
    writeFileSync(join(dir, 'client.key'), client.key);
    writeFileSync(join(dir, 'hook-ca.crt'), hook.caPem);
    const cfg = connectionFile(
      { server: hook.url, 'certificate-authority': 'hook-ca.crt' },
      { 'client-certificate': 'client.crt', 'client-key': 'client.key' },
    );
    const s = await startServer({ tokenWebhook: { configFile: cfg, version: 'v1', cacheTtlMs: 0 } });
    try {
      hook.answer = (r) => reply(r, { authenticated: true, user: alice });
      expect(await who(s, 'tok-v1')).toHaveProperty('user.username', 'alice');
      expect(await who(s, 'tok-v1')).toHaveProperty('user.username', 'alice');
      expect(hook.calls).toHaveLength(2);
      expect(hook.calls[0]!.review.apiVersion).toBe('authentication.orch.io/v1');
      expect(hook.calls[0]!.clientCert).toBe(true);
      expect(hook.calls[0]!.authorization).toBeUndefined();
    } finally {
      await s.close();
    }
    // without the client certificate the webhook refuses the connection: 401, never allow
    const noCert = new WebhookTokenAuthenticator({
      connection: { server: hook.url, ca: hook.caPem },
      apiAudiences: ['api'],
      timeoutMs: 2000,
    });
    try {
      await expect(
        new AuthenticationUnion([noCert], true).authenticate({ headers: { authorization: 'Bearer t' } }),
      ).rejects.toMatchObject({ code: 401 });
    } finally {
      noCert.stop();
      await hook.close();
    }
  });

  it('a webhook whose certificate the CA does not vouch for is never trusted', async () => {
    const hook = await startWebhook();
    hook.answer = (r) => reply(r, { authenticated: true, user: alice });
    const other = await generateCertificate(['127.0.0.1']);
    const a = new WebhookTokenAuthenticator({
      connection: { server: hook.url, ca: other.ca },
      apiAudiences: ['api'],
      timeoutMs: 2000,
    });
    try {
      await expect(
        new AuthenticationUnion([a], true).authenticate({ headers: { authorization: 'Bearer t' } }),
      ).rejects.toMatchObject({ code: 401 });
      expect(hook.calls).toHaveLength(0);
    } finally {
      a.stop();
      await hook.close();
    }
  });
});

describe('--authentication-token-webhook-* flags and the connection file', () => {
  const good = connectionFile(
    {
      server: 'https://127.0.0.1:1/review',
      'certificate-authority-data': Buffer.from('x').toString('base64'),
    },
    { token: 't' },
  );

  it('parses them (TTL as a Go duration, default version left to the server)', () => {
    const cfg = parseServeArgs([
      `--authentication-token-webhook-config-file=${good}`,
      '--authentication-token-webhook-cache-ttl=1m30s',
      '--authentication-token-webhook-version=v1',
    ])!;
    expect(cfg.options.tokenWebhook).toEqual({ configFile: good, cacheTtlMs: 90_000, version: 'v1' });
    expect(
      parseServeArgs([
        `--authentication-token-webhook-config-file=${good}`,
        '--authentication-token-webhook-cache-ttl=0',
      ])!.options.tokenWebhook,
    ).toEqual({
      configFile: good,
      cacheTtlMs: 0,
    });
    expect(loadWebhookConnection(good)).toEqual({
      server: 'https://127.0.0.1:1/review',
      ca: 'x',
      token: 't',
    });
  });

  it('refuses bad values with a usage error', () => {
    const plain = connectionFile({ server: 'http://127.0.0.1:1/review' });
    const noServer = connectionFile({ 'certificate-authority-data': 'eA==' });
    const certOnly = connectionFile(
      { server: 'https://127.0.0.1:1/' },
      { 'client-certificate-data': 'eA==' },
    );
    const notYaml = join(dir, 'not-yaml');
    writeFileSync(notYaml, 'clusters: [');
    for (const bad of [
      [
        `--authentication-token-webhook-config-file=${good}`,
        '--authentication-token-webhook-cache-ttl=2 minutes',
      ],
      [`--authentication-token-webhook-config-file=${good}`, '--authentication-token-webhook-cache-ttl=-1m'],
      [`--authentication-token-webhook-config-file=${good}`, '--authentication-token-webhook-version=v2'],
      ['--authentication-token-webhook-version=v1'],
      ['--authentication-token-webhook-config-file=/nonexistent'],
      [`--authentication-token-webhook-config-file=${plain}`],
      [`--authentication-token-webhook-config-file=${noServer}`],
      [`--authentication-token-webhook-config-file=${certOnly}`],
      [`--authentication-token-webhook-config-file=${notYaml}`],
    ])
      expect(() => parseServeArgs(bad), bad.join(' ')).toThrow(UsageError);
  });
});
