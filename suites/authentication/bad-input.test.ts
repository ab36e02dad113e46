// doc3 § Authentication and § Errors with malformed credentials: JWT-shaped tokens that are
// not JWTs, service-account tokens that are unsigned or carry claims of the wrong type,
// bootstrap tokens of the wrong shape, id_tokens with a groups claim of the wrong type or a
// key the issuer never published, Authorization headers that are no bearer token, and token
// reviews whose token is not a string. None authenticates; none is a 5xx.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, describe } from 'vitest';
import { check, checkStatus } from '../../harness/src/assert.ts';
import { clientWith, oidcIdToken, serviceAccountToken } from '../../harness/src/auth/credentials.ts';
import type { Client } from '../../harness/src/client.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import { AUTH, checkRefused, fixturesOf, resigned, seenAs, withNamespace } from './helpers.ts';

const INVALID = 'A request with an invalid bearer token is rejected with 401, not treated as anonymous';
const b64url = (s: string) => Buffer.from(s).toString('base64url');

describe('authentication: malformed credentials', () => {
  conformance(
    {
      id: 'authentication/bad-input/malformed-jwt',
      title:
        'JWT-shaped bearer tokens that are not JWTs (two or four parts, bad base64url, a header that is not JSON) are refused with 401',
      doc: 3,
      section: 'Errors',
      place: `Invalid bearer token | 401 Unauthorized (§ Authentication: ${INVALID})`,
      specRules: ['doc3/errors/invalid-bearer-token-401-unauthorized'],
      level: 'MUST',
    },
    async ({ client }) => {
      const payload = b64url(
        JSON.stringify({
          iss: 'https://orch.default.svc.cluster.local',
          sub: 'system:serviceaccount:default:default',
        }),
      );
      const header = b64url(JSON.stringify({ alg: 'RS256' }));
      const sig = randomBytes(32).toString('base64url');
      for (const [what, token] of [
        ['two parts', `${header}.${payload}`],
        ['four parts', `${header}.${payload}.${sig}.${sig}`],
        ['bad base64url in the payload', `${header}.!!not*base64!!.${sig}`],
        ['a header that is not JSON', `${b64url('{not json')}.${payload}.${sig}`],
      ])
        await checkRefused(clientWith(client.target, { token }), `a JWT-shaped token with ${what}`);
    },
  );

  conformance(
    {
      id: 'authentication/bad-input/service-account-forged',
      title:
        "A service-account token's own claims unsigned (alg none), signed HS256 with the public key, or with exp as a string are refused with 401",
      doc: 3,
      section: AUTH,
      place: `Service account token | Signed JWT; flags \`--service-account-key-file\` (PEM keys ...); ${INVALID}`,
      specRules: [
        'doc3/authentication/request-invalid-bearer-token-rejected-401',
        'doc3/authentication/service-account-token-signed-jwt-flags',
      ],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      await withNamespace(client, 'authn-bad', async (ns) => {
        const { token } = await serviceAccountToken(client, ns, uniqueName('sa-forged'));
        const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
        const me = (t: string) => clientWith(client.target, { token: t });
        await checkRefused(me(new UnsecuredJWT(claims).encode()), "the token's claims with alg none");
        const hs = await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256' })
          .sign(Buffer.from(readFileSync(f.serviceAccount.publicKey, 'utf8')));
        await checkRefused(me(hs), "the token's claims signed HS256 with the public key as the secret");
        await checkRefused(
          me(await resigned(f, token, (p) => ({ ...p, exp: String(p.exp) as unknown as number }))),
          'exp as a string',
        );
        // the control: the same claims signed again with the trusted key are accepted
        await seenAs(
          me(await resigned(f, token, (p) => p)),
          'the same claims signed again with the trusted key',
        );
      });
    },
    { needs: { auth: ['service-account'] } },
  );

  const made: { client: Client; name: string }[] = [];
  afterAll(async () => {
    for (const m of made)
      await m.client.delete(`/api/v1/namespaces/orch-system/secrets/${m.name}`).catch(() => undefined);
  });

  conformance(
    {
      id: 'authentication/bad-input/bootstrap-token-shape',
      title:
        'Bearer tokens shaped almost as a live bootstrap token (an upper-case letter, a short id, no dot) are refused with 401',
      doc: 3,
      section: 'Bootstrap token secret',
      place:
        'token-id | yes | 6 characters from a-z and 0-9; token-secret | yes | 16 characters from a-z and 0-9; The token text is the id, a dot and the secret',
      specRules: [
        'doc3/bootstrap-token-secret/token-id-yes-6-characters-z',
        'doc3/bootstrap-token-secret/token-secret-yes-16-characters-z',
        'doc3/bootstrap-token-secret/token-text-id-dot-secret',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const id = randomBytes(3).toString('hex');
      const secret = randomBytes(8).toString('hex');
      const name = `bootstrap-token-${id}`;
      const r = await client.post('/api/v1/namespaces/orch-system/secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name },
        type: 'bootstrap.orch.io/token',
        stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true' },
      });
      checkStatus(r, 201, undefined, `create the bootstrap token secret ${name}`);
      made.push({ client, name });
      await seenAs(
        clientWith(client.target, { token: `${id}.${secret}` }),
        'the well-formed token (control)',
      );
      for (const [what, token] of [
        ['an upper-case letter in the secret', `${id}.${secret.slice(0, -1)}X`],
        ['an upper-case id', `${id.toUpperCase().replace(/^[0-9]/, 'A')}.${secret}`],
        ['a five-character id', `${id.slice(1)}.${secret}`],
        ['no dot', `${id}${secret}`],
      ])
        await checkRefused(clientWith(client.target, { token }), `a bootstrap token with ${what}`);
    },
    { needs: { auth: ['bootstrap'] } },
  );

  conformance(
    {
      id: 'authentication/bad-input/oidc-claim-types',
      title:
        'An id_token whose groups claim is a number, or whose key id the issuer does not publish, is refused with 401',
      doc: 3,
      section: AUTH,
      place:
        'OpenID Connect server flags: `--oidc-groups-claim` | claim holding an array of group names; OpenID Connect | the server verifies signature and expiry',
      specRules: [
        'doc3/authentication/oidc-groups-claim-claim-holding-array',
        'doc3/authentication/openid-connect-id-token-not-access',
      ],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const base = {
        sub: uniqueName('sub'),
        email: `${uniqueName('bad')}@example.com`,
        email_verified: true,
      };
      await seenAs(
        clientWith(client.target, { token: await oidcIdToken(f, { ...base, groups: ['devs'] }) }),
        'a well-formed id_token (control)',
      );
      await checkRefused(
        clientWith(client.target, { token: await oidcIdToken(f, { ...base, [f.oidc.groupsClaim]: 42 }) }),
        'a groups claim that is a number',
      );
      await checkRefused(
        clientWith(client.target, {
          token: await oidcIdToken(f, { ...base, groups: ['devs'] }, { kid: 'no-such-key' }),
        }),
        'a key id the issuer does not publish',
      );
    },
    { needs: { auth: ['oidc'] } },
  );

  conformance(
    {
      id: 'authentication/bad-input/not-a-bearer-header',
      title:
        'An Authorization header that carries no bearer token (`Bearer` alone, the Basic scheme) is ignored: the request is anonymous',
      doc: 3,
      section: AUTH,
      place:
        'Bearer header | `Authorization: Bearer <token>`; Requests that no method accepts are anonymous when anonymous access is on (Kubernetes 1.28 has no basic authentication)',
      specRules: [
        'doc3/authentication/bearer-header-authorization-bearer-token',
        'doc3/authentication/requests-no-method-accepts-anonymous-when',
      ],
      level: 'BEYOND',
    },
    async ({ client }) => {
      const anon = clientWith(client.target, {});
      for (const value of ['Bearer', `Basic ${Buffer.from('admin:admin').toString('base64')}`]) {
        const r = await anon.get('/api/v1/namespaces/default/secrets', { headers: { authorization: value } });
        checkStatus(
          r,
          403,
          'Forbidden',
          `Authorization: ${value.split(' ')[0]} ...: served as anonymous, refused by authorization`,
        );
        check(
          /User "system:anonymous"/.test(r.statusObj?.message ?? ''),
          'the refusal names system:anonymous',
          r.describe(),
        );
      }
    },
  );

  conformance(
    {
      id: 'authentication/bad-input/token-review-token-type',
      title:
        'A TokenReview whose spec.token is missing or not a string is refused with 400, never answered as authenticated',
      doc: 3,
      section: 'Review objects',
      place:
        'TokenReview (`authentication.orch.io/v1` or `v1beta1`): `spec.token` (string) (Kubernetes 1.28: 400 BadRequest for a missing token or a body that does not decode)',
      specRules: ['doc3/review-objects/tokenreview-authentication-orch-io-v1-v1beta1'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      for (const [what, spec] of [
        ['no token', {}],
        ['a number', { token: 12345 }],
        ['an object', { token: { value: 'x' } }],
      ] as const) {
        const r = await client.post('/apis/authentication.orch.io/v1/tokenreviews', {
          apiVersion: 'authentication.orch.io/v1',
          kind: 'TokenReview',
          spec,
        });
        checkStatus(r, 400, 'BadRequest', `a TokenReview with ${what} as spec.token`);
      }
    },
  );
});
