// Client certificates (`--client-ca-file`, doc3 "Authentication"): over real TLS, the server
// asks for a certificate without requiring one; a certificate the client CAs verify names
// the user (subject CN) and its groups (each O); an untrusted, expired, not yet valid,
// wrong-usage or CN-less certificate is a 401, never anonymous; and real kubectl with
// client-certificate-data in its kubeconfig acts as that user.
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../src/cli.ts';
import { build } from '../src/index.ts';
import { type Issued, issue, makeCa } from './cert-helpers.ts';
import { startServer, type TestServer } from './helpers.ts';
import { findKubectl, kubectlMissing } from './kubectl-bin.ts';

const DAY = 24 * 3600 * 1000;
const dir = mkdtempSync(join(tmpdir(), 'orch-x509-'));
let ts: TestServer;
let clientCa: Issued;
let otherCa: Issued;
let secondCa: Issued;

beforeAll(async () => {
  clientCa = await makeCa('client-ca');
  secondCa = await makeCa('second-client-ca');
  otherCa = await makeCa('not-trusted-ca');
  // a bundle of two CAs: certificates of either authenticate
  writeFileSync(join(dir, 'client-ca.pem'), clientCa.certPem + secondCa.certPem);
  ts = await startServer({
    tls: true,
    clientCaFile: join(dir, 'client-ca.pem'),
    auditInMemory: 200,
    anonymous: true,
  });
});
afterAll(async () => {
  await ts?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  json: any;
}

async function call(
  client: { cert?: string; key?: string } | undefined,
  path: string,
  token?: string,
): Promise<Answer> {
  const dispatcher = new Agent({ connect: { ca: ts.server.caPem, ...client } });
  try {
    const r = await request(ts.url + path, {
      dispatcher,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    const text = await r.body.text();
    return { status: r.statusCode, json: text ? JSON.parse(text) : undefined };
  } finally {
    await dispatcher.close();
  }
}
const withCert = (c: Issued, chain = '') => ({ cert: c.certPem + chain, key: c.keyPem });
const lastUser = (name: string) =>
  ts.server.audit!.events.filter((e) => e.user?.username === name).at(-1)?.user;

describe('client certificates over real TLS', () => {
  it('a certificate of the client CA: user = CN, groups = each O, plus system:authenticated', async () => {
    const jane = await issue(clientCa, { subject: 'CN=jane, O=system:masters, O=team-a' });
    const r = await call(withCert(jane), '/api/v1/namespaces');
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.kind).toBe('NamespaceList');
    expect(lastUser('jane')).toEqual({
      username: 'jane',
      groups: ['system:masters', 'team-a', 'system:authenticated'],
    });
  });

  it('several O values each become a group; without system:masters the user is known but forbidden', async () => {
    const joe = await issue(clientCa, { subject: 'CN=joe, O=dev, O=ops, O=qa' });
    const r = await call(withCert(joe), '/api/v1/namespaces');
    expect(r.status).toBe(403);
    expect(r.json.message).toContain('User "joe"');
    expect(lastUser('joe')).toEqual({
      username: 'joe',
      groups: ['dev', 'ops', 'qa', 'system:authenticated'],
    });
  });

  it('any CA of the bundle verifies; an intermediate sent with the leaf is followed to the CA', async () => {
    const amy = await issue(secondCa, { subject: 'CN=amy, O=system:masters' });
    expect((await call(withCert(amy), '/api/v1/namespaces')).status).toBe(200);
    const mid = await issue(clientCa, { subject: 'CN=intermediate', isCa: true });
    const leaf = await issue(mid, { subject: 'CN=via-intermediate, O=system:masters' });
    expect((await call(withCert(leaf, mid.certPem), '/api/v1/namespaces')).status).toBe(200);
    expect(lastUser('via-intermediate')?.groups).toContain('system:masters');
  });

  it('no certificate: the request is anonymous (the listener does not require one)', async () => {
    const r = await call(undefined, '/api/v1/namespaces');
    expect(r.status).toBe(403);
    expect(r.json.message).toContain('User "system:anonymous"');
  });

  const refused: [string, () => Promise<{ cert: string; key: string }>][] = [
    [
      'expired',
      async () =>
        withCert(
          await issue(clientCa, {
            subject: 'CN=old, O=system:masters',
            notBefore: new Date(Date.now() - 10 * DAY),
            notAfter: new Date(Date.now() - DAY),
          }),
        ),
    ],
    [
      'not yet valid',
      async () =>
        withCert(
          await issue(clientCa, {
            subject: 'CN=early, O=system:masters',
            notBefore: new Date(Date.now() + DAY),
            notAfter: new Date(Date.now() + 10 * DAY),
          }),
        ),
    ],
    [
      'issued by a CA that is not a client CA',
      async () => withCert(await issue(otherCa, { subject: 'CN=mallory, O=system:masters' })),
    ],
    [
      'for server authentication only',
      async () =>
        withCert(
          await issue(clientCa, {
            subject: 'CN=server-only, O=system:masters',
            usages: [x509.ExtendedKeyUsage.serverAuth],
          }),
        ),
    ],
    [
      "self-signed, claiming the client CA's name",
      async () => {
        const fake = await makeCa('client-ca');
        return withCert(await issue(fake, { subject: 'CN=forger, O=system:masters' }));
      },
    ],
  ];
  it.each(refused)('a certificate %s is a 401 Unauthorized, not anonymous', async (_what, make) => {
    const r = await call(await make(), '/version');
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
  });

  it('a trusted certificate without a subject common name names no user: the request is anonymous, its O no group', async () => {
    // Kubernetes' common-name conversion answers "not mine" (no error) for a certificate without CN
    const cert = withCert(await issue(clientCa, { subject: 'O=system:masters' }));
    const r = await call(cert, '/api/v1/namespaces');
    expect(r.status).toBe(403);
    expect(r.json.message).toContain('User "system:anonymous"');
    expect((await call(cert, '/version')).status).toBe(200);
  });

  it('an untrusted certificate with a valid bearer token: the token authenticates', async () => {
    const mallory = await issue(otherCa, { subject: 'CN=mallory' });
    const r = await call(withCert(mallory), '/api/v1/namespaces', ts.token);
    expect(r.status).toBe(200);
  });
});

describe('client CA configuration', () => {
  it('a missing or certificate-less bundle stops the server, naming the flag and file', async () => {
    await expect(build({ inMemory: true, clientCaFile: join(dir, 'absent.pem') })).rejects.toThrow(
      /--client-ca-file: cannot read .*absent\.pem/,
    );
    writeFileSync(join(dir, 'empty.pem'), 'no certificates here\n');
    await expect(build({ inMemory: true, clientCaFile: join(dir, 'empty.pem') })).rejects.toThrow(
      /--client-ca-file: .*empty\.pem holds no PEM CERTIFICATE block/,
    );
  });

  it('the flag is parsed as a path and needs HTTPS', () => {
    expect(parseServeArgs(['--client-ca-file', 'ca.pem'], '/x')!.options.clientCaFile).toBe('/x/ca.pem');
    expect(() => parseServeArgs(['--client-ca-file', 'ca.pem', '--insecure-http'])).toThrow(/needs HTTPS/);
  });
});

describe('kubectl with a client certificate', () => {
  const bin = findKubectl();
  it("kubectl get namespaces runs as the certificate's user", async () => {
    expect(kubectlMissing(bin), kubectlMissing(bin)).toBeUndefined();
    const user = await issue(clientCa, { subject: 'CN=kube-user, O=system:masters' });
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'c', cluster: { server: ts.url, 'certificate-authority-data': b64(ts.server.caPem!) } },
        ],
        users: [
          {
            name: 'u',
            user: { 'client-certificate-data': b64(user.certPem), 'client-key-data': b64(user.keyPem) },
          },
        ],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const run = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          bin!,
          [
            '--kubeconfig',
            kubeconfig,
            '--cache-dir',
            join(dir, 'cache'),
            '--request-timeout',
            '20s',
            ...args,
          ],
          { env: { ...process.env, HOME: dir }, timeout: 60_000 },
          (err, stdout, stderr) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const r = await run('get', 'namespaces', '-o', 'name');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('namespace/default');
    expect(lastUser('kube-user')?.groups).toEqual(['system:masters', 'system:authenticated']);
  }, 90_000);
});
