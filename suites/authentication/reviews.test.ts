// doc3 § Review objects and § Self review: TokenReview (`authentication.orch.io/v1`; its
// `v1beta1` is no longer served, doc2's retired-versions table) answers with `status.authenticated`, `status.user`, `status.audiences` and
// `status.error`, in the API version of the request; SelfSubjectReview fills
// `status.userInfo` with the caller's identity, and every authenticated user may create it.
import { describe } from 'vitest';
import { check, checkEqual, checkStatus, show } from '../../harness/src/assert.ts';
import { clientWith, serviceAccountToken } from '../../harness/src/auth/credentials.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { checkUser } from './helpers.ts';

const REVIEW = 'Review objects';

describe('authentication: review objects', () => {
  const ns = useNamespace('authn-review');

  for (const version of ['v1'])
    conformance(
      {
        id: `authentication/token-review/${version}-answer`,
        title: `A TokenReview sent as authentication.orch.io/${version} is answered in ${version}, with the token's user`,
        doc: 3,
        section: REVIEW,
        place:
          'TokenReview (`authentication.orch.io/v1` or `v1beta1`): ... `status.authenticated` (bool), `status.user` (`username` required, `uid`, `groups`, `extra` ...). The response must use the same API version as the request',
        specRules: [
          'doc3/review-objects/tokenreview-authentication-orch-io-v1-v1beta1',
          'doc3/review-objects/response-must-use-same-api-version',
        ],
        level: 'MUST',
      },
      async ({ client }) => {
        const name = uniqueName('tr');
        const { token, uid } = await serviceAccountToken(client, ns.name, name);
        const r = await client.post(`/apis/authentication.orch.io/${version}/tokenreviews`, {
          apiVersion: `authentication.orch.io/${version}`,
          kind: 'TokenReview',
          spec: { token },
        });
        checkStatus(r, 201, undefined, `TokenReview in ${version}`);
        checkEqual(
          r.json?.apiVersion,
          `authentication.orch.io/${version}`,
          'the answer is in the version of the request',
        );
        checkEqual(r.json?.kind, 'TokenReview', 'kind of the answer');
        checkEqual(r.json?.status?.authenticated, true, 'status.authenticated');
        checkUser(
          r.json?.status?.user ?? {},
          {
            username: `system:serviceaccount:${ns.name}:${name}`,
            uid,
            groups: ['system:serviceaccounts', `system:serviceaccounts:${ns.name}`],
          },
          'status.user',
        );
      },
    );

  conformance(
    {
      id: 'authentication/token-review/failure',
      title:
        'A TokenReview of a token no method accepts answers authenticated false (an error text is optional), not an HTTP error',
      doc: 3,
      section: 'Errors',
      place: 'Token review failure | `authenticated: false`, optional `error` text',
      specRules: ['doc3/errors/token-review-failure-authenticated-false-optional'],
      level: 'MUST',
    },
    async ({ client }) => {
      const r = await client.post('/apis/authentication.orch.io/v1/tokenreviews', {
        apiVersion: 'authentication.orch.io/v1',
        kind: 'TokenReview',
        spec: { token: 'garbage.token.value' },
      });
      checkStatus(r, 201, undefined, 'TokenReview of an invalid token');
      check(
        r.json?.status?.authenticated !== true,
        'status.authenticated false or absent',
        show(r.json?.status),
      );
      check(!r.json?.status?.user?.username, 'no user for a refused token', show(r.json?.status));
    },
  );

  conformance(
    {
      id: 'authentication/token-review/audiences',
      title:
        'A TokenReview with spec.audiences of a token bound to one of them answers that audience in status.audiences',
      doc: 3,
      section: REVIEW,
      place:
        'TokenReview ...: `spec.audiences` (optional list of string); ... `status.audiences` (optional list)',
      specRules: ['doc3/review-objects/tokenreview-authentication-orch-io-v1-v1beta1'],
      level: 'BEYOND',
    },
    async ({ client }) => {
      const aud = `https://${uniqueName('aud')}.example`;
      const { token } = await serviceAccountToken(client, ns.name, uniqueName('tr-aud'), {
        audiences: [aud],
      });
      const r = await client.post('/apis/authentication.orch.io/v1/tokenreviews', {
        apiVersion: 'authentication.orch.io/v1',
        kind: 'TokenReview',
        spec: { token, audiences: [aud] },
      });
      checkStatus(r, 201, undefined, 'TokenReview with audiences');
      checkEqual(r.json?.status?.authenticated, true, 'authenticated for its own audience');
      checkEqual(r.json?.status?.audiences, [aud], 'status.audiences');
    },
  );

  conformance(
    {
      id: 'authentication/self-review/user-info',
      title:
        "A SelfSubjectReview without fields answers 201 with the caller's username, uid and groups in status.userInfo",
      doc: 3,
      section: 'Self review',
      place:
        'POST `/apis/authentication.orch.io/v1beta1/selfsubjectreviews` with a SelfSubjectReview body without fields; the reply fills `status.userInfo`',
      specRules: [
        'doc3/self-review/post-apis-authentication-orch-io-v1beta1',
        'doc3/review-objects/selfsubjectreview-authentication-orch-io-v1beta1-no',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('ssr');
      const { token, uid } = await serviceAccountToken(client, ns.name, name);
      const r = await clientWith(client.target, { token }).post(
        '/apis/authentication.orch.io/v1beta1/selfsubjectreviews',
        {
          apiVersion: 'authentication.orch.io/v1beta1',
          kind: 'SelfSubjectReview',
        },
      );
      // a plain service account holds no role but system:basic-user's: the review is allowed
      checkStatus(
        r,
        201,
        undefined,
        'SelfSubjectReview by a service account (every authenticated user may create it)',
      );
      checkUser(
        r.json?.status?.userInfo ?? {},
        {
          username: `system:serviceaccount:${ns.name}:${name}`,
          uid,
          groups: ['system:serviceaccounts', 'system:authenticated'],
        },
        'status.userInfo',
      );
    },
  );
});
