// `orch-conformance e2e`: the parts that decide a verdict (the sets, the JUnit report of the
// e2e binary, the comparison with the baseline) and one real run of Kubernetes' own e2e binary
// against `serve --dialect kubernetes`, through the command as a user runs it. The four sets in
// full take about twenty minutes and are not part of `npm test` (npm run e2e).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BASELINE, E2E_DIR, junitOutcomes, parseSets, verdict } from '../e2e.ts';
import { cleanupTempDirs, cli, tail, tempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

describe('e2e: the verdict', () => {
  it('reads the four selections of sets.txt with their focus and skip', () => {
    const sets = parseSets(readFileSync(join(E2E_DIR, 'sets.txt'), 'utf8'));
    expect(sets.map((s) => s.name)).toEqual(['conformance', 'extended', 'controllers', 'fakenode']);
    for (const s of sets) {
      expect(s.focus, s.name).toMatch(/sig-api-machinery/);
      expect(s.skip, s.name).not.toBe('');
    }
  });

  it("reads a ginkgo JUnit report: the It nodes' outcomes by name, entities decoded", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="4"><testsuite name="Kubernetes e2e suite" tests="4">
<testcase name="[SynchronizedBeforeSuite]" classname="Kubernetes e2e suite" status="passed" time="0.1"></testcase>
<testcase name="[It] [sig-api-machinery] A works with accept &#34;application/json&#34; that&#39;s" classname="Kubernetes e2e suite" status="passed" time="1"></testcase>
<testcase name="[It] [sig-api-machinery] B &lt;fails&gt;" classname="Kubernetes e2e suite" status="failed" time="1"><failure message="x"></failure></testcase>
<testcase name="[It] [sig-api-machinery] C is skipped" classname="Kubernetes e2e suite" status="skipped" time="0"></testcase>
</testsuite></testsuites>`;
    expect([...junitOutcomes(xml)]).toEqual([
      ['[sig-api-machinery] A works with accept "application/json" that\'s', 'passed'],
      ['[sig-api-machinery] B <fails>', 'failed'],
      ['[sig-api-machinery] C is skipped', 'skipped'],
    ]);
  });

  it('fails a baseline test that failed here, never one that did not run', () => {
    const outcomes = new Map([
      ['a', 'passed'],
      ['b', 'failed'],
      ['c', 'skipped'],
      ['d', 'passed'],
    ] as const);
    const v = verdict('s', new Map(outcomes), ['a', 'b', 'c', 'e'], 1);
    expect(v).toMatchObject({ ran: 3, passed: 2, regressions: ['b'], beyond: ['d'] });
  });

  it('counts every baseline test of the selection as failed when the binary crashed without a report', () => {
    const v = verdict('s', new Map(), ['a one', 'b one', 'c two'], 1, {
      output: 'panic: Your Test Panicked',
      selects: (n) => n.endsWith('one'),
    });
    expect(v).toMatchObject({
      ran: 0,
      passed: 0,
      regressions: ['a one', 'b one'],
      crashed: 'panic: Your Test Panicked',
    });
  });

  it('has a baseline from kube-apiserver 1.28 for each set', () => {
    const b = parseYaml(readFileSync(BASELINE, 'utf8')) as Record<string, string[]>;
    expect(Object.keys(b).sort()).toEqual(['conformance', 'controllers', 'extended', 'fakenode']);
    expect(b.conformance!.length).toBeGreaterThan(30);
  });
});

describe('e2e: a real run', () => {
  it("runs a test of Kubernetes' e2e binary against serve --dialect kubernetes and holds it to the baseline", async () => {
    const report = tempDir('orch-e2e-run-');
    const test =
      '[sig-api-machinery] Discovery should validate PreferredVersion for each APIGroup [Conformance]';
    const baseline = join(report, 'baseline.yaml');
    writeFileSync(baseline, `conformance:\n  - "${test}"\n`);
    const r = await cli([
      'e2e',
      '--set',
      'conformance',
      '--focus',
      'Discovery should validate PreferredVersion',
      '--baseline',
      baseline,
      '--report',
      report,
    ]);
    expect(r.code, tail(r)).toBe(0);
    const summary = JSON.parse(readFileSync(join(report, 'summary.json'), 'utf8'));
    expect(summary.verdicts).toEqual([
      expect.objectContaining({ set: 'conformance', ran: 1, passed: 1, regressions: [], beyond: [] }),
    ]);
  }, 120_000);
});
