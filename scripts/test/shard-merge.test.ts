// Sharding for CI, for real: two shards of one area and an unsharded run against one
// reference server, then `orch-conformance merge`; the merged report must count what the
// unsharded run counts, in every output (summary.json, results.json, JUnit, Allure results,
// cases list, matrix), and merge must refuse shards that do not belong together.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type OrchServer } from '../../reference/src/index.ts';
import { mergeJunit, parseJunit } from '../../reports/junit.ts';
import type { MatrixRow } from '../../reports/matrix.ts';
import { readCases } from '../../reports/outcomes.ts';
import { type CliResult, cleanupTempDirs, cli, readResults, readSummary, tail, tempDir } from './helpers.ts';

const AREA = 'crud';

const testcases = (dir: string) =>
  (readFileSync(join(dir, 'junit.xml'), 'utf8').match(/<testcase\b/g) ?? []).length;
const allureIds = (dir: string) =>
  readdirSync(join(dir, 'allure-results'))
    .filter((f) => f.endsWith('-result.json'))
    .map(
      (f) =>
        (
          JSON.parse(readFileSync(join(dir, 'allure-results', f), 'utf8')).labels as {
            name: string;
            value: string;
          }[]
        ).find((l) => l.name === 'caseId')?.value,
    )
    .sort();
const titles = (dir: string) =>
  readResults(dir)
    .testResults.flatMap((f) => f.assertionResults.map((a) => `${a.status} ${a.title}`))
    .sort();
const matrixCounts = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixRow[]).map(
    (r) => `doc${r.doc} ${r.section}: ${r.cases.map((c) => `${c.id}=${c.outcome}`).join(',')}`,
  );

describe('shards and merge', () => {
  let server: OrchServer;
  const whole = tempDir('whole');
  const shard1 = tempDir('shard1');
  const shard2 = tempDir('shard2');
  const merged = tempDir('merged');
  let runs: CliResult[];
  let merge: CliResult;

  beforeAll(async () => {
    server = await build({ inMemory: true, tls: false });
    await server.listen();
    const target = ['--endpoint', server.url!, '--token', server.adminToken, '--area', AREA];
    // as CI runs them: side by side, each shard into its own directory
    runs = await Promise.all([
      cli(['run', ...target, '--report', whole, '--no-html']),
      cli(['run', ...target, '--shard', '1/2', '--report', shard1]),
      cli(['run', ...target, '--shard', '2/2', '--report', shard2]),
    ]);
    merge = await cli(['merge', shard1, shard2, '--report', merged]);
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    cleanupTempDirs();
  });

  it('every run passes and each shard runs a part of the area', () => {
    for (const r of [...runs, merge]) expect(r.code, tail(r)).toBe(0);
    const s1 = readSummary(shard1);
    const s2 = readSummary(shard2);
    expect(s1.selection.shard).toBe('1/2');
    expect(s2.selection.shard).toBe('2/2');
    expect(s1.executed).toBeGreaterThan(0);
    expect(s2.executed).toBeGreaterThan(0);
    const f1 = readResults(shard1).testResults.map((f) => f.name);
    const f2 = readResults(shard2).testResults.map((f) => f.name);
    expect(
      f1.filter((f) => f2.includes(f)),
      'no test file in both shards',
    ).toEqual([]);
  });

  it('summary.json of the merge counts what the unsharded run counts', () => {
    const a = readSummary(whole);
    const m = readSummary(merged);
    const counts = (s: typeof a) => ({
      ok: s.ok,
      executed: s.executed,
      passed: s.passed,
      failed: s.failed,
      expectedFailures: s.expectedFailures,
      unexpectedPasses: s.unexpectedPasses,
      skipped: s.skipped,
      notSelected: s.notSelected,
    });
    expect(counts(m)).toEqual(counts(a));
    expect(m.executed).toBeGreaterThan(10);
    expect(m.shards?.map((s) => s.shard)).toEqual(['1/2', '2/2']);
    expect(m.selection).toEqual({ ...a.selection, shard: null });
  });

  it('results.json: counts summed, every test result once', () => {
    const a = readResults(whole);
    const m = readResults(merged);
    for (const k of [
      'numTotalTests',
      'numPassedTests',
      'numFailedTests',
      'numPendingTests',
      'numTotalTestSuites',
    ] as const)
      expect(m[k], k).toBe(a[k]);
    expect(m.testResults.length).toBe(a.testResults.length);
    expect(titles(merged)).toEqual(titles(whole));
  });

  it('junit.xml: the testsuites of both shards under one root with summed totals', () => {
    const a = parseJunit(readFileSync(join(whole, 'junit.xml'), 'utf8'));
    const m = parseJunit(readFileSync(join(merged, 'junit.xml'), 'utf8'));
    expect(m.tests).toBe(a.tests);
    expect(m.failures).toBe(a.failures);
    expect(m.errors).toBe(a.errors);
    expect(testcases(merged)).toBe(testcases(whole));
    expect(testcases(merged)).toBe(testcases(shard1) + testcases(shard2));
  });

  it('Allure: one result per case from the shards, and an HTML report generated from them', () => {
    expect(allureIds(merged)).toEqual([...allureIds(shard1), ...allureIds(shard2)].sort());
    expect(allureIds(merged).length).toBe(readSummary(whole).executed);
    expect(existsSync(join(merged, 'html', 'index.html'))).toBe(true);
  });

  it('the cases list and the matrix are those of the unsharded run', () => {
    expect(readCases(join(merged, 'cases.jsonl'))).toEqual(readCases(join(whole, 'cases.jsonl')));
    expect(matrixCounts(merged)).toEqual(matrixCounts(whole));
    expect(readFileSync(join(merged, 'matrix.html'), 'utf8')).toContain('2 shards merged');
  });

  it('merge refuses shards that do not belong together (exit 2)', async () => {
    const out = tempDir('refused');
    const missing = await cli(['merge', shard1, '--report', out, '--no-html']);
    expect(missing.code, tail(missing)).toBe(2);
    expect(missing.out).toContain('shards 2/2 missing');
    const twice = await cli(['merge', shard1, shard1, '--report', out, '--no-html']);
    expect(twice.code, tail(twice)).toBe(2);
    expect(twice.out).toContain('given twice');
    const notShard = await cli(['merge', shard1, whole, '--report', out, '--no-html']);
    expect(notShard.code, tail(notShard)).toBe(2);
    expect(notShard.out).toContain('not a shard');
    const intoInput = await cli(['merge', shard1, shard2, '--report', shard1, '--no-html']);
    expect(intoInput.code, tail(intoInput)).toBe(2);
    const partial = await cli(['merge', shard1, '--allow-partial', '--report', out, '--no-html']);
    expect(partial.code, tail(partial)).toBe(0);
    expect(readSummary(out).executed).toBe(readSummary(shard1).executed);
  }, 60_000);

  it('mergeJunit keeps every testsuite and sums the root attributes', () => {
    const part = (n: number, f: number) =>
      `<?xml version="1.0" encoding="UTF-8" ?>\n<testsuites name="vitest tests" tests="${n}" failures="${f}" errors="0" time="1.5">\n    <testsuite name="s${n}" tests="${n}"><testcase name="a &amp; b"/></testsuite>\n</testsuites>\n`;
    const xml = mergeJunit([part(2, 1), part(3, 0)]);
    expect(parseJunit(xml)).toMatchObject({ tests: 5, failures: 1, errors: 0, time: 3 });
    expect(xml.match(/<testsuite\b/g)?.length).toBe(2);
    expect(xml).toContain('<testcase name="a &amp; b"/>');
  });
});
