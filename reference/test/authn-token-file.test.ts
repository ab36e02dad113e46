// `--token-auth-file` (doc3 "Authentication", static token file): a CSV of token, user name,
// user uid and optionally one field of group names; read at start, a malformed file stops
// the server with the file and line; tokens it holds authenticate (plus
// system:authenticated), an unknown token is a 401 and never anonymous.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTokenFile } from '../src/authentication/token-file-load.ts';
import { parseServeArgs, serve, UsageError } from '../src/cli.ts';
import { build } from '../src/index.ts';
import { startServer, type TestServer } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'orch-tokenfile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(text: string): string {
  const p = join(dir, `tokens-${++n}.csv`);
  writeFileSync(p, text);
  return p;
}

describe('token file format', () => {
  it('token, user, uid, then one field of groups (quoted when several); more columns ignored', () => {
    const t = parseTokenFile(
      [
        'tok1,alice,uid-1',
        'tok2,bob,uid-2,"dev,ops"',
        'tok3,carol,uid-3,solo,ignored,also-ignored',
        '',
        '  tok4,  dave,  uid-4, "a,b"',
      ].join('\n'),
      'f.csv',
    );
    expect(t.get('tok1')).toEqual({ username: 'alice', uid: 'uid-1', groups: [] });
    expect(t.get('tok2')).toEqual({ username: 'bob', uid: 'uid-2', groups: ['dev', 'ops'] });
    expect(t.get('tok3')).toEqual({ username: 'carol', uid: 'uid-3', groups: ['solo'] });
    // leading spaces of a field are dropped
    expect(t.get('tok4')).toEqual({ username: 'dave', uid: 'uid-4', groups: ['a', 'b'] });
    expect(t.size).toBe(4);
  });

  it('a quoted field may hold quotes ("") and commas; CRLF line ends are accepted', () => {
    const t = parseTokenFile('"to,k","a ""b""",u\r\nx,y,z\r\n', 'f.csv');
    expect(t.get('to,k')).toEqual({ username: 'a "b"', uid: 'u', groups: [] });
    expect(t.get('x')?.username).toBe('y');
  });

  it('a record with an empty token is skipped; a later record with the same token wins', () => {
    const t = parseTokenFile(',nobody,u0\nsame,first,u1\nsame,second,u2\n', 'f.csv');
    expect(t.has('')).toBe(false);
    expect(t.get('same')?.username).toBe('second');
  });

  it('fewer than three columns: an error naming the file and the line', () => {
    expect(() => parseTokenFile('a,b,c\n\nonly,two\n', '/etc/tokens.csv')).toThrow(
      /\/etc\/tokens\.csv line 3: must have at least 3 columns \(token, user name, user uid\), found 2/,
    );
  });

  it('CSV syntax errors (a bare quote, an unterminated quoted field) name the line', () => {
    expect(() => parseTokenFile('a,b,c\nt,us"er,u\n', 'x.csv')).toThrow(
      /^--token-auth-file: x\.csv: .*quote.* at line 2/i,
    );
    expect(() => parseTokenFile('a,b,c\nt,u,v,"g1,g2\n', 'x.csv')).toThrow(
      /^--token-auth-file: x\.csv: .*quote.* line 2/i,
    );
    // text after a closing quote (a space included) is an error, as in the CSV format
    expect(() => parseTokenFile('t,u,v,"g" \n', 'x.csv')).toThrow(
      /^--token-auth-file: x\.csv: .*quote.* at line 1/i,
    );
    expect(() => parseTokenFile('t,"u"x,v\n', 'x.csv')).toThrow(
      /^--token-auth-file: x\.csv: .*quote.* at line 1/i,
    );
  });
});

describe('token file on a real server', () => {
  let ts: TestServer;
  beforeAll(async () => {
    const path = file(
      ['admin-tok,root-user,uid-root,system:masters', 'dev-tok,dev-user,uid-dev,"team-a,team-b"'].join('\n'),
    );
    ts = await startServer({ tokenAuthFile: path, auditInMemory: 100, anonymous: true });
  });
  afterAll(() => ts?.close());

  const as = (token: string, path = '/api/v1/namespaces') =>
    request(ts.url + path, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({
      status: r.statusCode,
      json: (await r.body.json()) as any,
    }));

  it('a token of the file authenticates as its user, uid and groups plus system:authenticated', async () => {
    const r = await as('admin-tok');
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('NamespaceList');
    const dev = await as('dev-tok');
    // authenticated (not 401) but not authorized to list namespaces: 403 naming the user
    expect(dev.status).toBe(403);
    expect(dev.json.message).toContain('User "dev-user"');
    const events = ts.server.audit!.events;
    const byUser = (u: string) => events.filter((e) => e.user?.username === u).at(-1)!;
    expect(byUser('root-user').user).toEqual({
      username: 'root-user',
      uid: 'uid-root',
      groups: ['system:masters', 'system:authenticated'],
    });
    expect(byUser('dev-user').user).toEqual({
      username: 'dev-user',
      uid: 'uid-dev',
      groups: ['team-a', 'team-b', 'system:authenticated'],
    });
  });

  it('the admin token still works beside the file', async () => {
    expect((await as(ts.token)).status).toBe(200);
  });

  it('an unknown token is 401 Unauthorized, not anonymous (anonymous access is on)', async () => {
    const r = await as('not-in-the-file', '/version');
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    // the same path without a token is served to anonymous
    const anon = await request(`${ts.url}/version`);
    expect(anon.statusCode).toBe(200);
    await anon.body.dump();
  });
});

describe('malformed or missing token file', () => {
  it('the server does not start: the error names the file and the line', async () => {
    const path = file('good,user,uid\nbad-line\n');
    await expect(build({ inMemory: true, tls: false, tokenAuthFile: path })).rejects.toThrow(
      `--token-auth-file: ${path} line 2: must have at least 3 columns (token, user name, user uid), found 1`,
    );
    await expect(
      build({ inMemory: true, tls: false, tokenAuthFile: join(dir, 'absent.csv') }),
    ).rejects.toThrow(/--token-auth-file: cannot read .*absent\.csv/);
  });

  it('serve reports it as a usage error (exit code 2, no stack)', async () => {
    const path = file('t,"u\n');
    const cfg = parseServeArgs(
      ['--in-memory', '--port', '0', '--token-auth-file', path, '--data-dir', dir],
      '/',
    )!;
    expect(cfg.options.tokenAuthFile).toBe(path);
    await expect(serve(cfg)).rejects.toBeInstanceOf(UsageError);
    expect(() => parseServeArgs(['--token-auth-file', ''])).toThrow(/--token-auth-file: must not be empty/);
  });
});
