// Expectations per implementation, kept outside the tests (as web-platform-tests does): a
// YAML file mapping case ids (or `prefix/*` globs) to `fail`, `flaky` or `skip`, each with a note.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export type Expect = 'fail' | 'flaky' | 'skip';

export interface Expectation {
  expect: Expect;
  note: string;
}

export interface ExpectationFile {
  implementation?: string;
  cases: Record<string, Expectation>;
}

export function loadExpectations(path: string | undefined): ExpectationFile {
  if (!path) return { cases: {} };
  const raw = parse(readFileSync(path, 'utf8')) as Partial<ExpectationFile> | null;
  const cases: Record<string, Expectation> = {};
  for (const [id, e] of Object.entries(raw?.cases ?? {})) {
    const x = e as Partial<Expectation>;
    if (x.expect !== 'fail' && x.expect !== 'flaky' && x.expect !== 'skip')
      throw new Error(`${path}: case "${id}": expect must be fail, flaky or skip`);
    if (!x.note || typeof x.note !== 'string')
      throw new Error(`${path}: case "${id}": every expectation needs a note`);
    cases[id] = { expect: x.expect, note: x.note };
  }
  return { implementation: raw?.implementation, cases };
}

export function expectationFor(file: ExpectationFile, id: string): Expectation | undefined {
  const exact = file.cases[id];
  if (exact) return exact;
  let best: [number, Expectation] | undefined;
  for (const [pattern, e] of Object.entries(file.cases)) {
    if (!pattern.endsWith('*')) continue;
    const prefix = pattern.slice(0, -1);
    if (id.startsWith(prefix) && (!best || prefix.length > best[0])) best = [prefix.length, e];
  }
  return best?.[1];
}
