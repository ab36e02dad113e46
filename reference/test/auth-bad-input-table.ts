// The rows of the authentication bad-input test (doc3 "Authentication", "Review objects",
// "Bootstrap token secret", "Certificate signing request", "Self review", "Errors"): one
// malformed credential, header or review body each, the Status Kubernetes 1.28 answers it
// with, and what the request must not have achieved. Every row would be allowed with a
// well-formed credential: the identities the fixture sets up may read the target secret.
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import {
  type Attempt,
  BOOTSTRAP,
  CSR_PATH,
  type Fixture,
  NS,
  OIDC_EMAIL,
  PENDING_CSR,
  TARGET,
  TOKENS,
} from './auth-bad-input-fixture.ts';
import { csrPem } from './cert-helpers.ts';

/** What a refused request must not have done. */
export type Guard =
  /** Read the target secret. */
  | { kind: 'read' }
  /** Created the object at this path. */
  | { kind: 'absent'; path: string }
  /** Approved, denied or issued the pending signing request. */
  | { kind: 'pending-csr' }
  /** Issued anything: the Status is the whole answer (a token request). */
  | { kind: 'nothing-issued' };

export interface Row {
  area: 'bearer' | 'jwt' | 'bootstrap' | 'certificate' | 'impersonation' | 'token-request' | 'review' | 'csr';
  name: string;
  code: 400 | 401 | 403 | 404 | 413 | 422 | 431;
  reason: string;
  /** Why this answer, where Kubernetes 1.28 is the source rather than doc3's words. */
  note?: string;
  /** A Warning header the answer carries. */
  warning?: RegExp;
  attempt(f: Fixture): Attempt | Promise<Attempt>;
  guard: Guard;
}

const READ: Guard = { kind: 'read' };
const b64url = (s: string) => Buffer.from(s).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

const read = (headers: [string, string | Buffer][], cert?: Attempt['cert']): Attempt => ({
  method: 'GET',
  path: TARGET,
  headers,
  cert,
});
const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];
const asToken = (token: string) => read([bearer(token)]);

const TR = '/apis/authentication.orch.io/v1/tokenreviews';
const SAR = '/apis/authorization.orch.io/v1/subjectaccessreviews';
const LSAR = `/apis/authorization.orch.io/v1/namespaces/${NS}/localsubjectaccessreviews`;
const SSRR = '/apis/authorization.orch.io/v1/selfsubjectrulesreviews';
const SSAR = '/apis/authorization.orch.io/v1/selfsubjectaccessreviews';
const TOKEN_REQUEST = `/api/v1/namespaces/${NS}/serviceaccounts/reader/token`;

const post = (
  f: Fixture,
  path: string,
  body: string | Buffer | object,
  contentType = 'application/json',
): Attempt => ({
  method: 'POST',
  path,
  headers: [bearer(f.admin), ['Content-Type', contentType]],
  body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
});

const tokenReview = (
  spec: Record<string, unknown>,
  apiVersion = 'authentication.orch.io/v1',
  kind = 'TokenReview',
) => ({
  apiVersion,
  kind,
  spec,
});
const readSecret = { namespace: NS, verb: 'get', resource: 'secrets', name: 'target' };

function csr(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'certificates.orch.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { signerName: 'orch.io/kube-apiserver-client', usages: ['client auth'], ...spec },
  };
}
const pem64 = (pem: string) => Buffer.from(pem).toString('base64');

/** A PEM signing request whose signature no longer matches its contents (the last signature byte changed). */
async function badSignatureCsr(): Promise<string> {
  const { pem } = await csrPem('CN=forged');
  const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
  der[der.length - 1] = der[der.length - 1]! ^ 0x01;
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${body}\n-----END CERTIFICATE REQUEST-----\n`;
}

async function approval(f: Fixture, conditions: Record<string, unknown>[]): Promise<Attempt> {
  const r = await f.adminReq('GET', `${CSR_PATH}/${PENDING_CSR}`);
  const o = r.json;
  o.status = { ...(o.status ?? {}), conditions };
  return {
    method: 'PUT',
    path: `${CSR_PATH}/${PENDING_CSR}/approval`,
    headers: [bearer(f.admin)],
    body: JSON.stringify(o),
  };
}

const rogue = generateKeyPairSync('rsa', { modulusLength: 2048 });

export const ROWS: Row[] = [
  // ------------------------------------------------------------------ bearer tokens
  {
    area: 'bearer',
    name: 'empty `Bearer ` (the header trims to `Bearer`)',
    code: 403,
    reason: 'Forbidden',
    note: 'Kubernetes trims the header; `Bearer` alone is no bearer token, so the request is anonymous (anonymous access is on) and RBAC forbids it',
    attempt: () => read([['Authorization', 'Bearer ']]),
    guard: READ,
  },
  {
    area: 'bearer',
    name: '`Bearer` with no space and no token',
    code: 403,
    reason: 'Forbidden',
    note: 'not a bearer token (Kubernetes needs `Bearer <token>`): anonymous, forbidden',
    attempt: () => read([['Authorization', 'Bearer']]),
    guard: READ,
  },
  {
    area: 'bearer',
    name: '`Bearer` and a valid token glued without a space',
    code: 403,
    reason: 'Forbidden',
    note: 'not a bearer token: anonymous, forbidden; the token is not read out of the word',
    attempt: () => read([['Authorization', `Bearer${TOKENS.alice}`]]),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'two spaces before a valid token',
    code: 403,
    reason: 'Forbidden',
    note: 'Kubernetes splits on single spaces: the token is the empty word between them, and the header is ignored ("extra space before the bearer token"): anonymous, forbidden',
    warning:
      /^299 - "the provided Authorization header contains extra space before the bearer token, and is ignored"$/,
    attempt: () => read([['Authorization', `Bearer  ${TOKENS.alice}`]]),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'a tab in place of the space',
    code: 403,
    reason: 'Forbidden',
    note: 'Kubernetes splits on a space only: `Bearer\\t<token>` is one word, no bearer token, anonymous',
    attempt: () => read([['Authorization', `Bearer\t${TOKENS.alice}`]]),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'non-ASCII bytes in the token',
    code: 401,
    reason: 'Unauthorized',
    attempt: () =>
      read([
        [
          'Authorization',
          Buffer.concat([
            Buffer.from('Bearer Alice-T'),
            Buffer.from([0xc3, 0xb6, 0xff, 0x80]),
            Buffer.from('ken-1'),
          ]),
        ],
      ]),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'a control character (0x01) in the token',
    code: 400,
    reason: 'BadRequest',
    note: 'a header value with a control character is not HTTP: the parser refuses the request before any method sees it (Go answers 400 "invalid header value" in plain text, the reference a Status)',
    attempt: () => read([['Authorization', `Bearer Alice-\u0001Token-1`]]),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'a NUL byte in the token',
    code: 400,
    reason: 'BadRequest',
    note: 'as a control character: the request is not read',
    attempt: () => read([['Authorization', Buffer.from('Bearer Alice-\u0000Token-1')]]),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'a 12 KB token',
    code: 401,
    reason: 'Unauthorized',
    attempt: () => asToken('x'.repeat(12 * 1024)),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'a 1 MB token',
    code: 401,
    reason: 'Unauthorized',
    note: 'Kubernetes reads up to 1 MiB of headers: the token is read, and no method knows it',
    attempt: () => asToken('x'.repeat(1_000_000)),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'a 1.1 MiB token (past the 1 MiB header limit)',
    code: 431,
    reason: 'RequestHeaderFieldsTooLarge',
    note: "past Kubernetes' header limit the request is not read: 431 (Go answers it in plain text, the reference with a Status)",
    attempt: () => asToken('x'.repeat(1100 * 1024)),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'the `Basic` scheme with user:password',
    code: 403,
    reason: 'Forbidden',
    note: 'Kubernetes 1.28 has no basic authentication: the header is ignored, the request is anonymous',
    attempt: () =>
      read([['Authorization', `Basic ${Buffer.from('alice:Alice-Token-1').toString('base64')}`]]),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'two Authorization headers, the first invalid and the second valid',
    code: 401,
    reason: 'Unauthorized',
    note: 'Kubernetes reads the first header (Header.Get): the invalid token decides',
    attempt: (f) => read([bearer('not-a-token'), bearer(f.admin)]),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'a token-file token in another case',
    code: 401,
    reason: 'Unauthorized',
    note: 'tokens compare exactly',
    attempt: () => asToken(TOKENS.alice.toLowerCase()),
    guard: READ,
  },
  {
    area: 'bearer',
    name: 'a token-file token with a letter appended',
    code: 401,
    reason: 'Unauthorized',
    note: 'the token is a different string: refused, not trimmed to a known token',
    attempt: () => asToken(`${TOKENS.alice}x`),
    guard: READ,
  },

  // ------------------------------------------------------------------ JWTs
  {
    area: 'jwt',
    name: 'a JWT of two parts',
    code: 401,
    reason: 'Unauthorized',
    attempt: (f) => asToken(f.saToken.split('.').slice(0, 2).join('.')),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a JWT of four parts',
    code: 401,
    reason: 'Unauthorized',
    attempt: (f) => asToken(`${f.saToken}.AAAA`),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'bad base64url in the payload',
    code: 401,
    reason: 'Unauthorized',
    attempt: (f) => {
      const [h, , s] = f.saToken.split('.');
      return asToken(`${h}.!!not*base64!!.${s}`);
    },
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a header that is not JSON',
    code: 401,
    reason: 'Unauthorized',
    attempt: (f) => {
      const [, p, s] = f.saToken.split('.');
      return asToken(`${b64url('{not json')}.${p}.${s}`);
    },
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token with an empty signature',
    code: 401,
    reason: 'Unauthorized',
    attempt: (f) => {
      const [h, p] = f.saToken.split('.');
      return asToken(`${h}.${p}.`);
    },
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token with `alg: none`',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => {
      const claims = JSON.parse(Buffer.from(f.saToken.split('.')[1]!, 'base64url').toString('utf8'));
      return asToken(new UnsecuredJWT(claims).encode());
    },
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token signed HS256 with the public key as the secret',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => {
      const claims = JSON.parse(Buffer.from(f.saToken.split('.')[1]!, 'base64url').toString('utf8'));
      const jwt = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(Buffer.from(f.saKey.publicPem));
      return asToken(jwt);
    },
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token signed by another key',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => {
      const claims = JSON.parse(Buffer.from(f.saToken.split('.')[1]!, 'base64url').toString('utf8'));
      return asToken(await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(rogue.privateKey));
    },
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token whose `kid` the issuer does not publish',
    code: 401,
    reason: 'Unauthorized',
    note: 'the key set is refreshed once for the unknown key id; still unknown, the token is refused',
    attempt: async (f) => asToken(await f.oidcToken({}, undefined, { alg: 'RS256', kid: 'no-such-key' })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token signed ES256 (only RS256 is accepted)',
    code: 401,
    reason: 'Unauthorized',
    note: 'doc3: --oidc-signing-algs defaults to RS256',
    attempt: async (f) => {
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      return asToken(await f.oidcToken({}, ec.privateKey, { alg: 'ES256', kid: 'k1' }));
    },
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an expired service-account token',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) =>
      asToken(await f.signSa({ iat: now() - 7200, nbf: now() - 7200, exp: now() - 3600 })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token not yet valid (`nbf` an hour ahead)',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.signSa({ nbf: now() + 3600, exp: now() + 7200 })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an expired OIDC token',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.oidcToken({ iat: now() - 7200, exp: now() - 60 })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token not yet valid (`nbf` an hour ahead)',
    code: 401,
    reason: 'Unauthorized',
    note: "Kubernetes' OIDC verifier allows one minute of skew on nbf",
    attempt: async (f) => asToken(await f.oidcToken({ nbf: now() + 3600 })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token without `exp`',
    code: 401,
    reason: 'Unauthorized',
    note: "doc3: the server verifies signature and expiry; a token without expiry is expired to Kubernetes' verifier",
    attempt: async (f) => asToken(await f.oidcToken({ exp: undefined })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a token signed by the service-account key with another issuer',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.signSa({ iss: 'https://evil.example' })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token for another audience',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.signSa({ aud: ['https://not-this-cluster.example'] })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token for another client id',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.oidcToken({ aud: 'someone-else' })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token without `sub`',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.signSa({ sub: undefined })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token without the username claim (`email`)',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.oidcToken({ email: undefined })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token with 8 KB of claims, signed by a key the issuer does not publish',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) =>
      asToken(
        await f.oidcToken({ junk: 'j'.repeat(8 * 1024), groups: Array(50).fill('g') }, rogue.privateKey),
      ),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token of a deleted account',
    code: 401,
    reason: 'Unauthorized',
    note: 'doc3: with --service-account-lookup (the default) tokens of deleted accounts are revoked',
    attempt: (f) => asToken(f.deletedSaToken),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token whose `exp` is a string',
    code: 401,
    reason: 'Unauthorized',
    note: 'Kubernetes fails to decode a NumericDate from a string',
    attempt: async (f) => asToken(await f.signSa({ exp: String(now() + 3600) })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token whose `orch.io` claim is a number',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.signSa({ 'orch.io': 42 })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'a service-account token whose pod reference is a string',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => {
      const claim = JSON.parse(Buffer.from(f.saToken.split('.')[1]!, 'base64url').toString('utf8'))[
        'orch.io'
      ];
      return asToken(await f.signSa({ 'orch.io': { ...claim, pod: 'some-pod' } }));
    },
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC-signed token whose `iss` is a number',
    code: 401,
    reason: 'Unauthorized',
    note: "no method's issuer: refused as an invalid bearer token",
    attempt: async (f) => asToken(await f.oidcToken({ iss: 42 })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token whose groups claim is a number',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.oidcToken({ groups: 42 })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token whose email claim is a number',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.oidcToken({ email: 12345 })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token with `email_verified: false` when the username claim is email',
    code: 401,
    reason: 'Unauthorized',
    attempt: async (f) => asToken(await f.oidcToken({ email_verified: false })),
    guard: READ,
  },
  {
    area: 'jwt',
    name: 'an OIDC token with `email_verified: "true"` (a string)',
    code: 401,
    reason: 'Unauthorized',
    note: 'Kubernetes decodes email_verified as a bool: a string is an error',
    attempt: async (f) => asToken(await f.oidcToken({ email_verified: 'true' })),
    guard: READ,
  },

  // ------------------------------------------------------------------ bootstrap tokens
  {
    area: 'bootstrap',
    name: 'an upper-case letter in the secret (`abcdef.0123456789abcdeX`)',
    code: 401,
    reason: 'Unauthorized',
    note: 'doc3: the secret is 16 of a-z0-9; another shape is no bootstrap token, and no other method knows it',
    attempt: () => asToken(`${BOOTSTRAP.id}.0123456789abcdeX`),
    guard: READ,
  },
  {
    area: 'bootstrap',
    name: 'an upper-case token id (`ABCDEF.<secret>`)',
    code: 401,
    reason: 'Unauthorized',
    attempt: () => asToken(`${BOOTSTRAP.id.toUpperCase()}.${BOOTSTRAP.secret}`),
    guard: READ,
  },
  {
    area: 'bootstrap',
    name: 'a short token id',
    code: 401,
    reason: 'Unauthorized',
    attempt: () => asToken(`${BOOTSTRAP.id.slice(1)}.${BOOTSTRAP.secret}`),
    guard: READ,
  },
  {
    area: 'bootstrap',
    name: 'the dot missing',
    code: 401,
    reason: 'Unauthorized',
    attempt: () => asToken(`${BOOTSTRAP.id}${BOOTSTRAP.secret}`),
    guard: READ,
  },
  {
    area: 'bootstrap',
    name: 'the right id with a wrong secret',
    code: 401,
    reason: 'Unauthorized',
    attempt: () => asToken(`${BOOTSTRAP.id}.${'0'.repeat(16)}`),
    guard: READ,
  },
  {
    area: 'bootstrap',
    name: 'a token whose secret has an unreadable `expiration`',
    code: 401,
    reason: 'Unauthorized',
    note: 'Kubernetes treats an expiration that does not parse as RFC 3339 as expired',
    attempt: () => asToken(`badexp.${BOOTSTRAP.secret}`),
    guard: READ,
  },
  {
    area: 'bootstrap',
    name: 'a token whose secret lists an extra group outside system:bootstrappers:',
    code: 401,
    reason: 'Unauthorized',
    note: 'doc3: each of auth-extra-groups must start with `system:bootstrappers:`; Kubernetes refuses the token rather than drop the group',
    attempt: () => asToken(`grpbad.${BOOTSTRAP.secret}`),
    guard: READ,
  },
  {
    area: 'bootstrap',
    name: 'a token for signing only (usage-bootstrap-authentication "false")',
    code: 401,
    reason: 'Unauthorized',
    note: 'doc3: only usage-bootstrap-authentication "true" allows use as a bearer token',
    attempt: () => asToken(`signer.${BOOTSTRAP.secret}`),
    guard: READ,
  },

  // ------------------------------------------------------------------ client certificates
  {
    area: 'certificate',
    name: "a certificate from another CA (with the client CA's name)",
    code: 401,
    reason: 'Unauthorized',
    attempt: (f) => read([], f.certs.otherCa),
    guard: READ,
  },
  {
    area: 'certificate',
    name: 'an expired certificate',
    code: 401,
    reason: 'Unauthorized',
    attempt: (f) => read([], f.certs.expired),
    guard: READ,
  },
  {
    area: 'certificate',
    name: 'a certificate without a common name (O=system:masters)',
    code: 401,
    reason: 'Unauthorized',
    note: "Kubernetes' common-name conversion claims no certificate without CN (no error, no user), but the authenticating proxy's verifier, on in this server, refuses every certificate its CA did not sign: that refusal makes it a 401 (without the proxy the request is anonymous)",
    attempt: (f) => read([], f.certs.noCn),
    guard: READ,
  },
  {
    area: 'certificate',
    name: "the client CA's own certificate used as a client certificate",
    code: 403,
    reason: 'Forbidden',
    note: "Go's verification accepts a trusted root presented as the leaf, so the CA's name is the user; RBAC grants that name nothing",
    attempt: (f) => read([], f.certs.clientCa),
    guard: READ,
  },
  {
    area: 'certificate',
    name: 'authenticating-proxy headers without a proxy certificate',
    code: 403,
    reason: 'Forbidden',
    note: 'doc3: the headers count only with a certificate the request-header CA verifies; otherwise they are ignored (anonymous)',
    attempt: () =>
      read([
        ['X-Remote-User', 'proxied-alice'],
        ['X-Remote-Group', 'system:masters'],
        ['X-Remote-Extra-Scopes', 'all'],
      ]),
    guard: READ,
  },
  {
    area: 'certificate',
    name: 'authenticating-proxy headers on an ordinary client certificate',
    code: 403,
    reason: 'Forbidden',
    note: 'the headers are ignored and the certificate names its own user: cert-alice may get the target but not list secrets, which system:masters could',
    attempt: (f) => ({
      method: 'GET',
      path: `/api/v1/namespaces/${NS}/secrets`,
      headers: [
        ['X-Remote-User', 'system:admin'],
        ['X-Remote-Group', 'system:masters'],
      ],
      cert: f.certs.alice,
    }),
    guard: READ,
  },
  {
    area: 'certificate',
    name: 'a verified proxy certificate with a group header but no username header',
    code: 401,
    reason: 'Unauthorized',
    note: "without a user name the proxy names nobody; the client CA does not trust the proxy's certificate, a refusal: 401",
    attempt: (f) => read([['X-Remote-Group', 'system:masters']], f.certs.proxy),
    guard: READ,
  },
  {
    area: 'certificate',
    name: 'a proxy certificate whose CN is not an allowed name',
    code: 401,
    reason: 'Unauthorized',
    note: 'Kubernetes: "x509: subject with cn=... is not in the allowed list", an authentication error',
    attempt: (f) =>
      read(
        [
          ['X-Remote-User', 'proxied-alice'],
          ['X-Remote-Group', 'system:masters'],
        ],
        f.certs.rogueProxy,
      ),
    guard: READ,
  },

  // ------------------------------------------------------------------ impersonation
  {
    area: 'impersonation',
    name: 'Impersonate-Group without Impersonate-User',
    code: 400,
    reason: 'BadRequest',
    note: 'doc3: groups need the user header. Current Kubernetes answers BadRequest; older releases (1.28 among them, as far as the sources found show) answered 500 InternalError, which the bad-input criterion excludes: 400',
    attempt: () => read([bearer(TOKENS.alice), ['Impersonate-Group', 'system:masters']]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'Impersonate-Uid without Impersonate-User',
    code: 400,
    reason: 'BadRequest',
    note: 'doc3: the uid needs the user header',
    attempt: () => read([bearer(TOKENS.alice), ['Impersonate-Uid', 'uid-admin']]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'Impersonate-Extra-* without Impersonate-User',
    code: 400,
    reason: 'BadRequest',
    attempt: () => read([bearer(TOKENS.alice), ['Impersonate-Extra-Scopes', 'all']]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'an empty Impersonate-User with Impersonate-Group',
    code: 400,
    reason: 'BadRequest',
    note: 'an empty user header impersonates no user, so the group has none',
    attempt: (f) =>
      read([bearer(f.admin), ['Impersonate-User', ''], ['Impersonate-Group', 'system:masters']]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'Impersonate-Extra-<key> with bad percent-encoding (`bad%zz`)',
    code: 403,
    reason: 'Forbidden',
    note: 'Kubernetes keeps a key that does not unescape as sent; the admin may impersonate, and the impersonated user may not read',
    attempt: (f) =>
      read([bearer(f.admin), ['Impersonate-User', 'nobody'], ['Impersonate-Extra-bad%zz', 'x']]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'Impersonate-User with non-ASCII bytes',
    code: 403,
    reason: 'Forbidden',
    note: 'the admin may impersonate anyone; the user so named has no rights',
    attempt: (f) =>
      read([bearer(f.admin), ['Impersonate-User', Buffer.from([0x61, 0x6c, 0x69, 0xc3, 0xa7, 0x65, 0xff])]]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'a malformed service-account name to impersonate (`system:serviceaccount:abi`)',
    code: 403,
    reason: 'Forbidden',
    note: 'not `<namespace>:<name>`: an ordinary user name, which imp may not impersonate',
    attempt: () => read([bearer(TOKENS.imp), ['Impersonate-User', `system:serviceaccount:${NS}`]]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'an anonymous request impersonating a user',
    code: 403,
    reason: 'Forbidden',
    note: 'system:anonymous holds no impersonate permission',
    attempt: () => read([['Impersonate-User', 'alice']]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'Impersonate-Extra-__proto__ and Impersonate-Extra-constructor',
    code: 403,
    reason: 'Forbidden',
    note: 'keys like any other (Kubernetes keeps them): the admin may impersonate, the impersonated user may not read',
    attempt: (f) =>
      read([
        bearer(f.admin),
        ['Impersonate-User', 'nobody'],
        ['Impersonate-Extra-__proto__', 'x'],
        ['Impersonate-Extra-constructor', 'y'],
      ]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'Impersonate-Extra-__proto__ by a caller without the userextras permission',
    code: 403,
    reason: 'Forbidden',
    note: 'every extra key asked for needs impersonate on userextras/<key>; this one is not dropped on the way',
    attempt: () =>
      read([
        bearer(TOKENS.imp),
        ['Impersonate-User', 'system:anonymous'],
        ['Impersonate-Extra-__proto__', 'x'],
      ]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'impersonating without the impersonate permission',
    code: 403,
    reason: 'Forbidden',
    attempt: () => read([bearer(TOKENS.nobody), ['Impersonate-User', 'alice']]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'impersonating system:anonymous with the group system:masters (only the user is allowed)',
    code: 403,
    reason: 'Forbidden',
    note: 'every group asked for needs its own impersonate permission',
    attempt: () =>
      read([
        bearer(TOKENS.imp),
        ['Impersonate-User', 'system:anonymous'],
        ['Impersonate-Group', 'system:masters'],
      ]),
    guard: READ,
  },
  {
    area: 'impersonation',
    name: 'impersonating a user with a uid the caller may not impersonate',
    code: 403,
    reason: 'Forbidden',
    attempt: () =>
      read([bearer(TOKENS.imp), ['Impersonate-User', 'system:anonymous'], ['Impersonate-Uid', 'uid-alice']]),
    guard: READ,
  },

  // ------------------------------------------------------------------ token requests
  {
    area: 'token-request',
    name: 'TokenRequest whose audiences is a string and expirationSeconds a string',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) =>
      post(f, TOKEN_REQUEST, {
        apiVersion: 'authentication.orch.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 'x', audiences: 'y' },
      }),
    guard: { kind: 'nothing-issued' },
  },
  {
    area: 'token-request',
    name: 'TokenRequest for one second',
    code: 422,
    reason: 'Invalid',
    note: 'Kubernetes: "may not specify a duration less than 10 minutes"',
    attempt: (f) =>
      post(f, TOKEN_REQUEST, {
        apiVersion: 'authentication.orch.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 1 },
      }),
    guard: { kind: 'nothing-issued' },
  },
  {
    area: 'token-request',
    name: 'TokenRequest bound to a ConfigMap',
    code: 400,
    reason: 'BadRequest',
    note: 'Kubernetes binds tokens to pods, secrets and nodes only: "cannot bind token for object of type ..."',
    attempt: (f) =>
      post(f, TOKEN_REQUEST, {
        apiVersion: 'authentication.orch.io/v1',
        kind: 'TokenRequest',
        spec: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } },
      }),
    guard: { kind: 'nothing-issued' },
  },
  {
    area: 'token-request',
    name: 'TokenRequest by a user who may not create serviceaccounts/token',
    code: 403,
    reason: 'Forbidden',
    attempt: (f) => ({
      ...post(f, TOKEN_REQUEST, { apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest', spec: {} }),
      headers: [bearer(TOKENS.alice)],
    }),
    guard: { kind: 'nothing-issued' },
  },

  // ------------------------------------------------------------------ review bodies
  {
    area: 'review',
    name: 'TokenReview without a token',
    code: 400,
    reason: 'BadRequest',
    note: 'Kubernetes\' TokenReview storage: "token is required for TokenReview in authentication"',
    attempt: (f) => post(f, TR, tokenReview({})),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'TokenReview with a token that is a number',
    code: 400,
    reason: 'BadRequest',
    note: 'the body does not decode into a TokenReview',
    attempt: (f) => post(f, TR, tokenReview({ token: 12345 })),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'TokenReview with a token that is an object holding a valid token',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) => post(f, TR, tokenReview({ token: { value: f.admin } })),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'a body of another kind (SubjectAccessReview) sent to tokenreviews',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) =>
      post(f, TR, {
        apiVersion: 'authentication.orch.io/v1',
        kind: 'SubjectAccessReview',
        spec: { token: f.admin },
      }),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'a v1beta1 TokenReview body sent to the v1 path',
    code: 400,
    reason: 'BadRequest',
    note: 'Kubernetes: "the API version in the data ... does not match the expected API version"',
    attempt: (f) => post(f, TR, tokenReview({ token: f.admin }, 'authentication.orch.io/v1beta1')),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'a v1 TokenReview body sent to the v1beta1 path (no longer served: doc2)',
    code: 404,
    reason: 'NotFound',
    attempt: (f) => post(f, TR.replace('/v1/', '/v1beta1/'), tokenReview({ token: f.admin })),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'a TokenReview body naming the authorization group',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) => post(f, TR, tokenReview({ token: f.admin }, 'authorization.orch.io/v1')),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'a TokenReview body that is not JSON',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) => post(f, TR, '{"apiVersion": "authentication.orch.io/v1", "kind": "TokenReview", spec: {'),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'a TokenReview as YAML that does not parse',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) =>
      post(
        f,
        TR,
        'apiVersion: authentication.orch.io/v1\nkind: TokenReview\nspec: {token: [unclosed\n',
        'application/yaml',
      ),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'a TokenReview as protobuf that is garbage',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) =>
      post(
        f,
        TR,
        Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02]),
        'application/vnd.orch.protobuf',
      ),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'a TokenReview body past the 3 MiB request limit',
    code: 413,
    reason: 'RequestEntityTooLarge',
    note: 'Kubernetes limits request bodies to 3 MiB and answers 413 past it (a client error, not one of 400/401/403)',
    attempt: (f) => post(f, TR, JSON.stringify(tokenReview({ token: 'x'.repeat(4 * 1024 * 1024) }))),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'TokenReview whose audiences is a string',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) =>
      post(f, TR, tokenReview({ token: f.admin, audiences: 'https://orch.default.svc.cluster.local' })),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'TokenReview of the admin token by a user who may not create token reviews',
    code: 403,
    reason: 'Forbidden',
    attempt: (f) => ({ ...post(f, TR, tokenReview({ token: f.admin })), headers: [bearer(TOKENS.alice)] }),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'SelfSubjectReview of another kind (TokenReview) sent to selfsubjectreviews',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) =>
      post(f, '/apis/authentication.orch.io/v1beta1/selfsubjectreviews', {
        apiVersion: 'authentication.orch.io/v1beta1',
        kind: 'TokenReview',
      }),
    guard: { kind: 'absent', path: '/apis/authentication.orch.io/v1beta1/selfsubjectreviews/x' },
  },
  {
    area: 'review',
    name: 'SubjectAccessReview whose resourceAttributes is a string',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) =>
      post(f, SAR, {
        apiVersion: 'authorization.orch.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'alice', resourceAttributes: 'secrets' },
      }),
    guard: { kind: 'absent', path: `${SAR}/x` },
  },
  {
    area: 'review',
    name: 'SubjectAccessReview whose groups is a string',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) =>
      post(f, SAR, {
        apiVersion: 'authorization.orch.io/v1',
        kind: 'SubjectAccessReview',
        spec: { groups: 'system:masters', resourceAttributes: readSecret },
      }),
    guard: { kind: 'absent', path: `${SAR}/x` },
  },
  {
    area: 'review',
    name: 'SubjectAccessReview whose extra values are not lists',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) =>
      post(f, SAR, {
        apiVersion: 'authorization.orch.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'alice', extra: { scopes: 'all' }, resourceAttributes: readSecret },
      }),
    guard: { kind: 'absent', path: `${SAR}/x` },
  },
  {
    area: 'review',
    name: 'TokenReview whose audiences are numbers',
    code: 400,
    reason: 'BadRequest',
    attempt: (f) => post(f, TR, tokenReview({ token: f.admin, audiences: [1, 2] })),
    guard: { kind: 'absent', path: `${TR}/x` },
  },
  {
    area: 'review',
    name: 'SelfSubjectAccessReview with neither resourceAttributes nor nonResourceAttributes',
    code: 422,
    reason: 'Invalid',
    attempt: (f) =>
      post(f, SSAR, { apiVersion: 'authorization.orch.io/v1', kind: 'SelfSubjectAccessReview', spec: {} }),
    guard: { kind: 'absent', path: `${SSAR}/x` },
  },
  {
    area: 'review',
    name: 'SubjectAccessReview with neither resourceAttributes nor nonResourceAttributes',
    code: 422,
    reason: 'Invalid',
    attempt: (f) =>
      post(f, SAR, {
        apiVersion: 'authorization.orch.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'alice' },
      }),
    guard: { kind: 'absent', path: `${SAR}/x` },
  },
  {
    area: 'review',
    name: 'SubjectAccessReview with both resourceAttributes and nonResourceAttributes',
    code: 422,
    reason: 'Invalid',
    attempt: (f) =>
      post(f, SAR, {
        apiVersion: 'authorization.orch.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: 'alice',
          resourceAttributes: readSecret,
          nonResourceAttributes: { path: '/healthz', verb: 'get' },
        },
      }),
    guard: { kind: 'absent', path: `${SAR}/x` },
  },
  {
    area: 'review',
    name: 'SubjectAccessReview without a user or group',
    code: 422,
    reason: 'Invalid',
    attempt: (f) =>
      post(f, SAR, {
        apiVersion: 'authorization.orch.io/v1',
        kind: 'SubjectAccessReview',
        spec: { resourceAttributes: readSecret },
      }),
    guard: { kind: 'absent', path: `${SAR}/x` },
  },
  {
    area: 'review',
    name: "LocalSubjectAccessReview whose metadata.namespace is not the path's",
    code: 400,
    reason: 'BadRequest',
    note: 'Kubernetes: "the namespace of the provided object does not match the namespace sent on the request"',
    attempt: (f) =>
      post(f, LSAR, {
        apiVersion: 'authorization.orch.io/v1',
        kind: 'LocalSubjectAccessReview',
        metadata: { namespace: 'elsewhere' },
        spec: { user: 'alice', resourceAttributes: { ...readSecret, namespace: 'elsewhere' } },
      }),
    guard: { kind: 'absent', path: `${LSAR}/x` },
  },
  {
    area: 'review',
    name: 'LocalSubjectAccessReview posted outside a namespace',
    code: 404,
    reason: 'NotFound',
    note: 'Kubernetes serves a namespaced kind outside a namespace only as its list across namespaces; this kind is not listed, so the path does not exist (404, not 405)',
    attempt: (f) =>
      post(f, '/apis/authorization.orch.io/v1/localsubjectaccessreviews', {
        apiVersion: 'authorization.orch.io/v1',
        kind: 'LocalSubjectAccessReview',
        spec: { user: 'alice', resourceAttributes: readSecret },
      }),
    guard: { kind: 'absent', path: `${LSAR}/x` },
  },
  {
    area: 'review',
    name: 'SelfSubjectRulesReview without spec.namespace',
    code: 400,
    reason: 'BadRequest',
    note: 'Kubernetes\' SelfSubjectRulesReview storage: "no namespace on request"',
    attempt: (f) =>
      post(f, SSRR, { apiVersion: 'authorization.orch.io/v1', kind: 'SelfSubjectRulesReview', spec: {} }),
    guard: { kind: 'absent', path: `${SSRR}/x` },
  },

  // ------------------------------------------------------------------ certificate signing requests
  {
    area: 'csr',
    name: 'a request that is not PEM',
    code: 422,
    reason: 'Invalid',
    attempt: (f) =>
      post(f, CSR_PATH, csr('abi-not-pem', { request: pem64('hello, I am a certificate request') })),
    guard: { kind: 'absent', path: `${CSR_PATH}/abi-not-pem` },
  },
  {
    area: 'csr',
    name: 'a request that is a PEM block of another type (CERTIFICATE)',
    code: 422,
    reason: 'Invalid',
    note: 'Kubernetes: "PEM block type must be CERTIFICATE REQUEST"',
    attempt: (f) => post(f, CSR_PATH, csr('abi-wrong-block', { request: pem64(f.certs.alice.certPem) })),
    guard: { kind: 'absent', path: `${CSR_PATH}/abi-wrong-block` },
  },
  {
    area: 'csr',
    name: 'a request that is not base64',
    code: 400,
    reason: 'BadRequest',
    note: 'spec.request is bytes: a value that does not decode fails decoding the body (Kubernetes: "illegal base64 data")',
    attempt: (f) => post(f, CSR_PATH, csr('abi-not-base64', { request: '***not base64***' })),
    guard: { kind: 'absent', path: `${CSR_PATH}/abi-not-base64` },
  },
  {
    area: 'csr',
    name: 'a request with no spec.request',
    code: 422,
    reason: 'Invalid',
    attempt: (f) => post(f, CSR_PATH, csr('abi-no-request', {})),
    guard: { kind: 'absent', path: `${CSR_PATH}/abi-no-request` },
  },
  {
    area: 'csr',
    name: 'a request whose signature does not verify',
    code: 422,
    reason: 'Invalid',
    note: "Kubernetes checks the request's self-signature on create",
    attempt: async (f) =>
      post(f, CSR_PATH, csr('abi-bad-signature', { request: pem64(await badSignatureCsr()) })),
    guard: { kind: 'absent', path: `${CSR_PATH}/abi-bad-signature` },
  },
  {
    area: 'csr',
    name: 'a signerName that is no domain and path',
    code: 422,
    reason: 'Invalid',
    note: 'a well-formed unknown signer name is accepted and left pending (Kubernetes); one that is not `<domain>/<path>` is invalid',
    attempt: async (f) =>
      post(
        f,
        CSR_PATH,
        csr('abi-bad-signer', { request: pem64((await csrPem('CN=x')).pem), signerName: 'unknown' }),
      ),
    guard: { kind: 'absent', path: `${CSR_PATH}/abi-bad-signer` },
  },
  {
    area: 'csr',
    name: 'an unknown usage',
    code: 422,
    reason: 'Invalid',
    attempt: async (f) =>
      post(
        f,
        CSR_PATH,
        csr('abi-bad-usage', {
          request: pem64((await csrPem('CN=x')).pem),
          usages: ['client auth', 'flying'],
        }),
      ),
    guard: { kind: 'absent', path: `${CSR_PATH}/abi-bad-usage` },
  },
  {
    area: 'csr',
    name: 'expirationSeconds under ten minutes',
    code: 422,
    reason: 'Invalid',
    attempt: async (f) =>
      post(
        f,
        CSR_PATH,
        csr('abi-short', { request: pem64((await csrPem('CN=x')).pem), expirationSeconds: 60 }),
      ),
    guard: { kind: 'absent', path: `${CSR_PATH}/abi-short` },
  },
  {
    area: 'csr',
    name: 'approval by a user without the right to update approval',
    code: 403,
    reason: 'Forbidden',
    attempt: async (f) => {
      const a = await approval(f, [{ type: 'Approved', status: 'True', reason: 'SelfApproved' }]);
      return { ...a, headers: [bearer(TOKENS.alice)] };
    },
    guard: { kind: 'pending-csr' },
  },
  {
    area: 'csr',
    name: 'approval whose conditions is a string',
    code: 400,
    reason: 'BadRequest',
    attempt: async (f) => {
      const a = await approval(f, []);
      const o = JSON.parse(String(a.body));
      o.status.conditions = 'Approved';
      return { ...a, body: JSON.stringify(o) };
    },
    guard: { kind: 'pending-csr' },
  },
  {
    area: 'csr',
    name: 'a certificate set through status on a request not approved',
    code: 422,
    reason: 'Invalid',
    attempt: async (f) => {
      const r = await f.adminReq('GET', `${CSR_PATH}/${PENDING_CSR}`);
      const o = r.json;
      o.status = { certificate: Buffer.from(f.certs.alice.certPem).toString('base64') };
      return {
        method: 'PUT',
        path: `${CSR_PATH}/${PENDING_CSR}/status`,
        headers: [bearer(f.admin)],
        body: JSON.stringify(o),
      };
    },
    guard: { kind: 'pending-csr' },
  },
  {
    area: 'csr',
    name: 'approval through a merge patch adding both Approved and Denied',
    code: 422,
    reason: 'Invalid',
    attempt: (f) => ({
      method: 'PATCH',
      path: `${CSR_PATH}/${PENDING_CSR}/approval`,
      headers: [bearer(f.admin), ['Content-Type', 'application/merge-patch+json']],
      body: JSON.stringify({
        status: {
          conditions: [
            { type: 'Approved', status: 'True', reason: 'Yes' },
            { type: 'Denied', status: 'True', reason: 'No' },
          ],
        },
      }),
    }),
    guard: { kind: 'pending-csr' },
  },
  {
    area: 'csr',
    name: 'approval with a null condition',
    code: 422,
    reason: 'Invalid',
    note: 'Go decodes a null list item as an empty condition: its type and status are required',
    attempt: (f) => approval(f, [null as unknown as Record<string, unknown>]),
    guard: { kind: 'pending-csr' },
  },
  {
    area: 'csr',
    name: 'approval with a condition of empty type',
    code: 422,
    reason: 'Invalid',
    attempt: (f) => approval(f, [{ type: '', status: 'True', reason: 'Why' }]),
    guard: { kind: 'pending-csr' },
  },
  {
    area: 'csr',
    name: 'approval with an Approved condition whose status is not True',
    code: 422,
    reason: 'Invalid',
    attempt: (f) => approval(f, [{ type: 'Approved', status: 'Maybe', reason: 'Why' }]),
    guard: { kind: 'pending-csr' },
  },
  {
    area: 'csr',
    name: 'approval with both Approved and Denied',
    code: 422,
    reason: 'Invalid',
    attempt: (f) =>
      approval(f, [
        { type: 'Approved', status: 'True', reason: 'Yes' },
        { type: 'Denied', status: 'True', reason: 'No' },
      ]),
    guard: { kind: 'pending-csr' },
  },
  {
    area: 'csr',
    name: 'approval with two Approved conditions',
    code: 422,
    reason: 'Invalid',
    attempt: (f) =>
      approval(f, [
        { type: 'Approved', status: 'True', reason: 'Yes' },
        { type: 'Approved', status: 'True', reason: 'Again' },
      ]),
    guard: { kind: 'pending-csr' },
  },
];

/** The identities the rows spoil, each well-formed: every one reads the target (the rows' refusals are theirs). */
export const CONTROLS: { name: string; attempt(f: Fixture): Attempt | Promise<Attempt> }[] = [
  { name: 'the token-file user alice', attempt: () => asToken(TOKENS.alice) },
  { name: 'the service account abi/reader', attempt: (f) => asToken(f.saToken) },
  {
    name: "a service-account token signed here with the reader's claims",
    attempt: async (f) => asToken(await f.signSa()),
  },
  { name: `the OIDC user ${OIDC_EMAIL}`, attempt: async (f) => asToken(await f.oidcToken()) },
  { name: 'the bootstrap token', attempt: () => asToken(`${BOOTSTRAP.id}.${BOOTSTRAP.secret}`) },
  { name: 'the webhook token', attempt: () => asToken('webhook-good-token') },
  { name: 'the client certificate cert-alice', attempt: (f) => read([], f.certs.alice) },
  {
    name: 'the proxy naming proxied-alice',
    attempt: (f) => read([['X-Remote-User', 'proxied-alice']], f.certs.proxy),
  },
  {
    name: 'the proxy naming proxied-alice with the extra keys __proto__ and constructor',
    attempt: (f) =>
      read(
        [
          ['X-Remote-User', 'proxied-alice'],
          ['X-Remote-Extra-__proto__', 'x'],
          ['X-Remote-Extra-constructor', 'y'],
        ],
        f.certs.proxy,
      ),
  },
  {
    name: 'the admin impersonating alice',
    attempt: (f) => read([bearer(f.admin), ['Impersonate-User', 'alice']]),
  },
];
