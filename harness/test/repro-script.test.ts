// The reproducer script's text (harness/src/repro/script.ts): what it must never hold (tokens,
// keys), what it makes fresh (the run's unique names), that bash accepts it, and which step a
// failure is about. Its behaviour against real endpoints: scripts/test/repro.test.ts.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { attachReproducers } from '../../reports/junit.ts';
import { failingStep } from '../src/repro/case-tape.ts';
import type { Exchange } from '../src/repro/exchange.ts';
import { reproScript } from '../src/repro/script.ts';
import type { Recorded } from '../src/repro/tape.ts';

const RUN_TOKEN = 'run-token-4f9c2a7e1b';
const OWN_TOKEN = 'own-token-88d1c0e5aa';
const HEADER_TOKEN = 'header-token-17ce02';
// a service account token as a server issues it (a JWT), and a private key
const JWT =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6IngifQ.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6ZGVmYXVsdDpkZWZhdWx0In0.c2lnbmF0dXJlLWJ5dGVz';
const KEY = '-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEAv1cX\\n-----END RSA PRIVATE KEY-----';

const bashAccepts = (text: string) => spawnSync('bash', ['-n'], { input: text, encoding: 'utf8' });

describe('reproducer scripts', () => {
  const steps: Exchange[] = [
    {
      method: 'POST',
      path: '/apis/authentication.orch.io/v1/tokenreviews',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'TokenReview', spec: { token: RUN_TOKEN } }),
      status: 201,
      answer: JSON.stringify({ kind: 'TokenReview', status: { authenticated: true } }),
      answerType: 'application/json',
    },
    {
      method: 'POST',
      path: '/api/v1/namespaces/ns-1a2b3c4d/serviceaccounts/sa-9f8e7d6c/token',
      body: '{}',
      status: 201,
      answer: JSON.stringify({ status: { token: JWT } }),
      answerType: 'application/json',
    },
    {
      method: 'POST',
      path: '/api/v1/namespaces/ns-1a2b3c4d/secrets',
      body: JSON.stringify({ metadata: { name: 'key-0c0ffee1' }, stringData: { 'tls.key': KEY } }),
      status: 201,
      answer: JSON.stringify({ metadata: { name: 'key-0c0ffee1' }, data: { 'tls.key': KEY } }),
      answerType: 'application/json',
    },
    {
      method: 'GET',
      path: '/api/v1/namespaces/ns-1a2b3c4d/pods',
      auth: { token: 1 },
      status: 403,
      answer: `{"kind":"Status","message":"token ${OWN_TOKEN} may not"}`,
    },
    {
      method: 'GET',
      path: '/api/v1/namespaces/ns-1a2b3c4d/pods',
      headers: { authorization: `Bearer ${HEADER_TOKEN}` },
      status: 401,
    },
  ];
  const text = reproScript(steps, {
    endpoint: 'https://127.0.0.1:6443',
    about: [`Reproducer of x/y/z: the run's token ${RUN_TOKEN} in a message`],
    secrets: { token: [RUN_TOKEN], tokens: [OWN_TOKEN, HEADER_TOKEN] },
  });

  it('holds no token and no private key, whatever the requests and answers carried', () => {
    for (const secret of [RUN_TOKEN, OWN_TOKEN, HEADER_TOKEN, JWT, 'MIIEowIBAAKCAQEAv1cX'])
      expect(text).not.toContain(secret);
    // the run's token is the variable the user sets; a case's own ones get variables of their own
    expect(text).toContain('"spec":{"token":"${ORCH_TOKEN}"}');
    expect(text).toContain('send 4 token1 GET');
    expect(text).toContain('ORCH_TOKEN_1 is not set');
    expect(text).toContain('-H "authorization: ${ORCH_HEADER_AUTHORIZATION:-}"');
    expect(text).not.toMatch(/Authorization: Bearer [^$"]/i);
  });

  it('replaces the run-unique parts of names with fresh ones, and bash accepts it', () => {
    expect(text).toMatch(/^S1="1a\$\{RUN:0:4\}01"  # the run's 1a2b3c4d$/m);
    expect(text).toContain("'/api/v1/namespaces/ns-'\"${S1}\"'/serviceaccounts/sa-'\"${S2}\"'/token'");
    // only the comment of its variable still names the run's part
    expect(text).not.toMatch(/^(?!#|S\d+=).*1a2b3c4d/m);
    const r = bashAccepts(text);
    expect(r.status, r.stderr).toBe(0);
  });

  it('compares the failing step (the last one unless told) and the earlier reads of its path', () => {
    expect(text).toContain('WANT_CODE_5=401');
    expect(text).toContain('WANT_CODE_4=403');
    expect(text).toMatch(/^verdict 4:text 5:text$/m);
    const first = reproScript(steps, { endpoint: 'http://x', failingStep: 0 });
    expect(first).toMatch(/^verdict 1:text$/m);
    expect(first).toContain('WANT_CODE_1=201');
  });

  it('a body with a here-document delimiter, quotes, $ and backquotes is sent as written', () => {
    const body = 'line "1" $HOME `date` \\ \'q\'\nORCH_BODY\nend\n';
    const script = reproScript([{ method: 'PUT', path: '/x', body, status: 200 }], { endpoint: 'http://x' });
    expect(bashAccepts(script).status).toBe(0);
    // what bash makes of the here-document and the body function: the body exactly
    const heredoc = script.slice(script.indexOf('body <<'), script.indexOf('# the run got'));
    const delim = /body <<(\S+)/.exec(heredoc)![1]!;
    const lines = heredoc.split('\n');
    const inner = lines.slice(1, lines.indexOf(delim)).join('\n');
    const r = spawnSync(
      'bash',
      ['-c', `b=$(cat <<${delim}\n${inner}\n${delim}\nprintf x); b=\${b%x}; printf '%s' "\${b%$'\\n'}"`],
      { encoding: 'utf8' },
    );
    expect(r.stdout).toBe(body);
  });
});

describe('the step a failure is about', () => {
  const rec = (
    method: string,
    specPath: string,
    status: number,
    startedAt: number,
    watch = false,
  ): Recorded => ({
    method,
    path: watch ? `${specPath}?watch=1` : specPath,
    specPath,
    status,
    startedAt,
    ...(watch ? { watch } : {}),
  });
  const steps = [
    rec('POST', '/api/v1/namespaces/a/configmaps', 201, 1),
    rec('GET', '/api/v1/namespaces/a/configmaps', 200, 2, true),
    rec('PUT', '/api/v1/namespaces/a/configmaps/x', 200, 3),
    rec('DELETE', '/api/v1/namespaces/a/configmaps/x', 200, 4),
  ];

  it('the request its message names', () => {
    expect(failingStep(steps, new Error('Actual: PUT /api/v1/namespaces/a/configmaps/x -> 200 {}'))).toBe(2);
  });
  it('else the last one sent before the assertion failed', () => {
    expect(failingStep(steps, Object.assign(new Error('Expected: 1 Actual: 2'), { at: 3.5 }))).toBe(2);
  });
  it("a property's: the last one sent before its cause failed", () => {
    const cause = Object.assign(new Error('Expected: 1 Actual: 2'), { at: 2.5 });
    expect(failingStep(steps, new Error('Property failed after 1 tests', { cause }))).toBe(1);
  });
  it('else, about events, the last watch', () => {
    expect(failingStep(steps, new Error('Expected: the events [ADDED a]'))).toBe(1);
  });
});

describe('JUnit', () => {
  it('attaches each case reproducer to its testcase', () => {
    const xml = [
      '<testsuites><testsuite name="s">',
      '<testcase classname="c" name="crud: x &gt; crud/x/one: title" time="1"><failure message="m">t</failure></testcase>',
      '<testcase classname="c" name="crud: x &gt; crud/x/two: title" time="1"/>',
      '<testcase classname="c" name="crud/x/three: title" time="1"><system-out>before</system-out></testcase>',
      '</testsuite></testsuites>',
    ].join('\n');
    const out = attachReproducers(
      xml,
      new Map([
        ['crud/x/one', '/r/repro/crud/x/one.sh'],
        ['crud/x/three', '/r/repro/crud/x/three.sh'],
      ]),
    );
    expect(out).toContain(
      '<failure message="m">t</failure>\n<system-out>[[ATTACHMENT|/r/repro/crud/x/one.sh]]</system-out>',
    );
    expect(out).toContain('<system-out>[[ATTACHMENT|/r/repro/crud/x/three.sh]]\nbefore</system-out>');
    expect(out).toContain('name="crud: x &gt; crud/x/two: title" time="1"/>');
    expect(attachReproducers(out, new Map([['crud/x/one', '/r/repro/crud/x/one.sh']]))).toBe(out);
  });
});
