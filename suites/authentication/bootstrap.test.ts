// doc3 § Bootstrap token secret, § Authentication ("Bootstrap token"), § States and
// transitions: a secret of type `bootstrap.orch.io/token` in the system namespace named
// `bootstrap-token-<id>`; the token text is `<id>.<secret>`; username
// `system:bootstrap:<token-id>`, group `system:bootstrappers` plus `auth-extra-groups`;
// expired tokens are refused and deleted by the token cleaner controller.
import { randomBytes } from 'node:crypto';
import { afterAll, describe } from 'vitest';
import { check, checkStatus } from '../../harness/src/assert.ts';
import { clientWith } from '../../harness/src/auth/credentials.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { checkRefused, checkUser, seenAsOnceStored } from './helpers.ts';

const needs = { auth: ['bootstrap' as const] };
const SECTION = 'Bootstrap token secret';
const SECRETS = '/api/v1/namespaces/orch-system/secrets';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const made: { client: Client; name: string }[] = [];
/** How long the case waits for the token cleaner after the expiration. */
const CLEANER_WAIT_MS = 60_000;

function word(n: number): string {
  const b = randomBytes(n);
  return Array.from(b, (x) => ALPHABET[x % ALPHABET.length]).join('');
}

/** Creates a bootstrap token secret; returns the token text. */
async function bootstrapToken(
  c: Client,
  data: Record<string, string> = {},
  o: { id?: string; secret?: string } = {},
): Promise<{ id: string; token: string }> {
  const id = o.id ?? word(6);
  const secret = o.secret ?? word(16);
  const name = `bootstrap-token-${id}`;
  const r = await c.post(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name },
    type: 'bootstrap.orch.io/token',
    stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', ...data },
  });
  checkStatus(r, 201, undefined, `create the bootstrap token secret ${name}`);
  made.push({ client: c, name });
  return { id, token: `${id}.${secret}` };
}

const rfc3339 = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

describe('authentication: bootstrap tokens', () => {
  afterAll(async () => {
    for (const m of made) await m.client.delete(`${SECRETS}/${m.name}`).catch(() => undefined);
  });

  conformance(
    {
      id: 'authentication/bootstrap/user-and-groups',
      title:
        'A bootstrap token authenticates as system:bootstrap:<id> in system:bootstrappers plus its auth-extra-groups',
      doc: 3,
      section: 'Authentication',
      place:
        'Bootstrap token | ... username `system:bootstrap:<token-id>`; group `system:bootstrappers` plus `auth-extra-groups`',
      specRules: ['doc3/authentication/bootstrap-token-flag-enable-bootstrap-token'],
      level: 'MUST',
    },
    async ({ client }) => {
      const { id, token } = await bootstrapToken(client, {
        'auth-extra-groups': 'system:bootstrappers:conformance-a,system:bootstrappers:conformance-b',
        expiration: rfc3339(Date.now() + 3600_000),
      });
      const u = await seenAsOnceStored(clientWith(client.target, { token }), 'a bootstrap token');
      checkUser(
        u,
        {
          username: `system:bootstrap:${id}`,
          groups: [
            'system:bootstrappers',
            'system:bootstrappers:conformance-a',
            'system:bootstrappers:conformance-b',
            'system:authenticated',
          ],
        },
        'the bootstrap token user',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/bootstrap/wrong-secret',
      title: 'The id of a bootstrap token with another secret is refused with 401',
      doc: 3,
      section: SECTION,
      place: 'The token text is the id, a dot and the secret',
      specRules: ['doc3/bootstrap-token-secret/token-text-id-dot-secret'],
      level: 'MUST',
    },
    async ({ client }) => {
      const { id } = await bootstrapToken(client);
      await checkRefused(
        clientWith(client.target, { token: `${id}.${word(16)}` }),
        'a known token id with a wrong secret',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/bootstrap/expired',
      title: 'A bootstrap token whose expiration has passed is refused with 401',
      doc: 3,
      section: SECTION,
      place:
        'expiration | no | RFC 3339 UTC time; expired tokens are refused for authentication and ignored for signing',
      specRules: ['doc3/bootstrap-token-secret/expiration-no-rfc-3339-utc-time'],
      level: 'MUST',
    },
    async ({ client }) => {
      const { token } = await bootstrapToken(client, { expiration: rfc3339(Date.now() - 60_000) });
      await checkRefused(clientWith(client.target, { token }), 'an expired bootstrap token');
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/bootstrap/usage-required',
      title: 'A bootstrap token without usage-bootstrap-authentication "true" is refused with 401',
      doc: 3,
      section: SECTION,
      place: 'usage-bootstrap-authentication | no | `true` allows use as a bearer token',
      specRules: ['doc3/bootstrap-token-secret/usage-bootstrap-authentication-no-true-allows'],
      level: 'MUST',
    },
    async ({ client }) => {
      const off = await bootstrapToken(client, { 'usage-bootstrap-authentication': 'false' });
      await checkRefused(
        clientWith(client.target, { token: off.token }),
        'usage-bootstrap-authentication "false"',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/bootstrap/extra-group-prefix',
      title:
        'A bootstrap token whose auth-extra-groups holds a group without the system:bootstrappers: prefix is refused with 401',
      doc: 3,
      section: SECTION,
      place: 'auth-extra-groups | no | comma-separated groups; each must start with `system:bootstrappers:`',
      specRules: ['doc3/bootstrap-token-secret/auth-extra-groups-no-comma-separated'],
      level: 'MUST',
    },
    async ({ client }) => {
      const { token } = await bootstrapToken(client, {
        'auth-extra-groups': 'system:bootstrappers:ok,system:masters',
      });
      await checkRefused(clientWith(client.target, { token }), 'auth-extra-groups naming system:masters');
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/bootstrap/token-cleaner',
      title: 'The token cleaner deletes the secret of a bootstrap token once it has expired',
      doc: 3,
      section: 'States and transitions',
      place:
        'Bootstrap token: usable until `expiration`; expired tokens are refused and deleted by the token cleaner controller',
      specRules: ['doc3/states-transitions/bootstrap-token-usable-until-expiration-expired'],
      level: 'MUST',
    },
    async ({ client }) => {
      const { id, token } = await bootstrapToken(client, { expiration: rfc3339(Date.now() + 3_000) });
      await seenAsOnceStored(clientWith(client.target, { token }), 'the token before it expires', 2);
      // doc3 sets no bound; a busy cluster's controller manager can be slow to act on the expiry
      const deadline = Date.now() + CLEANER_WAIT_MS;
      let status = 200;
      while (Date.now() < deadline) {
        status = (await client.get(`${SECRETS}/bootstrap-token-${id}`)).status;
        if (status === 404) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      check(
        status === 404,
        `the expired secret deleted within ${CLEANER_WAIT_MS / 1000} s of its expiration (GET answers 404)`,
        `GET answered ${status}`,
      );
    },
    { needs, timeout: CLEANER_WAIT_MS + 20_000 },
  );
});
