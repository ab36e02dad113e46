// The regex library of doc2 (Kubernetes 1.28's): `find` (first match, or "") and `findAll`
// (every match, optionally at most n), beside the standard `matches`.
import type { Environment } from '@marcbachmann/cel-js';
import { compileRegex } from './regex.ts';

export function registerRegexLibrary(env: Environment): void {
  env.registerFunction('string.find(string): string', (s: string, p: string) => {
    // the compiled expression is shared: a search starts at 0 and leaves it at 0
    const re = compileRegex(p);
    re.lastIndex = 0;
    try {
      return re.exec(s)?.[0] ?? '';
    } finally {
      re.lastIndex = 0;
    }
  });
  const findAll = (s: string, p: string, n: bigint) => {
    const out: string[] = [];
    if (n === 0n) return out;
    const re = compileRegex(p);
    // matchAll starts where the shared expression's lastIndex is
    re.lastIndex = 0;
    for (const m of s.matchAll(re)) {
      out.push(m[0]);
      if (n > 0n && BigInt(out.length) >= n) break;
    }
    return out;
  };
  env.registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', findAll);
}
