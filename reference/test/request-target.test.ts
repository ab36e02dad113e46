// A request's target: its path as sent and its query as the URL parser reads it. The query is
// read without building the whole URL where the parser would read it the same way; the
// property checks that claim against the URL parser itself, over targets of any characters.
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { StatusError } from '../src/errors/status.ts';
import { pathSegments } from '../src/http/request-info.ts';
import { requestTarget } from '../src/http/routing.ts';

/** Characters that matter to a target's parsing, and any others. */
const targetChar = fc.oneof(
  fc.constantFrom(
    '/',
    '?',
    '&',
    '=',
    '#',
    '%',
    '%2',
    '%41',
    '+',
    ' ',
    '\t',
    '\n',
    '\r',
    '\0',
    '.',
    '..',
    ';',
    '\\',
  ),
  fc.constantFrom('é', '\u{1F600}', '\ud800', '\udfff', '\u007f', '\u0085', '\u00a0'),
  fc.string({ unit: 'binary', maxLength: 3 }),
);
const target = fc.array(targetChar, { maxLength: 16 }).map((cs) => `/${cs.join('')}`);

const entries = (q: URLSearchParams) => [...q];

describe('request targets', () => {
  fcTest.prop([target], { numRuns: 5000 })(
    'read the query as the URL parser reads it, whatever the target holds',
    (t) => {
      const got = requestTarget(t);
      expect(entries(got.query)).toEqual(entries(new URL(`http://x${t}`).searchParams));
    },
  );

  fcTest.prop([target])('keep the path as sent, up to the query', (t) => {
    const qi = t.indexOf('?');
    expect(requestTarget(t).path).toBe(qi < 0 ? t : t.slice(0, qi));
  });

  it('serve an absolute-form target by its path, and refuse one that is not a path', () => {
    const abs = requestTarget('http://example.org:8080/api/v1/pods?watch=1');
    expect(abs.path).toBe('/api/v1/pods');
    expect(abs.query.get('watch')).toBe('1');
    expect(abs.url.pathname).toBe('/api/v1/pods');
    expect(() => requestTarget('api/v1')).toThrow(StatusError);
  });

  fcTest.prop([target], { numRuns: 5000 })("are cut into the segments split('/') gives, decoded", (t) => {
    const path = t.split('?')[0]!;
    const expected = () => {
      const parts = path.split('/');
      if (parts[0] === '') parts.shift();
      if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
      return parts.map((p) => (p.includes('%') ? decodeURIComponent(p) : p));
    };
    let want: string[] | undefined;
    try {
      want = expected();
    } catch {
      // a malformed escape: a 400
      expect(() => pathSegments(path)).toThrow(StatusError);
      return;
    }
    expect(pathSegments(path)).toEqual(want);
  });
});
