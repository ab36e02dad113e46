// doc3 § Authentication, "Service account token": a signed JWT; username
// `system:serviceaccount:<namespace>:<name>`, groups `system:serviceaccounts` and
// `system:serviceaccounts:<namespace>`; with `--service-account-lookup` tokens of accounts
// deleted through the API are revoked. Tokens come from the TokenRequest subresource; the
// cases that alter one (expiry, signer) re-sign its own claims with the fixtures' key, so the
// alteration is the only difference.
import { decodeJwt, generateKeyPair } from 'jose';
import { describe } from 'vitest';
import { checkEqual, checkStatus } from '../../harness/src/assert.ts';
import { clientWith, serviceAccountToken } from '../../harness/src/auth/credentials.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import {
  AUTH,
  checkRefused,
  checkRefusedWithin,
  checkUser,
  fixturesOf,
  resigned,
  seenAs,
  withNamespace,
} from './helpers.ts';

const SA_PLACE =
  'Service account token | Signed JWT ... Username `system:serviceaccount:<namespace>:<name>`; groups `system:serviceaccounts` and `system:serviceaccounts:<namespace>`';

describe('authentication: service account tokens', () => {
  const ns = useNamespace('authn-sa');

  conformance(
    {
      id: 'authentication/service-account/user-and-groups',
      title:
        'A token of the TokenRequest subresource authenticates as system:serviceaccount:<ns>:<name> with the account uid and both service-account groups',
      doc: 3,
      section: AUTH,
      place: SA_PLACE,
      specRules: ['doc3/authentication/service-account-token-signed-jwt-flags'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('sa');
      const { token, uid } = await serviceAccountToken(client, ns.name, name);
      const u = await seenAs(clientWith(client.target, { token }), 'a service account token');
      checkUser(
        u,
        {
          username: `system:serviceaccount:${ns.name}:${name}`,
          uid,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${ns.name}`, 'system:authenticated'],
        },
        'the service account',
      );
    },
  );

  conformance(
    {
      id: 'authentication/service-account/lookup-revokes',
      title:
        'Once its ServiceAccount is deleted, its tokens are refused with 401 (within 15 s: a server may cache an authentication briefly), also after an account of the same name is created again',
      doc: 3,
      section: AUTH,
      place:
        'Service account token | ... `--service-account-lookup` (tokens deleted through the API are revoked)',
      specRules: ['doc3/authentication/service-account-token-signed-jwt-flags'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('sa-gone');
      const { token } = await serviceAccountToken(client, ns.name, name);
      const sa = clientWith(client.target, { token });
      await seenAs(sa, 'the token before its account is deleted');
      checkStatus(
        await client.delete(`/api/v1/namespaces/${ns.name}/serviceaccounts/${name}`),
        200,
        undefined,
        'delete the ServiceAccount',
      );
      await checkRefusedWithin(sa, 'a token of a deleted ServiceAccount');
      await client.post(`/api/v1/namespaces/${ns.name}/serviceaccounts`, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name },
      });
      await checkRefused(sa, 'a token of a deleted ServiceAccount whose name was taken again (another uid)');
    },
  );

  conformance(
    {
      id: 'authentication/service-account/wrong-signer',
      title: 'The claims of a valid token signed with a key the server does not trust are refused with 401',
      doc: 3,
      section: AUTH,
      place:
        'Service account token | Signed JWT; flags `--service-account-key-file` (PEM keys, repeatable ...)',
      specRules: ['doc3/authentication/service-account-token-signed-jwt-flags'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      await withNamespace(client, 'authn-sa', async (ns) => {
        const { token } = await serviceAccountToken(client, ns, uniqueName('sa-signer'));
        const alg = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')).alg as string;
        const { privateKey } = await generateKeyPair(alg);
        await checkRefused(
          clientWith(client.target, { token: await resigned(f, token, (p) => p, privateKey as CryptoKey) }),
          'the same claims signed by another key',
        );
        // the control: the same claims signed again with the trusted key are accepted
        await seenAs(
          clientWith(client.target, { token: await resigned(f, token, (p) => p) }),
          'the same claims signed again with the trusted key',
        );
      });
    },
    { needs: { auth: ['service-account'] } },
  );

  conformance(
    {
      id: 'authentication/service-account/expired',
      title: 'A service account token whose exp has passed is refused with 401',
      doc: 3,
      section: AUTH,
      place:
        'Service account token | Signed JWT (expiry not shown; Kubernetes refuses a token after its exp)',
      specRules: ['doc3/authentication/service-account-token-signed-jwt-flags'],
      level: 'BEYOND',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      await withNamespace(client, 'authn-sa', async (ns) => {
        const { token } = await serviceAccountToken(client, ns, uniqueName('sa-exp'));
        const past = Math.floor(Date.now() / 1000) - 3600;
        await checkRefused(
          clientWith(client.target, {
            token: await resigned(f, token, (p) => ({ ...p, exp: past, iat: past - 3600, nbf: past - 3600 })),
          }),
          'a token that expired an hour ago',
        );
      });
    },
    { needs: { auth: ['service-account'] } },
  );

  conformance(
    {
      id: 'authentication/service-account/other-audience',
      title: 'A token requested for an audience the server is not (and no API audience) is refused with 401',
      doc: 3,
      section: AUTH,
      place:
        'Service account token | Signed JWT (audiences not shown; Kubernetes accepts a token only when its audiences meet the API audiences)',
      specRules: ['doc3/authentication/service-account-token-signed-jwt-flags'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      const { token } = await serviceAccountToken(client, ns.name, uniqueName('sa-aud'), {
        audiences: ['https://not-this-server.example'],
      });
      checkEqual(
        decodeJwt(token).aud,
        ['https://not-this-server.example'],
        'the token carries the audience asked for',
      );
      await checkRefused(clientWith(client.target, { token }), 'a token for another audience');
    },
  );
});
