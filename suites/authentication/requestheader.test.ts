// doc3 § Authentication, "Authenticating proxy": username, groups and extras are read from
// request headers, but only from a proxy whose client certificate verifies against
// `--requestheader-client-ca-file` and, when `--requestheader-allowed-names` is set, names one
// of them.
import { readFileSync } from 'node:fs';
import { describe } from 'vitest';
import { checkEqual } from '../../harness/src/assert.ts';
import { clientCertClient, clientWith, proxyClient } from '../../harness/src/auth/credentials.ts';
import { issue } from '../../harness/src/auth/pki.ts';
import { conformance } from '../../harness/src/case.ts';
import { AUTH, checkUser, fixturesOf } from './helpers.ts';

const needs = { auth: ['requestheader' as const, 'client-cert' as const] };
const PROXY_PLACE =
  'Authenticating proxy flags: `--requestheader-username-headers` (required, ordered, case-insensitive; first non-empty value gives the username), `--requestheader-group-headers` (optional; all values become groups), `--requestheader-extra-headers-prefix` (optional; the prefix is stripped, the rest lower-cased and percent-decoded to form the extra key)';

describe('authentication: authenticating proxy', () => {
  conformance(
    {
      id: 'authentication/requestheader/user-groups-extra',
      title:
        "The proxy's headers name the user, every group header value becomes a group, and extra headers become extras with lower-cased, percent-decoded keys",
      doc: 3,
      section: AUTH,
      place: PROXY_PLACE,
      specRules: [
        'doc3/authentication/authenticating-proxy-flags-requestheader-username-headers',
        'doc3/authentication/authenticating-proxy-username-groups-extras-read',
      ],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const rh = f.requestHeader;
      const p = proxyClient(client.target, f);
      const u = rh.usernameHeaders[0]!;
      const g = rh.groupHeaders[0]!;
      const x = rh.extraHeadersPrefixes[0]!;
      const r = await p.post(
        '/apis/authentication.orch.io/v1beta1/selfsubjectreviews',
        { apiVersion: 'authentication.orch.io/v1beta1', kind: 'SelfSubjectReview' },
        { headers: { [u.toLowerCase()]: 'proxied-jane', [g]: 'proxied-g1', [`${x}Scopes%2FRead`]: 'alpha' } },
      );
      checkEqual(r.status, 201, `SelfSubjectReview through the proxy: ${r.describe()}`);
      const user = r.json?.status?.userInfo ?? {};
      checkUser(
        user,
        { username: 'proxied-jane', groups: ['proxied-g1', 'system:authenticated'] },
        'the user the proxy names',
      );
      checkEqual(
        user.extra?.['scopes/read'],
        ['alpha'],
        'extra key: prefix stripped, lower-cased, percent-decoded',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/requestheader/extra-key-any-name',
      title:
        'Extra headers whose names end in __proto__ or constructor become extras of those keys, like any other name',
      doc: 3,
      section: AUTH,
      place: PROXY_PLACE,
      specRules: ['doc3/authentication/authenticating-proxy-flags-requestheader-username-headers'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const rh = f.requestHeader;
      const x = rh.extraHeadersPrefixes[0]!;
      const r = await proxyClient(client.target, f).post(
        '/apis/authentication.orch.io/v1beta1/selfsubjectreviews',
        { apiVersion: 'authentication.orch.io/v1beta1', kind: 'SelfSubjectReview' },
        {
          headers: {
            [rh.usernameHeaders[0]!.toLowerCase()]: 'proxied-proto',
            [`${x}__proto__`]: 'p',
            [`${x}Constructor`]: 'c',
          },
        },
      );
      checkEqual(r.status, 201, `SelfSubjectReview through the proxy: ${r.describe()}`);
      const extra = r.json?.status?.userInfo?.extra ?? {};
      checkEqual(Object.getOwnPropertyDescriptor(extra, '__proto__')?.value, ['p'], 'the extra __proto__');
      checkEqual(
        Object.getOwnPropertyDescriptor(extra, 'constructor')?.value,
        ['c'],
        'the extra constructor (lower-cased)',
      );
    },
    { needs },
  );

  conformance(
    {
      id: 'authentication/requestheader/untrusted-sender',
      title:
        "Proxy headers sent with a certificate that is not the proxy's (another CA, or a name not allowed) do not name the user",
      doc: 3,
      section: AUTH,
      place:
        '`--requestheader-client-ca-file` (required; the proxy must present a certificate verified by it), `--requestheader-allowed-names` (optional list of allowed common names)',
      specRules: ['doc3/authentication/authenticating-proxy-flags-requestheader-username-headers'],
      level: 'MUST',
    },
    async ({ client, target }) => {
      const f = fixturesOf(target);
      const header = f.requestHeader.usernameHeaders[0]!;
      // a certificate of the client CA: the request is the certificate's user, the header is ignored
      const c = await clientCertClient(client.target, f, { cn: 'ordinary-client' });
      const r1 = await c.post(
        '/apis/authentication.orch.io/v1beta1/selfsubjectreviews',
        { apiVersion: 'authentication.orch.io/v1beta1', kind: 'SelfSubjectReview' },
        { headers: { [header]: 'system:admin-by-header' } },
      );
      checkEqual(
        r1.json?.status?.userInfo?.username,
        'ordinary-client',
        `a client-CA certificate with a username header: ${r1.describe()}`,
      );
      // the proxy's CA, but a common name not among the allowed names: the header is ignored
      const rhCa = {
        cert: readFileSync(f.requestHeader.ca, 'utf8'),
        key: readFileSync(f.requestHeader.caKey, 'utf8'),
      };
      const other = clientWith(client.target, await issue(rhCa, { cn: 'not-the-proxy' }));
      const r2 = await other.post(
        '/apis/authentication.orch.io/v1beta1/selfsubjectreviews',
        { apiVersion: 'authentication.orch.io/v1beta1', kind: 'SelfSubjectReview' },
        { headers: { [header]: 'system:admin-by-header' } },
      );
      const name2 = r2.json?.status?.userInfo?.username;
      checkEqual(
        name2 === 'system:admin-by-header',
        false,
        `a request-header CA certificate with a name not allowed must not be the header's user: ${r2.describe()}`,
      );
    },
    { needs },
  );
});
