// The language's conformance data (@bufbuild/cel-spec, the cel-spec project's simple tests) on the
// orch expression engine: every applicable case passes except those listed, with their reasons,
// in cel-conformance-exceptions.ts; a listed case that starts passing fails this test so that the
// list stays true.
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';
import { describe, expect, it } from 'vitest';
import { type ConformanceCase, inapplicable, runCase } from './cel-conformance.ts';
import { KNOWN_FAILURES, SKIPPED_SUITES } from './cel-conformance-exceptions.ts';

interface Suite {
  name: string;
  suites?: Suite[];
  tests?: { original: ConformanceCase & { name?: string } }[];
}

const known = new Map<string, string>();
for (const [reason, paths] of Object.entries(KNOWN_FAILURES)) for (const p of paths) known.set(p, reason);

const cases: { path: string; c: ConformanceCase }[] = [];
const skipped: Record<string, number> = {};
function collect(s: Suite, path: string) {
  for (const t of s.tests ?? []) {
    const c = { ...t.original, name: t.original.name ?? t.original.expr };
    const [, suite, section] = path.split('/');
    const why = SKIPPED_SUITES[suite!] ?? SKIPPED_SUITES[`${suite}/${section}`] ?? inapplicable(c);
    if (why) skipped[why] = (skipped[why] ?? 0) + 1;
    else cases.push({ path: `${path}/${c.name}`, c });
  }
  for (const child of s.suites ?? []) collect(child, `${path}/${child.name}`);
}
collect(tests as Suite, '');

describe('CEL conformance data', () => {
  it('passes every applicable case not listed as a known failure', () => {
    const unexpected: string[] = [];
    const fixed: string[] = [];
    let passed = 0;
    let failedKnown = 0;
    for (const { path, c } of cases) {
      let r: ReturnType<typeof runCase>;
      try {
        r = runCase(c);
      } catch (e) {
        r = { pass: false, got: `threw ${(e as Error).message}` };
      }
      if (r.pass) {
        passed++;
        if (known.has(path)) fixed.push(path);
      } else if (known.has(path)) failedKnown++;
      else unexpected.push(`${path}: ${c.expr} -> ${r.got}`);
    }
    const skippedTotal = Object.values(skipped).reduce((a, b) => a + b, 0);
    console.log(
      `CEL conformance: ${passed} passed, ${failedKnown} known failures, ${skippedTotal} not applicable`,
      skipped,
    );
    expect(unexpected).toEqual([]);
    expect(fixed).toEqual([]);
    expect(passed).toBeGreaterThan(1000);
  });
});
