// doc3 § Authentication, "Client certificate": `--client-ca-file` (one or more authorities);
// username from the subject common name, each organization field adds a group. Ordinary users
// are not API objects: a holder of a certificate signed by the cluster CA is authenticated.
import { readFileSync } from 'node:fs';
import { describe } from 'vitest';
import { clientCertClient, clientWith } from '../../harness/src/auth/credentials.ts';
import { issue, makeCa } from '../../harness/src/auth/pki.ts';
import { conformance } from '../../harness/src/case.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import { AUTH, checkRefused, checkUser, fixturesOf, seenAs } from './helpers.ts';

const needs = { auth: ['client-cert' as const] };
const DAY = 24 * 3600 * 1000;

describe('authentication: client certificates', () => {
  conformance(
    {
      id: 'authentication/client-cert/cn-and-organizations',
      title:
        'A certificate issued by the client CA authenticates as its common name, with one group per organization',
      doc: 3,
      section: AUTH,
      place:
        'Client certificate | Server flag `--client-ca-file=<file>` (one or more authorities). Username from the subject common name; each organization field adds a group',
      specRules: ['doc3/authentication/client-certificate-server-flag-client-ca'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const name = uniqueName('cert-user');
      const c = await clientCertClient(client.target, f, { cn: name, orgs: ['team-a', 'team-b'] });
      const u = await seenAs(c, 'a client certificate from the client CA');
      checkUser(
        u,
        { username: name, groups: ['team-a', 'team-b', 'system:authenticated'] },
        'the certificate user',
      );
      const solo = await seenAs(
        await clientCertClient(client.target, f, { cn: `${name}-solo` }),
        'a certificate without organizations',
      );
      checkUser(
        solo,
        { username: `${name}-solo`, groups: ['system:authenticated'], noGroups: ['team-a'] },
        'no organization, no group',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/client-cert/untrusted-authority',
      title:
        'A certificate from an authority the server does not trust is refused with 401, not served as anonymous',
      doc: 3,
      section: AUTH,
      place:
        'a holder of a certificate signed by the cluster CA is authenticated (a certificate signed by another authority is not)',
      specRules: ['doc3/authentication/ordinary-users-not-api-objects-they'],
      level: 'MUST',
    },
    async ({ client }) => {
      const rogue = await makeCa('rogue-ca');
      const kp = await issue(rogue, { cn: 'mallory', orgs: ['system:masters'] });
      await checkRefused(
        clientWith(client.target, kp),
        'a certificate issued by an untrusted CA naming system:masters',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/client-cert/expired',
      title: 'A certificate of the client CA that has expired (or is not yet valid) is refused with 401',
      doc: 3,
      section: AUTH,
      place:
        'Client certificate (validity not shown; Kubernetes verifies the chain at the current time and refuses an expired certificate)',
      specRules: ['doc3/authentication/service-authenticates-each-request-client-certificate'],
      level: 'BEYOND',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const ca = { cert: readFileSync(f.clientCa.cert, 'utf8'), key: readFileSync(f.clientCa.key, 'utf8') };
      const old = await issue(ca, {
        cn: 'expired-user',
        notBefore: new Date(Date.now() - 10 * DAY),
        notAfter: new Date(Date.now() - DAY),
      });
      await checkRefused(clientWith(client.target, old), 'an expired client certificate');
      const future = await issue(ca, {
        cn: 'future-user',
        notBefore: new Date(Date.now() + DAY),
        notAfter: new Date(Date.now() + 10 * DAY),
      });
      await checkRefused(clientWith(client.target, future), 'a client certificate not yet valid');
    },
    { needs },
  );
});
