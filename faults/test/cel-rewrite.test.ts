// The expression rewriter of the cel faults (faults/cel.ts) changes exactly the calls it names:
// method calls or global ones, arguments split at top-level commas only, quoted text (a pattern
// with parentheses or commas) left alone, nested calls rewritten too. Static: no server.
import { describe, expect, it } from 'vitest';
import { rewriteCalls } from '../cel/faults.ts';

describe('rewriteCalls', () => {
  it('renames a method call and keeps its arguments', () => {
    expect(rewriteCalls('self.xs.min() == self.want', 'min', true, (a) => `.max(${a.join(', ')})`)).toBe(
      'self.xs.max() == self.want',
    );
  });

  it('does not take a longer name for the one it rewrites', () => {
    const r = rewriteCalls('self.s.findAll(self.re) == self.s.lastIndexOf(x)', 'find', true, () => '.X()');
    expect(r).toBe('self.s.findAll(self.re) == self.s.lastIndexOf(x)');
    expect(rewriteCalls('s.lastIndexOf(a)', 'indexOf', true, () => '.X()')).toBe('s.lastIndexOf(a)');
  });

  it('splits arguments at top-level commas only, and skips quoted text', () => {
    const seen: string[][] = [];
    rewriteCalls("s.findAll('(a,b))', f(x, y), [1, 2])", 'findAll', true, (a) => {
      seen.push(a);
      return '';
    });
    expect(seen).toEqual([["'(a,b))'", 'f(x, y)', '[1, 2]']]);
  });

  it('rewrites a global call, not a method of the same name or a longer identifier', () => {
    const r = rewriteCalls(
      'url(self.u).getHost() == x.url(y) && isURL(z)',
      'url',
      false,
      ([s]) => `url(${s}!)`,
    );
    expect(r).toBe('url(self.u!).getHost() == x.url(y) && isURL(z)');
  });

  it('rewrites nested calls inside the arguments', () => {
    expect(rewriteCalls('a.min(b.min())', 'min', true, (a) => `.max(${a.join(', ')})`)).toBe(
      'a.max(b.max())',
    );
  });

  it('answers no arguments for an empty call', () => {
    const seen: string[][] = [];
    rewriteCalls('self.xs.sum()', 'sum', true, (a) => {
      seen.push(a);
      return '.sum()';
    });
    expect(seen).toEqual([[]]);
  });
});
