// doc3 § Authentication, "Static token file": `--token-auth-file`, a CSV of token, user name,
// user uid, then optional group names; the token is sent as `Authorization: Bearer <token>`.
import { describe } from 'vitest';
import { clientWith } from '../../harness/src/auth/credentials.ts';
import { conformance } from '../../harness/src/case.ts';
import { AUTH, checkRefused, checkUser, fixturesOf, seenAs } from './helpers.ts';

const needs = { auth: ['token-file' as const] };

describe('authentication: static token file', () => {
  conformance(
    {
      id: 'authentication/token-file/user-uid-groups',
      title:
        'A token of the token file authenticates as its user, with its uid and its groups plus system:authenticated',
      doc: 3,
      section: AUTH,
      place:
        'Static token file | Flag `--token-auth-file=<file>`; CSV with columns token, user name, user uid, then optional group names',
      specRules: ['doc3/authentication/static-token-file-flag-token-auth'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const alice = f.tokens[0]!;
      const u = await seenAs(clientWith(client.target, { token: alice.token }), 'token-file user');
      checkUser(
        u,
        { username: alice.user, uid: alice.uid, groups: [...alice.groups, 'system:authenticated'] },
        'the token file user',
      );
      const bob = f.tokens[1]!;
      const b = await seenAs(
        clientWith(client.target, { token: bob.token }),
        'token-file user without groups',
      );
      checkUser(
        b,
        { username: bob.user, uid: bob.uid, groups: ['system:authenticated'] },
        'a user with no groups in the file',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/token-file/unknown-token',
      title: 'A token that differs from a listed one by one character is refused with 401',
      doc: 3,
      section: AUTH,
      place: 'A request with an invalid bearer token is rejected with 401, not treated as anonymous',
      specRules: ['doc3/authentication/request-invalid-bearer-token-rejected-401'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const t = fixturesOf(target).tokens[0]!.token;
      const near = t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A');
      await checkRefused(
        clientWith(client.target, { token: near }),
        'a token one character off a listed one',
      );
      // glued: Kubernetes takes the word after `Bearer ` as the token, so a second word is ignored
      await checkRefused(
        clientWith(client.target, { token: `${t}${t}` }),
        'a listed token followed by more text',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/authenticated-group',
      title: 'Every authenticated user gets the group system:authenticated, and not system:unauthenticated',
      doc: 3,
      section: AUTH,
      place: 'Every authenticated user gets the group `system:authenticated`',
      specRules: ['doc3/authentication/every-authenticated-user-gets-group-system'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      for (const t of f.tokens) {
        const u = await seenAs(clientWith(client.target, { token: t.token }), t.user);
        checkUser(
          u,
          { username: t.user, groups: ['system:authenticated'], noGroups: ['system:unauthenticated'] },
          t.user,
        );
      }
    },
    { needs },
  );
});
