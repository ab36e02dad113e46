// doc3 § Authentication, OpenID Connect: the `id_token` is sent as the bearer token; the
// server verifies signature and expiry and does not contact the identity provider per
// request; `--oidc-client-id` is the audience the tokens must carry; the username and groups
// come from the configured claims (with their prefixes); `--oidc-required-claim` must match.
// The fixtures configure: username claim `email` (`sub` on the oidc-sub target), groups claim
// `groups` with prefix `oidc:`, required claim tenant=conformance; the harness serves the issuer
// during the run.
import { generateKeyPair, SignJWT } from 'jose';
import { readFileSync } from 'node:fs';
import { describe } from 'vitest';
import { checkEqual } from '../../harness/src/assert.ts';
import { callbackCounts, clientWith, oidcIdToken } from '../../harness/src/auth/credentials.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import { AUTH, checkRefused, checkUser, fixturesOf, seenAs } from './helpers.ts';

const needs = { auth: ['oidc' as const] };
const FLAGS = 'OpenID Connect server flags';

describe('authentication: OpenID Connect', () => {
  conformance(
    {
      id: 'authentication/oidc/claims-to-user',
      title:
        'An id_token from the issuer authenticates as its email claim (no prefix for email), with its groups claim prefixed',
      doc: 3,
      section: AUTH,
      place: `${FLAGS}: \`--oidc-username-claim\` ... claims other than \`email\` get the issuer URL plus \`#\` as prefix unless a prefix flag is set; \`--oidc-groups-claim\`; \`--oidc-groups-prefix\``,
      specRules: [
        'doc3/authentication/oidc-username-claim-default-sub-claims',
        'doc3/authentication/oidc-groups-claim-claim-holding-array',
        'doc3/authentication/oidc-groups-prefix-prefix-group-names',
      ],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const email = `${uniqueName('jane')}@example.com`;
      const tok = await oidcIdToken(f, {
        sub: uniqueName('sub'),
        email,
        email_verified: true,
        groups: ['devs', 'ops'],
      });
      const u = await seenAs(clientWith(client.target, { token: tok }), 'an OIDC id_token');
      checkUser(
        u,
        {
          username: email,
          groups: [`${f.oidc.groupsPrefix}devs`, `${f.oidc.groupsPrefix}ops`, 'system:authenticated'],
          noGroups: ['devs'],
        },
        'the OIDC user',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/oidc/issuer-prefixed-username',
      title:
        'With the username from a claim other than email and no prefix flag, the username is the issuer URL, `#`, then the claim',
      doc: 3,
      section: AUTH,
      place: `${FLAGS}: \`--oidc-username-claim\` | default \`sub\`; claims other than \`email\` get the issuer URL plus \`#\` as prefix unless a prefix flag is set`,
      specRules: ['doc3/authentication/oidc-username-claim-default-sub-claims'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const sub = uniqueName('sub');
      const tok = await oidcIdToken(f, {
        sub,
        email: `${sub}@example.com`,
        email_verified: true,
        groups: ['devs'],
      });
      const u = await seenAs(clientWith(client.target, { token: tok }), 'an OIDC id_token');
      checkUser(
        u,
        {
          username: `${f.oidc.issuerUrl}#${sub}`,
          groups: [`${f.oidc.groupsPrefix}devs`, 'system:authenticated'],
        },
        'the OIDC user named by its sub claim',
      );
    },
    { needs: { auth: ['oidc-sub'] } },
  );

  conformance(
    {
      id: 'authentication/oidc/audience',
      title: 'An id_token whose audience is not the client id is refused with 401',
      doc: 3,
      section: AUTH,
      place: `${FLAGS}: \`--oidc-client-id\` | required; audience the tokens must carry`,
      specRules: ['doc3/authentication/oidc-client-id-required-audience-tokens'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const tok = await oidcIdToken(f, {
        sub: 's',
        email: 'a@example.com',
        email_verified: true,
        aud: 'some-other-client',
      });
      await checkRefused(clientWith(client.target, { token: tok }), 'an id_token for another client');
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/oidc/expired',
      title: 'An expired id_token is refused with 401',
      doc: 3,
      section: AUTH,
      place: 'OpenID Connect | ... the server verifies signature and expiry',
      specRules: ['doc3/authentication/openid-connect-id-token-not-access'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const past = Math.floor(Date.now() / 1000) - 600;
      const tok = await oidcIdToken(
        f,
        { sub: 's', email: 'a@example.com', email_verified: true, iat: past - 600 },
        { expiresIn: past },
      );
      await checkRefused(
        clientWith(client.target, { token: tok }),
        'an id_token that expired ten minutes ago',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/oidc/signature',
      title: "An id_token signed by another key under the issuer's key id is refused with 401",
      doc: 3,
      section: AUTH,
      place: 'OpenID Connect | ... the server verifies signature and expiry',
      specRules: ['doc3/authentication/openid-connect-id-token-not-access'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const kid = (JSON.parse(readFileSync(f.oidc.signingJwk, 'utf8')) as { kid: string }).kid;
      const { privateKey } = await generateKeyPair('RS256');
      const now = Math.floor(Date.now() / 1000);
      const forged = await new SignJWT({
        iss: f.oidc.issuerUrl,
        aud: f.oidc.clientId,
        sub: 's',
        email: 'a@example.com',
        email_verified: true,
        ...f.oidc.requiredClaims,
        iat: now,
      })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setExpirationTime('1h')
        .sign(privateKey);
      await checkRefused(clientWith(client.target, { token: forged }), 'an id_token with a forged signature');
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/oidc/required-claim',
      title: 'An id_token without a required claim, or with another value for it, is refused with 401',
      doc: 3,
      section: AUTH,
      place: `${FLAGS}: \`--oidc-required-claim\` | repeatable \`key=value\` claims that must be present`,
      specRules: ['doc3/authentication/oidc-required-claim-repeatable-key-value'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const [k] = Object.keys(f.oidc.requiredClaims);
      const wrong = await oidcIdToken(f, {
        sub: 's',
        email: 'a@example.com',
        email_verified: true,
        [k!]: 'another-tenant',
      });
      await checkRefused(
        clientWith(client.target, { token: wrong }),
        `required claim ${k} with another value`,
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/oidc/no-call-per-request',
      title: 'Authenticating id_tokens makes no request to the issuer once its keys are known',
      doc: 3,
      section: AUTH,
      place:
        'OpenID Connect | ... the server verifies signature and expiry and does not contact the identity provider per request',
      specRules: ['doc3/authentication/openid-connect-id-token-not-access'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const tok = await oidcIdToken(f, { sub: 's', email: 'counted@example.com', email_verified: true });
      const c = clientWith(client.target, { token: tok });
      await seenAs(c, 'a first request (keys may be fetched now)');
      const before = await callbackCounts(f);
      for (let i = 0; i < 5; i++) {
        const other = await oidcIdToken(f, {
          sub: `s${i}`,
          email: `n${i}@example.com`,
          email_verified: true,
        });
        await seenAs(clientWith(client.target, { token: other }), `request ${i + 2}`);
      }
      const after = await callbackCounts(f);
      checkEqual(
        { discovery: after.discovery - before.discovery, jwks: after.jwks - before.jwks },
        { discovery: 0, jwks: 0 },
        'requests to the issuer during five authentications with known keys',
      );
    },
    { needs },
  );
});
