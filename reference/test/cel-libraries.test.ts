// The expression engine's libraries beyond the standard ones (doc2 "Expression language inputs";
// the behaviours are Kubernetes 1.28's, from its library documentation): list, regex, URL,
// strings, authorizer (with an authorizer that answers now and one that answers later), and the
// property-name escaping.
import { describe, expect, it } from 'vitest';
import { compile } from '../src/cel/compile.ts';
import { PER_CALL_LIMIT } from '../src/cel/cost.ts';
import { newEnvironment } from '../src/cel/environment.ts';
import { escapeName } from '../src/cel/escaping.ts';
import {
  AUTHORIZER_TYPE,
  type AuthorizationAttributes,
  evaluateWithAuthorizer,
} from '../src/cel/library-authorizer.ts';
import { CostTracker } from '../src/cel/runtime-cost.ts';

function program(expr: string, vars: Record<string, string> = {}) {
  const env = newEnvironment();
  for (const [k, t] of Object.entries(vars)) env.registerVariable(k, t);
  const c = compile(env, expr, new Map());
  if ('error' in c) throw new Error(c.error);
  return c.program;
}

const run = (expr: string, vars: Record<string, unknown> = {}, types: Record<string, string> = {}) =>
  program(expr, types).evaluate(vars, new CostTracker(PER_CALL_LIMIT));

const errorOf = (expr: string): string => {
  try {
    run(expr);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

describe('list library', () => {
  it.each([
    '[1, 2, 3].indexOf(2) == 1',
    '[1, 2, 2, 3].lastIndexOf(2) == 2',
    '[1, 2, 3].indexOf(4) == -1',
    '[1, 2, 3].sum() == 6',
    '[1.5, 2.5].sum() == 4.0',
    '[duration("1s"), duration("2m")].sum() == duration("121s")',
    '[3, 1, 2].min() == 1',
    '[3, 1, 2].max() == 3',
    '["b", "a"].min() == "a"',
    '[1, 2, 3].isSorted()',
    '!["b", "a"].isSorted()',
    '[].isSorted()',
  ])('%s', (expr) => {
    expect(run(expr)).toBe(true);
  });

  it('min of an empty list is an evaluation error', () => {
    expect(errorOf('[].min() == 1')).toMatch(/empty list/);
  });
});

describe('regex library', () => {
  it.each([
    "'abc 123 def 456'.find('[0-9]+') == '123'",
    "'abc'.find('[0-9]+') == ''",
    "'abc 123 def 456'.findAll('[0-9]+') == ['123', '456']",
    "'abc 123 def 456'.findAll('[0-9]+', 1) == ['123']",
    "'abc'.findAll('[0-9]+') == []",
    "'abc 123 456'.find('[0-9]+') == '123' && '1 22'.findAll('[0-9]+') == ['1', '22']",
    "'hello'.matches('^h.*o$')",
  ])('%s', (expr) => {
    expect(run(expr)).toBe(true);
  });
});

describe('URL library', () => {
  it.each([
    "isURL('https://example.com/path')",
    "isURL('/absolute-path')",
    "!isURL('example.com')",
    "!isURL('')",
    "url('https://example.com:80/').getHost() == 'example.com:80'",
    "url('https://example.com:80/').getHostname() == 'example.com'",
    "url('https://[::1]:80/').getHostname() == '::1'",
    "url('https://example.com:80/').getPort() == '80'",
    "url('https://example.com/').getPort() == ''",
    "url('https://example.com/path').getScheme() == 'https'",
    "url('https://example.com/with space').getEscapedPath() == '/with%20space'",
    "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb'",
    "url('https://example.com/path').getEscapedPath() == '/path'",
    "url('https://example.com').getEscapedPath() == ''",
    "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
    "url('https://example.com/path').getQuery() == {}",
  ])('%s', (expr) => {
    expect(run(expr)).toBe(true);
  });

  it('url() of a text that is not a URL is an evaluation error', () => {
    expect(errorOf("url('example.com').getScheme() == ''")).toMatch(
      /URL parse error during conversion from string/,
    );
  });
});

describe('strings extension (Kubernetes 1.28)', () => {
  it.each([
    "'hello'.charAt(1) == 'e'",
    "'hello'.charAt(5) == ''",
    "'hello'.indexOf('l') == 2",
    "'hello'.lastIndexOf('l') == 3",
    "'TacoCat'.lowerAscii() == 'tacocat'",
    "'TacoCat'.upperAscii() == 'TACOCAT'",
    "'hello hello'.replace('he', 'we') == 'wello wello'",
    "'hello hello'.replace('he', 'we', 1) == 'wello hello'",
    "'a,b,c'.split(',') == ['a', 'b', 'c']",
    "'tacocat'.substring(4) == 'cat'",
    "'tacocat'.substring(0, 4) == 'taco'",
    "'  trim  '.trim() == 'trim'",
    "['a', 'b'].join('-') == 'a-b'",
  ])('%s', (expr) => {
    expect(run(expr)).toBe(true);
  });

  it('charAt past the end is an error', () => {
    expect(errorOf("'hello'.charAt(6) == ''")).not.toBe('');
  });
});

describe('authorizer library', () => {
  const seen: AuthorizationAttributes[] = [];
  const decide = (a: AuthorizationAttributes) => {
    seen.push(a);
    if (a.path === '/healthz') return { allowed: true, reason: 'health is public' };
    if (a.resource === 'pods' && a.verb === 'get' && a.namespace === 'ns1' && a.user === undefined)
      return { allowed: true, reason: 'pod reader' };
    if (a.user === 'system:serviceaccount:ns1:builder' && a.resource === 'deployments')
      return { allowed: true, reason: 'builder' };
    return { allowed: false, reason: 'no rule' };
  };
  const expr =
    "authorizer.group('').resource('pods').namespace('ns1').check('get').allowed() && " +
    "!authorizer.group('').resource('pods').namespace('ns2').check('get').allowed() && " +
    "authorizer.group('').resource('pods').namespace('ns1').check('get').reason() == 'pod reader' && " +
    "authorizer.path('/healthz').check('get').allowed() && " +
    "authorizer.serviceAccount('ns1', 'builder').group('apps').resource('deployments').subresource('scale').name('web').check('update').allowed()";

  it('answers checks of a synchronous authorizer in one evaluation', async () => {
    seen.length = 0;
    let runs = 0;
    const p = program(expr, { authorizer: AUTHORIZER_TYPE });
    const r = await evaluateWithAuthorizer(decide, (authorizer) => {
      runs++;
      return p.evaluate({ authorizer }, new CostTracker(Number.MAX_SAFE_INTEGER));
    });
    expect(r).toBe(true);
    expect(runs).toBe(1);
    expect(seen).toContainEqual({
      user: 'system:serviceaccount:ns1:builder',
      verb: 'update',
      group: 'apps',
      resource: 'deployments',
      subresource: 'scale',
      name: 'web',
    });
    expect(seen).toContainEqual({ verb: 'get', path: '/healthz' });
  });

  it('awaits an authorizer that answers later and evaluates again with the answers', async () => {
    let calls = 0;
    const later = (a: AuthorizationAttributes) => {
      calls++;
      return new Promise<{ allowed: boolean; reason: string }>((res) => setTimeout(() => res(decide(a)), 5));
    };
    let runs = 0;
    const p = program(expr, { authorizer: AUTHORIZER_TYPE });
    const r = await evaluateWithAuthorizer(later, (authorizer) => {
      runs++;
      return p.evaluate({ authorizer }, new CostTracker(Number.MAX_SAFE_INTEGER));
    });
    expect(r).toBe(true);
    expect(runs).toBeGreaterThan(1);
    // each distinct check asked once: answers are kept between evaluations
    expect(calls).toBe(4);
  });
});

describe('property-name escaping', () => {
  it.each([
    ['namespace', '__namespace__'],
    ['in', '__in__'],
    ['return', '__return__'],
    ['x-prop', 'x__dash__prop'],
    ['redact__d', 'redact__underscores__d'],
    ['a.b', 'a__dot__b'],
    ['a/b', 'a__slash__b'],
    ['self', 'self'],
    ['int', 'int'],
    ['namespaces', 'namespaces'],
  ])('%s -> %s', (name, escaped) => {
    expect(escapeName(name)).toBe(escaped);
  });

  it.each(['1abc', 'a b', 'a:b', ''])('%j is not reachable', (name) => {
    expect(escapeName(name)).toBeUndefined();
  });
});
