// The Webhook authorization mode against a real callback server: the SubjectAccessReview it is
// POSTed (v1beta1 by default, v1 when asked; `group` and `groups`), allow / deny / no opinion,
// the bearer token of the connection file, the answer caches and their TTLs, a webhook that
// fails (no opinion: the next mode decides), and the flags.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaticTokenAuthenticator } from '../src/authentication/token-file.ts';
import { parseServeArgs, UsageError } from '../src/cli.ts';
import { generateCertificate } from '../src/http/tls.ts';
import { startServer, type TestServer } from './helpers.ts';

interface Call {
  auth: string | undefined;
  body: any;
}

let hook: Server;
let hookUrl: string;
const calls: Call[] = [];
let dir: string;

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orch-authz-webhook-'));
  hook = createServer(async (req, res) => {
    const body = JSON.parse(await readAll(req));
    calls.push({ auth: req.headers.authorization, body });
    const spec = body.spec;
    if (spec.nonResourceAttributes?.path === '/boom') {
      res.writeHead(500).end('{}');
      return;
    }
    let status: Record<string, unknown> = { allowed: false };
    if (spec.user === 'wendy' && spec.resourceAttributes?.resource === 'configmaps')
      status = { allowed: true, reason: 'wendy reads configmaps' };
    if (spec.user === 'dan') status = { allowed: false, denied: true, reason: 'dan is banned' };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: body.apiVersion, kind: 'SubjectAccessReview', status }));
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/authorize`;
});
afterAll(async () => {
  await new Promise<void>((r) => hook.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

function connectionFile(name: string, server = hookUrl, caPem?: string): string {
  const p = join(dir, name);
  writeFileSync(
    p,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: hook',
      '  cluster:',
      `    server: ${server}`,
      ...(caPem ? [`    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`] : []),
      'users:',
      '- name: apiserver',
      '  user:',
      '    token: hook-secret',
      'contexts:',
      '- name: hook',
      '  context: {cluster: hook, user: apiserver}',
      'current-context: hook',
      '',
    ].join('\n'),
  );
  return p;
}

async function serverWith(opts: Record<string, unknown>): Promise<TestServer> {
  const ts = await startServer(opts);
  ts.server.authentication.add(
    new StaticTokenAuthenticator(
      new Map([
        ['wendy', { username: 'wendy', uid: 'w-1', groups: ['staff'] }],
        ['dan', { username: 'dan', groups: [] }],
        ['nora', { username: 'nora', groups: [] }],
      ]),
    ),
  );
  return ts;
}
const as = (ts: TestServer, token: string, path: string) =>
  ts.req('GET', path, undefined, { authorization: `Bearer ${token}` });

describe('Webhook mode (v1beta1 by default)', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await serverWith({
      authorizationModes: ['Webhook', 'RBAC'],
      authorizationWebhookConfigFile: connectionFile('v1beta1.yaml'),
      authorizationWebhookCacheUnauthorizedTtlMs: 200,
    });
  });
  afterAll(() => ts?.close());

  it('POSTs a v1beta1 SubjectAccessReview (user groups as `group`) with the file token; allowed allows', async () => {
    calls.length = 0;
    const r = await as(ts, 'wendy', '/api/v1/namespaces/default/configmaps');
    expect(r.status, r.text).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.auth).toBe('Bearer hook-secret');
    expect(calls[0]!.body).toEqual({
      apiVersion: 'authorization.orch.io/v1beta1',
      kind: 'SubjectAccessReview',
      spec: {
        resourceAttributes: { namespace: 'default', verb: 'list', version: 'v1', resource: 'configmaps' },
        user: 'wendy',
        group: ['staff', 'system:authenticated'],
        uid: 'w-1',
      },
    });
  });

  it('an allowed answer is cached: the same request is not sent again', async () => {
    calls.length = 0;
    for (let i = 0; i < 3; i++)
      expect((await as(ts, 'wendy', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    expect(calls).toHaveLength(0);
  });

  it('denied denies with the webhook reason, and RBAC is not asked', async () => {
    // dan is not allowed by RBAC either; /version is allowed by RBAC (public info) but the deny comes first
    const r = await as(ts, 'dan', '/version');
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('forbidden: User "dan" cannot get path "/version": dan is banned');
  });

  it('no opinion: the next mode (RBAC) decides; the answer is cached for the unauthorized TTL only', async () => {
    calls.length = 0;
    expect((await as(ts, 'nora', '/version')).status).toBe(200); // RBAC: system:public-info-viewer
    expect((await as(ts, 'nora', '/version')).status).toBe(200);
    expect(calls).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    expect((await as(ts, 'nora', '/version')).status).toBe(200);
    expect(calls).toHaveLength(2);
  });

  it('a failing webhook is no opinion (never access): RBAC then refuses what it does not grant', async () => {
    const r = await as(ts, 'nora', '/boom');
    expect(r.status).toBe(403);
  });
});

describe('Webhook mode v1 and an unreachable webhook', () => {
  it('v1: user groups as `groups`', async () => {
    const ts = await serverWith({
      authorizationModes: ['Webhook'],
      authorizationWebhookConfigFile: connectionFile('v1.yaml'),
      authorizationWebhookVersion: 'v1',
    });
    try {
      calls.length = 0;
      expect((await as(ts, 'wendy', '/api/v1/namespaces/default/configmaps/x')).status).toBe(404);
      expect(calls[0]!.body.apiVersion).toBe('authorization.orch.io/v1');
      expect(calls[0]!.body.spec.groups).toEqual(['staff', 'system:authenticated']);
      expect(calls[0]!.body.spec.resourceAttributes.name).toBe('x');
      // only mode, no opinion: refused
      expect((await as(ts, 'nora', '/api/v1/namespaces')).status).toBe(403);
    } finally {
      await ts.close();
    }
  });

  it('a webhook that cannot be reached refuses (403), the admin still passes', async () => {
    const ts = await serverWith({
      authorizationModes: ['Webhook'],
      authorizationWebhookConfigFile: connectionFile('down.yaml', 'http://127.0.0.1:1/nowhere'),
    });
    try {
      expect((await as(ts, 'wendy', '/api/v1/namespaces/default/configmaps')).status).toBe(403);
      expect((await ts.req('GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    } finally {
      await ts.close();
    }
  });
});

describe('Webhook mode over HTTPS', () => {
  it('trusts the certificate-authority-data of the connection file, and nothing else', async () => {
    const cert = await generateCertificate();
    const seen: string[] = [];
    const tlsHook = createHttpsServer({ key: cert.key, cert: cert.cert }, async (req, res) => {
      const body = JSON.parse(await readAll(req));
      seen.push(body.spec.user);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ ...body, status: { allowed: body.spec.user === 'wendy', reason: 'over TLS' } }),
      );
    });
    await new Promise<void>((r) => tlsHook.listen(0, '127.0.0.1', () => r()));
    const url = `https://127.0.0.1:${(tlsHook.address() as AddressInfo).port}/`;
    const trusted = await serverWith({
      authorizationModes: ['Webhook'],
      authorizationWebhookConfigFile: connectionFile('tls.yaml', url, cert.ca),
    });
    const untrusted = await serverWith({
      authorizationModes: ['Webhook'],
      authorizationWebhookConfigFile: connectionFile('tls-no-ca.yaml', url),
    });
    try {
      expect((await as(trusted, 'wendy', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
      expect(seen).toEqual(['wendy']);
      // the webhook's certificate is not trusted without the CA: no opinion, refused
      expect((await as(untrusted, 'wendy', '/api/v1/namespaces/default/configmaps')).status).toBe(403);
      expect(seen).toEqual(['wendy']);
    } finally {
      await trusted.close();
      await untrusted.close();
      await new Promise<void>((r) => tlsHook.close(() => r()));
    }
  });
});

describe('flags', () => {
  it('parses the webhook flags (Go durations)', () => {
    const file = connectionFile('flags.yaml');
    const c = parseServeArgs([
      '--authorization-mode',
      'RBAC,Webhook',
      '--authorization-webhook-config-file',
      file,
      '--authorization-webhook-version',
      'v1',
      '--authorization-webhook-cache-authorized-ttl',
      '1h30m',
      '--authorization-webhook-cache-unauthorized-ttl',
      '500ms',
    ])!;
    expect(c.options).toMatchObject({
      authorizationModes: ['RBAC', 'Webhook'],
      authorizationWebhookConfigFile: file,
      authorizationWebhookVersion: 'v1',
      authorizationWebhookCacheAuthorizedTtlMs: 90 * 60_000,
      authorizationWebhookCacheUnauthorizedTtlMs: 500,
    });
  });

  it.each([
    [['--authorization-mode', 'Webhook'], /the Webhook mode needs --authorization-webhook-config-file/],
    [['--authorization-webhook-version', 'v2'], /"v2" is not v1 or v1beta1/],
    [['--authorization-webhook-cache-authorized-ttl', '5 minutes'], /is not a duration/],
    [['--authorization-webhook-config-file', '/nonexistent/file'], /does not exist/],
  ])('rejects %j', (args, message) => {
    expect(() => parseServeArgs(args)).toThrow(UsageError);
    expect(() => parseServeArgs(args)).toThrow(message);
  });
});
