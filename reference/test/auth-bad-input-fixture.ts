// The server of the authentication bad-input test: one HTTPS reference server with every
// authentication method on (client CA, token file, bootstrap tokens, service-account keys,
// OIDC with an issuer served over HTTPS here, a token webhook served here, the authenticating
// proxy's CA) and RBAC, the identities each method knows, and a secret only those identities
// may read. Requests go out on raw TLS sockets, headers exactly as written (repeated headers,
// non-ASCII bytes, empty values), with or without a client certificate.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, exportJWK, SignJWT } from 'jose';
import { stringify } from 'yaml';
import { generateCertificate } from '../src/http/tls.ts';
import { type RawReply, rawExchange } from './bad-input-helpers.ts';
import { csrPem, type Issued, issue, makeCa } from './cert-helpers.ts';
import { startServer, type TestServer } from './helpers.ts';

const DAY = 24 * 3600 * 1000;
export const NS = 'abi';
export const TARGET = `/api/v1/namespaces/${NS}/secrets/target`;
/** The target secret's value: a reply holding it has read the secret. */
export const SECRET_VALUE = 'the-target-secret-value';
export const SA_ISSUER = 'https://orch.default.svc.cluster.local';
export const OIDC_CLIENT = 'orch-client';
export const OIDC_EMAIL = 'alice@example.com';
export const TOKENS = { alice: 'Alice-Token-1', imp: 'Imp-Token-1', nobody: 'Nobody-Token-1' } as const;
export const BOOTSTRAP = { id: 'abcdef', secret: '0123456789abcdef' } as const;
export const WEBHOOK_TOKEN = 'webhook-good-token';
export const BOOTSTRAP_NS = 'orch-system';
export const CSR_PATH = '/apis/certificates.orch.io/v1/certificatesigningrequests';
/** A pending CertificateSigningRequest the approval rows act on. */
export const PENDING_CSR = 'abi-pending';

export interface Attempt {
  method: string;
  path: string;
  /** Header lines in order, repeats kept; a Buffer value is written byte for byte. */
  headers?: [string, string | Buffer][];
  body?: string | Buffer;
  /** A client certificate for the TLS handshake. */
  cert?: Issued;
}

export interface Fixture {
  t: TestServer;
  admin: string;
  certs: {
    alice: Issued;
    otherCa: Issued;
    expired: Issued;
    noCn: Issued;
    clientCa: Issued;
    proxy: Issued;
    rogueProxy: Issued;
  };
  /** A token minted through TokenRequest for the service account abi/reader. */
  saToken: string;
  /** A token of the service account abi/gone, deleted after minting. */
  deletedSaToken: string;
  /** The server's service-account signing key (PEM of its public half too). */
  saKey: { privateKey: KeyObject; publicPem: string };
  /** Signs a service-account token with the server's key: the reader's claims with overrides. */
  signSa(claims?: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** An ID token of the issuer (email alice@example.com, verified, an hour long) with overrides. */
  oidcToken(
    claims?: Record<string, unknown>,
    key?: KeyObject,
    header?: Record<string, unknown>,
  ): Promise<string>;
  send(a: Attempt): Promise<RawReply>;
  /** As the admin. */
  adminReq(method: string, path: string, body?: unknown): Promise<RawReply>;
  close(): Promise<void>;
}

async function httpsServer(
  handler: (path: string, body: string) => { code: number; body: unknown },
): Promise<{ url: string; ca: string; server: Server }> {
  const tls = await generateCertificate(['127.0.0.1']);
  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const a = handler(req.url ?? '/', Buffer.concat(chunks).toString('utf8'));
      res.writeHead(a.code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca: tls.ca, server };
}

function head(a: Attempt): Buffer {
  const lines: Buffer[] = [
    Buffer.from(`${a.method} ${a.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`),
  ];
  const headers = [...(a.headers ?? [])];
  if (a.body !== undefined) {
    if (!headers.some(([k]) => k.toLowerCase() === 'content-type'))
      headers.push(['Content-Type', 'application/json']);
    headers.push(['Content-Length', String(Buffer.byteLength(a.body))]);
  }
  for (const [k, v] of headers)
    lines.push(Buffer.from(`${k}: `), Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8'), Buffer.from('\r\n'));
  lines.push(Buffer.from('\r\n'));
  return Buffer.concat(lines);
}

function sendTls(url: string, a: Attempt): Promise<RawReply> {
  return rawExchange(url, head(a), a.body, {
    timeoutMs: 20_000,
    tls: a.cert ? { cert: a.cert.certPem, key: a.cert.keyPem } : {},
  });
}

export async function startFixture(): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-abi-'));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  // certificates
  const clientCa = await makeCa('abi-client-ca');
  const proxyCa = await makeCa('abi-proxy-ca');
  const otherCaRoot = await makeCa('abi-client-ca');
  const certs: Fixture['certs'] = {
    alice: await issue(clientCa, { subject: 'CN=cert-alice' }),
    otherCa: await issue(otherCaRoot, { subject: 'CN=cert-alice, O=system:masters' }),
    expired: await issue(clientCa, {
      subject: 'CN=cert-alice, O=system:masters',
      notBefore: new Date(Date.now() - 10 * DAY),
      notAfter: new Date(Date.now() - DAY),
    }),
    noCn: await issue(clientCa, { subject: 'O=system:masters' }),
    clientCa,
    proxy: await issue(proxyCa, { subject: 'CN=front-proxy' }),
    rogueProxy: await issue(proxyCa, { subject: 'CN=rogue-proxy' }),
  };

  // the OIDC issuer and its key
  const oidcKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let issuerUrl = '';
  const jwk = { ...(await exportJWK(oidcKey.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const issuer = await httpsServer((path) => {
    if (path === '/.well-known/openid-configuration')
      return {
        code: 200,
        body: {
          issuer: issuerUrl,
          jwks_uri: `${issuerUrl}/keys`,
          id_token_signing_alg_values_supported: ['RS256'],
        },
      };
    if (path === '/keys') return { code: 200, body: { keys: [jwk] } };
    return { code: 404, body: {} };
  });
  issuerUrl = issuer.url;

  // the token webhook: one token is good, every other is refused
  const hook = await httpsServer((_path, text) => {
    let review: { apiVersion?: string; spec?: { token?: string } } = {};
    try {
      review = JSON.parse(text);
    } catch {}
    const ok = review.spec?.token === WEBHOOK_TOKEN;
    return {
      code: 200,
      body: {
        apiVersion: review.apiVersion,
        kind: 'TokenReview',
        status: ok ? { authenticated: true, user: { username: 'hook-user' } } : { authenticated: false },
      },
    };
  });
  const hookConfig = file(
    'hook.kubeconfig',
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'hook',
          cluster: {
            server: `${hook.url}/review`,
            'certificate-authority-data': Buffer.from(hook.ca).toString('base64'),
          },
        },
      ],
      users: [{ name: 'apiserver', user: {} }],
      contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'apiserver' } }],
      'current-context': 'hook',
    }),
  );

  const sa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const t = await startServer({
    tls: true,
    anonymous: true,
    clientCaFile: file('client-ca.pem', clientCa.certPem),
    requestheaderClientCaFile: file('proxy-ca.pem', proxyCa.certPem),
    requestheaderAllowedNames: ['front-proxy'],
    requestheaderUsernameHeaders: ['X-Remote-User'],
    requestheaderGroupHeaders: ['X-Remote-Group'],
    requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
    tokenAuthFile: file(
      'tokens.csv',
      `${TOKENS.alice},alice,uid-alice\n${TOKENS.imp},imp,uid-imp\n${TOKENS.nobody},nobody,uid-nobody\n`,
    ),
    enableBootstrapTokenAuth: true,
    serviceAccountSigningKeyFile: file(
      'sa.key',
      sa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    ),
    oidc: {
      issuerUrl,
      clientId: OIDC_CLIENT,
      usernameClaim: 'email',
      groupsClaim: 'groups',
      caFile: file('issuer-ca.pem', issuer.ca),
      refreshIntervalMs: 0,
    },
    tokenWebhook: {
      configFile: hookConfig,
      timeoutMs: 2000,
      retry: { initialMs: 10, factor: 1.5, attempts: 2 },
    },
  });
  const admin = t.token;
  const send = (a: Attempt) => sendTls(t.url, a);
  const adminReq = (method: string, path: string, body?: unknown) =>
    send({
      method,
      path,
      headers: [['Authorization', `Bearer ${admin}`]],
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const must = async (method: string, path: string, body: unknown) => {
    const r = await adminReq(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };

  // the target and who may read it
  const G = 'rbac.authorization.orch.io';
  await must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await must('POST', `/api/v1/namespaces/${NS}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'target' },
    stringData: { value: SECRET_VALUE },
  });
  await must('POST', `/apis/${G}/v1/namespaces/${NS}/roles`, {
    apiVersion: `${G}/v1`,
    kind: 'Role',
    metadata: { name: 'reader' },
    rules: [{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'create'] }],
  });
  await must('POST', `/apis/${G}/v1/namespaces/${NS}/rolebindings`, {
    apiVersion: `${G}/v1`,
    kind: 'RoleBinding',
    metadata: { name: 'readers' },
    roleRef: { apiGroup: G, kind: 'Role', name: 'reader' },
    subjects: [
      { kind: 'User', apiGroup: G, name: 'alice' },
      { kind: 'User', apiGroup: G, name: 'cert-alice' },
      { kind: 'User', apiGroup: G, name: OIDC_EMAIL },
      { kind: 'User', apiGroup: G, name: 'hook-user' },
      { kind: 'User', apiGroup: G, name: 'proxied-alice' },
      { kind: 'Group', apiGroup: G, name: 'system:bootstrappers' },
      { kind: 'ServiceAccount', name: 'reader', namespace: NS },
    ],
  });
  // imp may impersonate system:anonymous, and nothing else
  await must('POST', `/apis/${G}/v1/clusterroles`, {
    apiVersion: `${G}/v1`,
    kind: 'ClusterRole',
    metadata: { name: 'abi-impersonate-anonymous' },
    rules: [
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['system:anonymous'] },
    ],
  });
  await must('POST', `/apis/${G}/v1/clusterrolebindings`, {
    apiVersion: `${G}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'abi-impersonate-anonymous' },
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'abi-impersonate-anonymous' },
    subjects: [{ kind: 'User', apiGroup: G, name: 'imp' }],
  });

  // service accounts and their tokens
  const mint = async (name: string) => {
    await must('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name },
    });
    const r = await must('POST', `/api/v1/namespaces/${NS}/serviceaccounts/${name}/token`, {
      apiVersion: 'authentication.orch.io/v1',
      kind: 'TokenRequest',
      spec: {},
    });
    return r.json.status.token as string;
  };
  const saToken = await mint('reader');
  const deletedSaToken = await mint('gone');
  await must('DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/gone`, undefined);
  const readerClaims = decodeJwt(saToken) as Record<string, unknown>;
  const saPublicPem = sa.publicKey.export({ type: 'spki', format: 'pem' }) as string;

  // bootstrap token secrets: a good one, and ones whose secrets are bad
  const bootstrapSecret = (id: string, data: Record<string, string>) =>
    must('POST', `/api/v1/namespaces/${BOOTSTRAP_NS}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${id}` },
      type: 'bootstrap.orch.io/token',
      stringData: { 'token-id': id, ...data },
    });
  await bootstrapSecret(BOOTSTRAP.id, {
    'token-secret': BOOTSTRAP.secret,
    'usage-bootstrap-authentication': 'true',
  });
  await bootstrapSecret('badexp', {
    'token-secret': BOOTSTRAP.secret,
    'usage-bootstrap-authentication': 'true',
    expiration: 'next tuesday',
  });
  await bootstrapSecret('grpbad', {
    'token-secret': BOOTSTRAP.secret,
    'usage-bootstrap-authentication': 'true',
    'auth-extra-groups': 'system:bootstrappers:nodes,system:masters',
  });
  await bootstrapSecret('signer', {
    'token-secret': BOOTSTRAP.secret,
    'usage-bootstrap-authentication': 'false',
    'usage-bootstrap-signing': 'true',
  });

  // a pending signing request
  await must('POST', CSR_PATH, {
    apiVersion: 'certificates.orch.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: PENDING_CSR },
    spec: {
      request: Buffer.from((await csrPem('CN=abi-csr')).pem).toString('base64'),
      signerName: 'orch.io/kube-apiserver-client',
      usages: ['client auth'],
    },
  });

  return {
    t,
    admin,
    certs,
    saToken,
    deletedSaToken,
    saKey: { privateKey: sa.privateKey, publicPem: saPublicPem },
    signSa: (claims = {}, header = { alg: 'RS256' }) =>
      new SignJWT({ ...readerClaims, ...claims })
        .setProtectedHeader(header as { alg: string })
        .sign(sa.privateKey),
    oidcToken: (claims = {}, key = oidcKey.privateKey, header = { alg: 'RS256', kid: 'k1' }) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: issuerUrl,
        aud: OIDC_CLIENT,
        sub: 'alice-sub',
        email: OIDC_EMAIL,
        email_verified: true,
        iat: now,
        exp: now + 3600,
        ...claims,
      })
        .setProtectedHeader(header as { alg: string })
        .sign(key);
    },
    send,
    adminReq,
    async close() {
      await t.close();
      await new Promise<void>((r) => issuer.server.close(() => r()));
      await new Promise<void>((r) => hook.server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
