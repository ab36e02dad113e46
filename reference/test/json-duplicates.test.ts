// parseJson's repeated keys: the text's keys are counted in one pass and the scanner that names
// the repeats runs only when JSON.parse kept fewer. Random documents, written with a repeat at
// known places (and keys and strings full of quotes, colons, backslashes and whitespace), must
// report exactly those places; the same documents without repeats report none.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING, parseJson } from '../src/content/json.ts';

type Tree = string | number | boolean | null | Tree[] | { [k: string]: Tree };

const tricky = fc.stringMatching(/^[a-z":\\ {}[\],\n\t.]{0,8}$/);
const tree: fc.Arbitrary<Tree> = fc.letrec<{ t: Tree }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tricky,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('t'), { maxLength: 3 }),
    fc.dictionary(tricky, tie('t'), { maxKeys: 4 }),
  ),
})).t;

const ws = (seed: number) => [' ', '', '\n  ', '\t'][seed % 4]!;

/** The text of `t`; each object whose ordinal is in `repeatAt` writes its first key a second time. Returns the repeats' paths. */
function write(t: Tree, repeatAt: Set<number>): { text: string; repeats: string[] } {
  let ordinal = 0;
  const repeats: string[] = [];
  const go = (v: Tree, path: string): string => {
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map((x, i) => go(x, `${path}[${i}]`)).join(',')}]`;
    const me = ordinal++;
    const keys = Object.keys(v);
    const parts = keys.map(
      (k, i) => `${JSON.stringify(k)}${ws(i)}:${ws(i + 1)}${go(v[k]!, path ? `${path}.${k}` : k)}`,
    );
    if (repeatAt.has(me) && keys.length > 0) {
      const k = keys[0]!;
      parts.push(`${JSON.stringify(k)}${ws(me)}:${JSON.stringify(v[k]!)}`);
      repeats.push(path ? `${path}.${k}` : k);
    }
    return `{${ws(me)}${parts.join(',')}}`;
  };
  return { text: go(t, ''), repeats };
}

describe('parseJson: repeated keys', () => {
  it('names exactly the repeated keys, and none in a document without repeats', () => {
    fc.assert(
      fc.property(
        fc.dictionary(tricky, tree, { maxKeys: 5 }),
        fc.array(fc.nat(12), { maxLength: 3 }),
        (t, at) => {
          const plain = write(t, new Set());
          expect(parseJson(plain.text).duplicates, plain.text).toEqual([]);
          const repeated = write(t, new Set(at));
          expect(parseJson(repeated.text).duplicates.sort(), repeated.text).toEqual(repeated.repeats.sort());
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a body nested deeper than MAX_NESTING, before decoding it', () => {
    const deep = `${'['.repeat(MAX_NESTING + 1)}${']'.repeat(MAX_NESTING + 1)}`;
    expect(() => parseJson(deep)).toThrow(/exceeded max depth/);
    const ok = `${'['.repeat(MAX_NESTING)}${']'.repeat(MAX_NESTING)}`;
    expect(parseJson(ok).duplicates).toEqual([]);
    // brackets inside strings do not count
    expect(parseJson(JSON.stringify({ a: '['.repeat(MAX_NESTING + 5) })).duplicates).toEqual([]);
  });
});
