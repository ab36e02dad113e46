// The strings extension as Kubernetes 1.28 enables it: version 0 (its base environment does
// not have `format` or `strings.quote`, which came with version 1), where the evaluator lacks a
// function: `charAt` and `replace` (indexOf, lastIndexOf, lowerAscii, upperAscii, split,
// substring, trim and join are the evaluator's own).
import type { Environment } from '@marcbachmann/cel-js';
import { evalError } from './errors.ts';

export function registerStringsLibrary(env: Environment): void {
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    const cps = [...s];
    if (i < 0n || i > BigInt(cps.length)) throw evalError(`index out of range: ${i}`);
    return cps[Number(i)] ?? '';
  });
  const replace = (s: string, from: string, to: string, n: bigint) => {
    if (n === 0n) return s;
    if (n < 0n) return s.split(from).join(to);
    let out = '';
    let rest = s;
    for (let k = 0n; k < n; k++) {
      const i = rest.indexOf(from);
      if (i < 0) break;
      out += rest.slice(0, i) + to;
      rest = rest.slice(i + from.length);
      if (from === '') {
        out += rest.slice(0, 1);
        rest = rest.slice(1);
      }
    }
    return out + rest;
  };
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) =>
    replace(s, a, b, -1n),
  );
  env.registerFunction('string.replace(string, string, int): string', replace);
}
