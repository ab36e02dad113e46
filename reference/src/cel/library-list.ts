// The list library of doc2 (Kubernetes 1.28's): indexOf, lastIndexOf, min, max, sum over numbers
// and durations, isSorted.

import type { Environment } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { celCompare, celEquals } from './equality.ts';
import { evalError } from './errors.ts';
import { DURATION, TIMESTAMP } from './types.ts';

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'string', 'bytes', DURATION, TIMESTAMP];

function extreme(name: 'min' | 'max', l: unknown[]): unknown {
  if (l.length === 0) throw evalError(`${name}(list) called on an empty list`);
  let best = l[0];
  for (const x of l) {
    const c = celCompare(x, best);
    if (name === 'min' ? c < 0 : c > 0) best = x;
  }
  return best;
}

export function registerListLibrary(env: Environment): void {
  env.registerFunction('list<A>.indexOf(A): int', (l: unknown[], v: unknown) =>
    BigInt(l.findIndex((x) => celEquals(x, v))),
  );
  env.registerFunction('list<A>.lastIndexOf(A): int', (l: unknown[], v: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], v)) return BigInt(i);
    return -1n;
  });
  for (const t of COMPARABLE) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => {
      for (let i = 1; i < l.length; i++) if (celCompare(l[i - 1], l[i]) > 0) return false;
      return true;
    });
    env.registerFunction(`list<${t}>.min(): ${t}`, (l: unknown[]) => extreme('min', l));
    env.registerFunction(`list<${t}>.max(): ${t}`, (l: unknown[]) => extreme('max', l));
  }
  env.registerFunction('list<int>.sum(): int', (l: bigint[]) => {
    let s = 0n;
    for (const x of l) {
      s += x;
      if (s > 9223372036854775807n || s < -9223372036854775808n) throw evalError('integer overflow');
    }
    return s;
  });
  env.registerFunction('list<double>.sum(): double', (l: number[]) => l.reduce((a, b) => a + b, 0));
  env.registerFunction(`list<${DURATION}>.sum(): ${DURATION}`, (l: Duration[]) => {
    let nanos = 0n;
    for (const d of l) nanos += d.seconds * 1_000_000_000n + BigInt(d.nanos);
    return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
  });
}
