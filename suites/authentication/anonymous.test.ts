// doc3 § Authentication: requests that no method accepts are anonymous when anonymous access
// is on (user `system:anonymous`, group `system:unauthenticated`); a request with an invalid
// bearer token is rejected with 401, not treated as anonymous.
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { check, checkStatus } from '../../harness/src/assert.ts';
import { clientWith } from '../../harness/src/auth/credentials.ts';
import { conformance } from '../../harness/src/case.ts';
import { useNamespace } from '../../harness/src/fixtures.ts';
import { AUTH, checkRefused } from './helpers.ts';

describe('authentication: anonymous requests and invalid bearer tokens', () => {
  // the anonymous list below names this namespace: it exists, so only authorization refuses
  const ns = useNamespace('authn-anon');

  conformance(
    {
      id: 'authentication/anonymous/identity',
      title:
        'A request without credentials is served as user system:anonymous in group system:unauthenticated (refused by authorization, not by authentication)',
      doc: 3,
      section: AUTH,
      place:
        'Anonymous requests: user `system:anonymous`, group `system:unauthenticated` ... from version 1.6 it is on by default',
      specRules: [
        'doc3/authentication/enabled-anonymous-auth-version-1-6',
        'doc3/authentication/anonymous-requests-user-system-anonymous-group',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const anon = clientWith(client.target, {});
      const r = await anon.get(`/api/v1/namespaces/${ns.name}/secrets`);
      // authenticated as anonymous, then refused by authorization: 403 naming the user
      checkStatus(
        r,
        403,
        'Forbidden',
        'an anonymous list of secrets (anonymous access on, no rule grants it)',
      );
      check(
        /User "system:anonymous"/.test(r.statusObj?.message ?? ''),
        'the refusal names the user system:anonymous (Kubernetes: `User "system:anonymous" cannot list resource ...`)',
        r.describe(),
      );
    },
  );

  conformance(
    {
      id: 'authentication/anonymous/public-info',
      title:
        'An anonymous request may read the version and health endpoints (system:public-info-viewer is bound to system:unauthenticated)',
      doc: 3,
      section: AUTH,
      place:
        'Anonymous requests: ... role-based and attribute-based authorization grant nothing to anonymous users without explicit rules (Kubernetes 1.28 binds system:public-info-viewer to system:unauthenticated)',
      specRules: [
        'doc3/authentication/enabled-anonymous-auth-version-1-6',
        'doc3/authentication/anonymous-requests-user-system-anonymous-group',
      ],
      level: 'BEYOND',
    },
    async ({ client }) => {
      const anon = clientWith(client.target, {});
      for (const p of ['/version', '/healthz', '/livez', '/readyz'])
        checkStatus(await anon.get(p), 200, undefined, `anonymous GET ${p}`);
    },
  );

  conformance(
    {
      id: 'authentication/bearer/invalid-token-401',
      title:
        'A request with a bearer token no method accepts answers 401 Unauthorized, even where anonymous access is on',
      doc: 3,
      section: AUTH,
      place: 'A request with an invalid bearer token is rejected with 401, not treated as anonymous',
      specRules: ['doc3/authentication/request-invalid-bearer-token-rejected-401'],
      level: 'MUST',
    },
    async ({ client }) => {
      for (const token of [randomBytes(16).toString('hex'), 'a.b.c', 'abcdef.0123456789abcdef', 'x'])
        await checkRefused(clientWith(client.target, { token }), `bearer token ${JSON.stringify(token)}`);
    },
  );

  conformance(
    {
      id: 'authentication/errors/invalid-bearer',
      title: 'The 401 for an invalid bearer token is a Status with reason Unauthorized',
      doc: 3,
      section: 'Errors',
      place: 'Invalid bearer token | 401 Unauthorized',
      specRules: ['doc3/errors/invalid-bearer-token-401-unauthorized'],
      level: 'MUST',
    },
    async ({ client }) => {
      const r = await clientWith(client.target, { token: 'not-a-token' }).get('/api/v1/namespaces');
      checkStatus(r, 401, 'Unauthorized', 'a list with an invalid bearer token');
      check(r.statusObj?.kind === 'Status', 'the body is a Status object', r.describe());
    },
  );
});
