// The authenticating proxy (`--requestheader-*`, doc3 "Authentication") over real TLS: the
// user named in headers counts only when the request's certificate is verified by the
// request-header CA (not merely the client CA) and has an allowed CN; username headers are
// ordered and case-insensitive (first non-empty wins), every group header value is a group,
// extra headers lose the prefix and are lower-cased and percent-decoded. Headers of any other
// request are ignored.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs, UsageError } from '../src/cli.ts';
import { build } from '../src/index.ts';
import { type Issued, issue, makeCa } from './cert-helpers.ts';
import { startServer, type TestServer } from './helpers.ts';

const DAY = 24 * 3600 * 1000;
const dir = mkdtempSync(join(tmpdir(), 'orch-rh-'));
let ts: TestServer;
let clientCa: Issued;
let proxyCa: Issued;
let proxy: Issued;

beforeAll(async () => {
  clientCa = await makeCa('client-ca');
  proxyCa = await makeCa('front-proxy-ca');
  proxy = await issue(proxyCa, { subject: 'CN=front-proxy' });
  writeFileSync(join(dir, 'client-ca.pem'), clientCa.certPem);
  writeFileSync(join(dir, 'proxy-ca.pem'), proxyCa.certPem);
  ts = await startServer({
    tls: true,
    anonymous: true,
    auditInMemory: 200,
    clientCaFile: join(dir, 'client-ca.pem'),
    requestheaderClientCaFile: join(dir, 'proxy-ca.pem'),
    requestheaderAllowedNames: ['front-proxy', 'other-proxy'],
    requestheaderUsernameHeaders: ['X-Remote-User', 'X-Proxy-User'],
    requestheaderGroupHeaders: ['X-Remote-Group'],
    requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
  });
});
afterAll(async () => {
  await ts?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  cert: Issued | undefined,
  headers: Record<string, string | string[]>,
  path = '/api/v1/namespaces',
  server = ts,
): Promise<{ status: number; json: any }> {
  const dispatcher = new Agent({
    connect: { ca: server.server.caPem, ...(cert ? { cert: cert.certPem, key: cert.keyPem } : {}) },
  });
  try {
    const r = await request(server.url + path, { dispatcher, headers });
    const text = await r.body.text();
    return { status: r.statusCode, json: text ? JSON.parse(text) : undefined };
  } finally {
    await dispatcher.close();
  }
}
const lastEvent = (server = ts) => server.server.audit!.events.at(-1)!;

describe('authenticating proxy', () => {
  it('a verified proxy names the user, its groups (every value) and extras (decoded keys, every value)', async () => {
    const r = await call(proxy, {
      'X-Remote-User': 'alice',
      'X-Remote-Group': ['system:masters', 'team, with comma'],
      'X-Remote-Extra-Scopes': ['read', 'write'],
      'X-Remote-Extra-Acme.com%2FProject': 'p1',
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(lastEvent().user).toEqual({
      username: 'alice',
      groups: ['system:masters', 'team, with comma', 'system:authenticated'],
      extra: { scopes: ['read', 'write'], 'acme.com/project': ['p1'] },
    });
  });

  it('username headers in order, case-insensitive: the first non-empty value wins', async () => {
    await call(proxy, { 'x-remote-user': '', 'x-proxy-user': 'bob' });
    expect(lastEvent().user.username).toBe('bob');
    await call(proxy, { 'X-PROXY-USER': 'dave', 'x-remote-user': 'carol' });
    expect(lastEvent().user.username).toBe('carol');
  });

  it('a proxy certificate whose CN is not allowed: the headers are ignored (401 alone, the token decides with one)', async () => {
    const rogue = await issue(proxyCa, { subject: 'CN=rogue-proxy' });
    const r = await call(rogue, { 'X-Remote-User': 'alice', 'X-Remote-Group': 'system:masters' }, '/version');
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const withToken = await call(rogue, { 'X-Remote-User': 'alice', authorization: `Bearer ${ts.token}` });
    expect(withToken.status).toBe(200);
    expect(lastEvent().user.username).toBe('orch-admin');
  });

  it('a certificate of the client CA (not the request-header CA) is its own user; the headers are ignored', async () => {
    // same CN as an allowed proxy name: the CA decides, not the name
    const jane = await issue(clientCa, { subject: 'CN=front-proxy, O=system:masters' });
    const r = await call(jane, { 'X-Remote-User': 'alice', 'X-Remote-Group': 'other' });
    expect(r.status).toBe(200);
    expect(lastEvent().user).toEqual({
      username: 'front-proxy',
      groups: ['system:masters', 'system:authenticated'],
    });
  });

  it('no certificate: the headers are ignored and the request is anonymous', async () => {
    const r = await call(undefined, { 'X-Remote-User': 'alice', 'X-Remote-Group': 'system:masters' });
    expect(r.status).toBe(403);
    expect(r.json.message).toContain('User "system:anonymous"');
  });

  it('an expired proxy certificate, or one of another CA with an allowed CN, is a 401', async () => {
    const old = await issue(proxyCa, {
      subject: 'CN=front-proxy',
      notBefore: new Date(Date.now() - 10 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    expect((await call(old, { 'X-Remote-User': 'alice' }, '/version')).status).toBe(401);
    const forged = await issue(await makeCa('front-proxy-ca'), { subject: 'CN=front-proxy' });
    expect((await call(forged, { 'X-Remote-User': 'alice' }, '/version')).status).toBe(401);
  });

  it('a verified proxy request without a user name header is not a proxy request (its certificate is no client certificate: 401)', async () => {
    const r = await call(proxy, { 'X-Remote-Group': 'system:masters' }, '/version');
    expect(r.status).toBe(401);
  });

  it('without allowed names any CN the request-header CA verifies may proxy', async () => {
    const open = await startServer({
      tls: true,
      auditInMemory: 10,
      requestheaderClientCaFile: join(dir, 'proxy-ca.pem'),
      requestheaderUsernameHeaders: ['X-Remote-User'],
    });
    try {
      const anyName = await issue(proxyCa, { subject: 'CN=whatever' });
      const r = await call(
        anyName,
        { 'X-Remote-User': 'erin', 'X-Remote-Group': 'system:masters' },
        '/version',
        open,
      );
      expect(r.status).toBe(200);
      // no group headers configured: none taken
      expect(lastEvent(open).user).toEqual({ username: 'erin', groups: ['system:authenticated'] });
    } finally {
      await open.close();
    }
  });
});

describe('request-header flags', () => {
  it('the CA file and the username headers are required together', async () => {
    expect(() => parseServeArgs(['--requestheader-username-headers', 'X-Remote-User'])).toThrow(UsageError);
    expect(() => parseServeArgs(['--requestheader-username-headers', 'X-Remote-User'])).toThrow(
      /--requestheader-client-ca-file is required/,
    );
    expect(() => parseServeArgs(['--requestheader-client-ca-file', 'ca.pem'])).toThrow(
      /--requestheader-username-headers is required/,
    );
    await expect(
      build({ inMemory: true, requestheaderClientCaFile: join(dir, 'proxy-ca.pem') }),
    ).rejects.toThrow(/--requestheader-username-headers is required/);
  });

  it('lists are comma-separated and repeatable', () => {
    const c = parseServeArgs(
      [
        '--requestheader-client-ca-file',
        'p.pem',
        '--requestheader-username-headers',
        'X-Remote-User,X-User',
        '--requestheader-username-headers',
        'X-Third',
        '--requestheader-group-headers',
        'X-Remote-Group',
        '--requestheader-extra-headers-prefix',
        'X-Remote-Extra-',
        '--requestheader-allowed-names',
        'front-proxy, other',
      ],
      '/d',
    )!;
    expect(c.options).toMatchObject({
      requestheaderClientCaFile: '/d/p.pem',
      requestheaderUsernameHeaders: ['X-Remote-User', 'X-User', 'X-Third'],
      requestheaderGroupHeaders: ['X-Remote-Group'],
      requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
      requestheaderAllowedNames: ['front-proxy', 'other'],
    });
  });
});
