// Service-account tokens end to end: minted through the TokenRequest subresource
// (authentication.orch.io/v1, as Kubernetes 1.28's TokenRequest), used as bearer tokens, and
// refused (401) when expired, for another audience, signed by a key the server does not
// trust, unsigned, garbage, or naming an account or bound pod that is gone or was recreated.
// Foreign tokens are signed here with jose and keys made by node:crypto.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs, UsageError } from '../src/cli.ts';
import { scratchDir, startServer, type TestServer, uniqueName } from './helpers.ts';

const dir = scratchDir('sa-tokens-');
function pemFile(name: string, key: KeyObject, type: 'pkcs8' | 'spki'): string {
  const p = join(dir, name);
  writeFileSync(p, key.export({ type, format: 'pem' }) as string);
  return p;
}
const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const signer = rsa();
const extra = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const stranger = rsa();
const ISSUER = 'https://orch.test.example';
const OLD_ISSUER = 'https://old.test.example';

/** The user a bearer token authenticates as, or the 401 it gets, through the server's own union. */
async function whoami(s: TestServer, token: string) {
  try {
    return await s.server.authentication.authenticate({ headers: { authorization: `Bearer ${token}` } });
  } catch (e) {
    return { code: (e as { code: number }).code, refusals: (e as { refusals?: string[] }).refusals };
  }
}

/** The HTTP status of a read with the token: 403 once authenticated (no rights), 401 when not. */
async function httpStatus(s: TestServer, token: string): Promise<number> {
  return (await s.req('GET', '/api/v1/namespaces', undefined, { authorization: `Bearer ${token}` })).status;
}

async function account(s: TestServer, ns: string, name: string): Promise<string> {
  const r = await s.req('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name },
  });
  expect(r.status).toBe(201);
  return r.json.metadata.uid;
}

async function tokenRequest(s: TestServer, ns: string, name: string, spec: Record<string, unknown> = {}) {
  return s.req('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.orch.io/v1',
    kind: 'TokenRequest',
    spec,
  });
}

describe('service-account tokens with the defaults (no flags)', () => {
  let s: TestServer;
  const ns = uniqueName('sa');
  beforeAll(async () => {
    s = await startServer();
    await s.req('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
  });
  afterAll(() => s.close());

  it('mints a token shaped as 1.28 and accepts it as system:serviceaccount:<ns>:<name>', async () => {
    const uid = await account(s, ns, 'builder');
    const before = Math.floor(Date.now() / 1000);
    const r = await tokenRequest(s, ns, 'builder');
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      kind: 'TokenRequest',
      apiVersion: 'authentication.orch.io/v1',
      metadata: { name: 'builder', namespace: ns },
      spec: { audiences: ['https://orch.default.svc.cluster.local'], expirationSeconds: 3600 },
    });
    const token: string = r.json.status.token;
    const c = decodeJwt(token);
    expect(c.iss).toBe('https://orch.default.svc.cluster.local');
    expect(c.sub).toBe(`system:serviceaccount:${ns}:builder`);
    expect(c.aud).toEqual(['https://orch.default.svc.cluster.local']);
    expect(c.iat).toBeGreaterThanOrEqual(before);
    expect(c.nbf).toBe(c.iat);
    expect(c.exp).toBe(c.iat! + 3600);
    expect(c.jti).toBeUndefined();
    expect(c['orch.io']).toEqual({ namespace: ns, serviceaccount: { name: 'builder', uid } });
    expect(Date.parse(r.json.status.expirationTimestamp) / 1000).toBe(c.exp);
    expect(decodeProtectedHeader(token).alg).toBe('RS256');
    expect(decodeProtectedHeader(token).kid).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const who = await whoami(s, token);
    expect(who).toMatchObject({
      user: {
        username: `system:serviceaccount:${ns}:builder`,
        uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
      },
      audiences: ['https://orch.default.svc.cluster.local'],
    });
    expect(await httpStatus(s, token)).toBe(403);
    // a token seen before is answered at once (no promise): its signature is not checked twice
    const again = s.server.authentication.authenticate({ headers: { authorization: `Bearer ${token}` } });
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toMatchObject({ user: { username: `system:serviceaccount:${ns}:builder` } });
  });

  it('lists serviceaccounts/token in discovery as a create-only TokenRequest subresource', async () => {
    const r = await s.req('GET', '/api/v1');
    const sub = r.json.resources.find((x: { name: string }) => x.name === 'serviceaccounts/token');
    expect(sub).toMatchObject({
      namespaced: true,
      group: 'authentication.orch.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
  });

  it("answers a TokenRequest written with Kubernetes' group name (the real kubectl) in that name", async () => {
    await account(s, ns, 'kubectl');
    const r = await s.req('POST', `/api/v1/namespaces/${ns}/serviceaccounts/kubectl/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 1200 },
    });
    expect(r.status).toBe(201);
    expect(r.json.apiVersion).toBe('authentication.k8s.io/v1');
    expect(await httpStatus(s, r.json.status.token)).toBe(403);
    const other = await s.req('POST', `/api/v1/namespaces/${ns}/serviceaccounts/kubectl/token`, {
      apiVersion: 'authentication.orch.io/v2',
      kind: 'TokenRequest',
    });
    expect(other.status).toBe(400);
  });

  it('refuses a bad TokenRequest with the 1.28 errors', async () => {
    await account(s, ns, 'short');
    const short = await tokenRequest(s, ns, 'short', { expirationSeconds: 599 });
    expect(short.status).toBe(422);
    expect(short.json.reason).toBe('Invalid');
    expect(short.json.message).toContain('may not specify a duration less than 10 minutes');
    expect((await tokenRequest(s, ns, 'short', { expirationSeconds: 600 })).status).toBe(201);
    expect((await tokenRequest(s, ns, 'short', { expirationSeconds: 2 ** 32 })).status).toBe(422);
    const missing = await tokenRequest(s, ns, 'nobody');
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('serviceaccounts "nobody" not found');
    const node = await tokenRequest(s, ns, 'short', {
      boundObjectRef: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
    });
    expect(node.status).toBe(400);
    expect(node.json.message).toBe('cannot bind token for object of type /v1, Kind=Node');
    const wrongName = await s.req('POST', `/api/v1/namespaces/${ns}/serviceaccounts/short/token`, {
      apiVersion: 'authentication.orch.io/v1',
      kind: 'TokenRequest',
      metadata: { name: 'other' },
      spec: {},
    });
    expect(wrongName.status).toBe(422);
    expect((await s.req('GET', `/api/v1/namespaces/${ns}/serviceaccounts/short/token`)).status).toBe(405);
    expect(
      (await s.req('POST', `/api/v1/namespaces/${ns}/serviceaccounts/short/token`, 'not json')).status,
    ).toBe(400);
    for (const body of [
      [],
      { metadata: 'x' },
      { spec: [] },
      { spec: { audiences: 'x' } },
      { spec: { expirationSeconds: '3600' } },
      { spec: { boundObjectRef: 'p' } },
    ])
      expect(
        (await s.req('POST', `/api/v1/namespaces/${ns}/serviceaccounts/short/token`, body)).status,
        JSON.stringify(body),
      ).toBe(400);
  });
});

describe('service-account tokens with configured keys, issuers and audiences', () => {
  let s: TestServer;
  let now = Date.now();
  const ns = uniqueName('sa');
  beforeAll(async () => {
    s = await startServer({
      serviceAccountSigningKeyFile: pemFile('signer.key', signer.privateKey, 'pkcs8'),
      serviceAccountKeyFiles: [
        pemFile('signer.pub', signer.publicKey, 'spki'),
        pemFile('extra.pub', extra.publicKey, 'spki'),
      ],
      serviceAccountIssuers: [ISSUER, OLD_ISSUER],
      apiAudiences: ['api', 'api-too'],
      clock: () => now,
    });
    await s.req('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
  });
  afterAll(() => s.close());

  /** A token signed here with the claims the server would write. */
  async function forge(key: KeyObject, alg: string, claims: Record<string, unknown>, kid?: string) {
    const iat = Math.floor(now / 1000);
    return new SignJWT({ iss: ISSUER, aud: ['api'], iat, nbf: iat, exp: iat + 3600, ...claims })
      .setProtectedHeader(kid ? { alg, kid } : { alg })
      .sign(key);
  }

  it('signs with the first issuer and the configured key; the API audiences are the default audiences', async () => {
    await account(s, ns, 'a');
    const r = await tokenRequest(s, ns, 'a');
    const c = decodeJwt(r.json.status.token);
    expect(c.iss).toBe(ISSUER);
    expect(c.aud).toEqual(['api', 'api-too']);
    expect((await whoami(s, r.json.status.token)) as object).toHaveProperty(
      'user.username',
      `system:serviceaccount:${ns}:a`,
    );
  });

  it('accepts every issuer and every configured key; refuses other signers, alg none, HMAC and garbage (401)', async () => {
    const uid = await account(s, ns, 'b');
    const claims = {
      sub: `system:serviceaccount:${ns}:b`,
      'orch.io': { namespace: ns, serviceaccount: { name: 'b', uid } },
    };
    expect(await httpStatus(s, await forge(signer.privateKey, 'RS256', { ...claims, iss: OLD_ISSUER }))).toBe(
      403,
    );
    expect(await httpStatus(s, await forge(extra.privateKey, 'ES256', claims))).toBe(403);
    // a key nobody configured, with or without a kid that names a trusted key
    expect(await httpStatus(s, await forge(stranger.privateKey, 'RS256', claims))).toBe(401);
    const trustedKid = decodeProtectedHeader((await tokenRequest(s, ns, 'b')).json.status.token).kid;
    expect(await httpStatus(s, await forge(stranger.privateKey, 'RS256', claims, trustedKid))).toBe(401);
    expect(await httpStatus(s, await forge(stranger.privateKey, 'RS256', claims, 'unknown-kid'))).toBe(401);
    // alg none
    const iat = Math.floor(now / 1000);
    const unsigned = new UnsecuredJWT({
      ...claims,
      iss: ISSUER,
      aud: ['api'],
      iat,
      nbf: iat,
      exp: iat + 3600,
    }).encode();
    expect(await httpStatus(s, unsigned)).toBe(401);
    // HMAC keyed with the public key's PEM (the classic algorithm confusion)
    const pub = Buffer.from(signer.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    expect(await httpStatus(s, await forge(pub as unknown as KeyObject, 'HS256', claims))).toBe(401);
    // a good token with its signature damaged
    const good = (await tokenRequest(s, ns, 'b')).json.status.token as string;
    expect(await httpStatus(s, good)).toBe(403);
    expect(await httpStatus(s, `${good.slice(0, -4)}AAAA`)).toBe(401);
    // garbage
    for (const g of [
      'garbage',
      'a.b.c',
      `${good.split('.')[0]}.!!!.x`,
      'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOjF9.x',
    ])
      expect(await httpStatus(s, g)).toBe(401);
    // an issuer the server does not accept: not a service-account token, and no other method knows it
    expect(
      await httpStatus(s, await forge(signer.privateKey, 'RS256', { ...claims, iss: 'https://elsewhere' })),
    ).toBe(401);
  });

  it('refuses tokens without the orch.io claim, without exp, or whose subject is not the account', async () => {
    const uid = await account(s, ns, 'c');
    const priv = { 'orch.io': { namespace: ns, serviceaccount: { name: 'c', uid } } };
    expect(
      await httpStatus(
        s,
        await forge(signer.privateKey, 'RS256', { sub: `system:serviceaccount:${ns}:c`, ...priv }),
      ),
    ).toBe(403);
    expect(
      await httpStatus(s, await forge(signer.privateKey, 'RS256', { sub: `system:serviceaccount:${ns}:c` })),
    ).toBe(401);
    expect(
      await httpStatus(
        s,
        await forge(signer.privateKey, 'RS256', {
          sub: `system:serviceaccount:${ns}:c`,
          ...priv,
          exp: undefined,
        }),
      ),
    ).toBe(401);
    expect(
      await httpStatus(
        s,
        await forge(signer.privateKey, 'RS256', { sub: 'system:serviceaccount:other:c', ...priv }),
      ),
    ).toBe(401);
  });

  it('refuses a token for another audience (401)', async () => {
    await account(s, ns, 'd');
    const r = await tokenRequest(s, ns, 'd', { audiences: ['vault'] });
    expect(r.json.spec.audiences).toEqual(['vault']);
    expect(await httpStatus(s, r.json.status.token)).toBe(401);
    const both = await tokenRequest(s, ns, 'd', { audiences: ['vault', 'api-too'] });
    expect(await whoami(s, both.json.status.token)).toMatchObject({ audiences: ['api-too'] });
  });

  it('refuses an expired token, past one minute of skew, and one not yet valid', async () => {
    await account(s, ns, 'e');
    const r = await tokenRequest(s, ns, 'e', { expirationSeconds: 600 });
    const token = r.json.status.token as string;
    const start = now;
    try {
      now = start + 600_000 + 30_000;
      expect(await httpStatus(s, token)).toBe(403);
      now = start + 600_000 + 62_000;
      expect(await httpStatus(s, token)).toBe(401);
      now = start - 62_000;
      expect(await httpStatus(s, token)).toBe(401);
    } finally {
      now = start;
    }
  });

  it('refuses the tokens of a deleted account, also once one of the same name is recreated', async () => {
    await account(s, ns, 'f');
    const token = (await tokenRequest(s, ns, 'f')).json.status.token as string;
    expect(await httpStatus(s, token)).toBe(403);
    expect((await s.req('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/f`)).status).toBe(200);
    expect(await httpStatus(s, token)).toBe(401);
    await account(s, ns, 'f');
    expect(await httpStatus(s, token)).toBe(401);
  });

  it('binds a token to a pod: extra pod-name and pod-uid; refused once the pod is gone; uid and account checked', async () => {
    await account(s, ns, 'g');
    const pod = await s.req('POST', `/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { serviceAccountName: 'g', containers: [{ name: 'c', image: 'busybox' }] },
    });
    expect(pod.status).toBe(201);
    const podUid = pod.json.metadata.uid;
    const bad = await tokenRequest(s, ns, 'g', {
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'not-the-uid' },
    });
    expect(bad.status).toBe(409);
    expect(bad.json.message).toContain('does not match the UID in record');
    await account(s, ns, 'h');
    const other = await tokenRequest(s, ns, 'h', {
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p' },
    });
    expect(other.status).toBe(400);
    expect(other.json.message).toBe(
      'cannot bind token for serviceaccount "h" to pod running with different serviceaccount name.',
    );
    expect(
      (await tokenRequest(s, ns, 'g', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'nope' } }))
        .status,
    ).toBe(404);

    const r = await tokenRequest(s, ns, 'g', {
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: podUid },
    });
    expect(r.status).toBe(201);
    const token = r.json.status.token as string;
    expect(decodeJwt(token)['orch.io']).toMatchObject({ pod: { name: 'p', uid: podUid } });
    expect(await whoami(s, token)).toMatchObject({
      user: {
        extra: { 'authentication.orch.io/pod-name': ['p'], 'authentication.orch.io/pod-uid': [podUid] },
      },
    });
    expect((await s.req('DELETE', `/api/v1/namespaces/${ns}/pods/p?gracePeriodSeconds=0`)).status).toBe(200);
    expect(await httpStatus(s, token)).toBe(401);
  });

  it('binds a token to a secret, refused once the secret is gone', async () => {
    await account(s, ns, 'i');
    const sec = await s.req('POST', `/api/v1/namespaces/${ns}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'sec' },
    });
    const r = await tokenRequest(s, ns, 'i', {
      boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 'sec' },
    });
    expect(decodeJwt(r.json.status.token)['orch.io']).toMatchObject({
      secret: { name: 'sec', uid: sec.json.metadata.uid },
    });
    expect(await httpStatus(s, r.json.status.token)).toBe(403);
    await s.req('DELETE', `/api/v1/namespaces/${ns}/secrets/sec`);
    expect(await httpStatus(s, r.json.status.token)).toBe(401);
  });
});

describe('--service-account-lookup=false', () => {
  let s: TestServer;
  const ns = uniqueName('sa');
  beforeAll(async () => {
    s = await startServer({ serviceAccountLookup: false });
    await s.req('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
  });
  afterAll(() => s.close());

  it('keeps accepting the token of a deleted account', async () => {
    await account(s, ns, 'gone');
    const token = (await tokenRequest(s, ns, 'gone')).json.status.token as string;
    await s.req('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/gone`);
    expect(await httpStatus(s, token)).toBe(403);
  });
});

describe('the signing key of a server with a data directory', () => {
  const dataDir = scratchDir('sa-data-');
  it('is generated once, kept, and still verifies the tokens it signed after a restart', async () => {
    const ns = uniqueName('sa');
    const first = await startServer({ inMemory: false, dataDir, fsync: false });
    let token: string;
    try {
      await first.req('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      });
      await account(first, ns, 'kept');
      token = (await tokenRequest(first, ns, 'kept')).json.status.token;
      expect(await httpStatus(first, token)).toBe(403);
    } finally {
      await first.close();
    }
    const second = await startServer({ inMemory: false, dataDir, fsync: false });
    try {
      expect(await httpStatus(second, token)).toBe(403);
      const again = (await tokenRequest(second, ns, 'kept')).json.status.token as string;
      expect(decodeProtectedHeader(again).kid).toBe(decodeProtectedHeader(token).kid);
    } finally {
      await second.close();
    }
  });
});

describe('without --service-account-key-file', () => {
  it('the TLS key verifies tokens (as well as the signing key)', async () => {
    const tlsKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ns = uniqueName('sa');
    const s = await startServer({
      tlsKey: tlsKey.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    });
    try {
      await s.req('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      });
      const uid = await account(s, ns, 'tls');
      const iat = Math.floor(Date.now() / 1000);
      const claims = {
        iss: 'https://orch.default.svc.cluster.local',
        aud: ['https://orch.default.svc.cluster.local'],
        sub: `system:serviceaccount:${ns}:tls`,
        iat,
        nbf: iat,
        exp: iat + 600,
        'orch.io': { namespace: ns, serviceaccount: { name: 'tls', uid } },
      };
      const byTls = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(tlsKey.privateKey);
      expect(await httpStatus(s, byTls)).toBe(403);
      const byStranger = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256' })
        .sign(stranger.privateKey);
      expect(await httpStatus(s, byStranger)).toBe(401);
    } finally {
      await s.close();
    }
  });
});

describe('service-account flags', () => {
  const key = pemFile('flag.key', signer.privateKey, 'pkcs8');
  it('parses them into the server options', () => {
    const cfg = parseServeArgs(
      [
        `--service-account-signing-key-file=${key}`,
        `--service-account-key-file=${key}`,
        '--service-account-key-file',
        key,
        '--service-account-issuer=https://a.example',
        '--service-account-issuer=https://b.example',
        '--api-audiences=x,y',
        '--service-account-lookup=false',
      ],
      dir,
    )!;
    expect(cfg.options).toMatchObject({
      serviceAccountSigningKeyFile: key,
      serviceAccountKeyFiles: [key, key],
      serviceAccountIssuers: ['https://a.example', 'https://b.example'],
      apiAudiences: ['x', 'y'],
      serviceAccountLookup: false,
    });
  });

  it('refuses bad values with a usage error', () => {
    const notKey = join(dir, 'not-a-key.pem');
    writeFileSync(notKey, 'hello');
    for (const bad of [
      ['--service-account-issuer=http://plain.example'],
      ['--service-account-issuer=https://'],
      ['--service-account-lookup=maybe'],
      ['--service-account-key-file=/nonexistent/key.pem'],
      ['--api-audiences=a,,b'],
      [`--service-account-signing-key-file=${notKey}`],
      [`--service-account-key-file=${notKey}`],
      [`--service-account-signing-key-file=${pemFile('pub-as-signer.pem', signer.publicKey, 'spki')}`],
    ])
      expect(() => parseServeArgs(bad, dir), bad.join(' ')).toThrow(UsageError);
  });
});
