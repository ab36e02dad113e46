// doc3 § Other callbacks ("Authentication webhook"), § Review objects (TokenReview), § Limits:
// the server POSTs a TokenReview to the webhook of `--authentication-token-webhook-config-file`
// in the version of `--authentication-token-webhook-version`, and caches answers
// (`--authentication-token-webhook-cache-ttl`, default 2 minutes). The fixtures configure v1;
// the harness's webhook accepts the fixtures' webhook tokens.
import { describe } from 'vitest';
import { checkEqual } from '../../harness/src/assert.ts';
import { tokenKey } from '../../harness/src/auth/callbacks.ts';
import { callbackCounts, clientWith } from '../../harness/src/auth/credentials.ts';
import { conformance } from '../../harness/src/case.ts';
import { checkRefused, checkUser, fixturesOf, seenAs } from './helpers.ts';

const needs = { auth: ['token-webhook' as const] };

describe('authentication: token webhook', () => {
  conformance(
    {
      id: 'authentication/token-webhook/user',
      title:
        "A token the webhook accepts authenticates as the webhook's user, and the review was sent in the configured version",
      doc: 3,
      section: 'Other callbacks',
      place:
        'Authentication webhook: the server POSTs a TokenReview and expects the reply described above ... `--authentication-token-webhook-version` (`v1` or `v1beta1`; default `v1beta1`)',
      specRules: [
        'doc3/other-callbacks/authentication-webhook-server-posts-tokenreview-expects',
        'doc3/other-callbacks/server-flags-authentication-token-webhook-config',
      ],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const t = f.webhook.tokens[0]!;
      const u = await seenAs(clientWith(client.target, { token: t.token }), 'a webhook token');
      checkUser(
        u,
        { username: t.user, uid: t.uid, groups: [...t.groups, 'system:authenticated'] },
        'the webhook user',
      );
      checkEqual(
        (await callbackCounts(f)).lastReviewVersion,
        client.d.w(`authentication.orch.io/${f.webhook.version}`),
        'apiVersion of the TokenReview the webhook got',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/token-webhook/refused',
      title: 'A token the webhook does not authenticate is refused with 401',
      doc: 3,
      section: 'Errors',
      place:
        'Token review failure | `authenticated: false`, optional `error` text (and an invalid bearer token is 401)',
      specRules: ['doc3/errors/token-review-failure-authenticated-false-optional'],
      level: 'MUST',
    },
    async ({ client }) => {
      await checkRefused(
        clientWith(client.target, { token: 'wh-unknown-to-the-webhook' }),
        'a token the webhook refuses',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/token-webhook/cache',
      title: 'Within the cache time the same token is not sent to the webhook again',
      doc: 3,
      section: 'Limits',
      place: 'Authentication webhook cache | default 2 minutes',
      specRules: ['doc3/limits/authentication-webhook-cache-default-2-minutes'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const token = f.webhook.tokens[0]!.token;
      const c = clientWith(client.target, { token });
      await seenAs(c, 'first use of the token');
      const sent = async () => (await callbackCounts(f)).byToken[tokenKey(token)] ?? 0;
      const before = await sent();
      for (let i = 0; i < 3; i++) await seenAs(c, `use ${i + 2} of the token`);
      checkEqual(
        (await sent()) - before,
        0,
        'TokenReviews of this token sent to the webhook for three more uses within the cache time',
      );
    },
    // the cache is each server's own: every use goes to the same one
    { needs, oneServer: true },
  );
});
