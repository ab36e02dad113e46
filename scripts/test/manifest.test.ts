// The golden manifest (suites/MANIFEST.json) against the code, as `npm run manifest:check`
// does: the cases vitest collects from suites/ must be exactly those of the manifest, every
// case must name a real heading of its document (read from the spec: ../shared/spec, or
// ORCH_SPEC_DIR), be declared once and live under the folder its id starts with. When the
// manifest drifts, `npm run manifest` regenerates it (and the diff is reviewed and committed).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseDef } from '../../harness/src/spec.ts';
import { readSections, SPEC_FILES, specDir } from '../../reports/spec-sections.ts';
import {
  type Collected,
  checkOnlyCases,
  checkPlacement,
  checkSections,
  collectCases,
  diffManifest,
  manifestDrift,
  manifestText,
} from '../manifest.ts';
import { cleanupTempDirs, ROOT, tempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

const entry = (id: string, over: Partial<CaseDef> = {}): CaseDef => ({
  id,
  title: `title of ${id}`,
  doc: 1,
  section: 'Operations',
  place: 'a place',
  level: 'MUST',
  ...over,
});

describe('the checks themselves', () => {
  it('diffManifest names added, removed and changed cases', () => {
    const before = [entry('a/x/1'), entry('a/x/2'), entry('a/x/3')];
    const after = [entry('a/x/1'), entry('a/x/3', { level: 'SHOULD', title: 'new' }), entry('a/x/4')];
    expect(diffManifest(before, after)).toEqual([
      '~ a/x/3: title "title of a/x/3" -> "new", level "MUST" -> "SHOULD"',
      '+ a/x/4: declared in suites/ but not in MANIFEST.json',
      '- a/x/2: in MANIFEST.json but no longer declared',
    ]);
    expect(diffManifest(before, before)).toEqual([]);
    expect(diffManifest([entry('b/1'), entry('a/1')], [entry('a/1'), entry('b/1')])).toEqual([
      'MANIFEST.json is not sorted by id',
    ]);
  });

  it('diffManifest names a change of the rules a case names', () => {
    const before = [entry('a/x/1', { specRules: ['doc1/a/one'] })];
    expect(diffManifest(before, [entry('a/x/1', { specRules: ['doc1/a/one', 'doc1/a/two'] })])).toEqual([
      '~ a/x/1: specRules ["doc1/a/one"] -> ["doc1/a/one","doc1/a/two"]',
    ]);
    expect(diffManifest(before, [entry('a/x/1')])).toEqual([
      '~ a/x/1: specRules ["doc1/a/one"] -> undefined',
    ]);
  });

  it('manifestDrift also wants the layout `npm run manifest` writes', () => {
    const file = join(tempDir('manifest'), 'MANIFEST.json');
    const cases = [entry('a/x/1')];
    writeFileSync(file, manifestText(cases));
    expect(manifestDrift(cases, file)).toEqual([]);
    writeFileSync(file, JSON.stringify(cases));
    expect(manifestDrift(cases, file)).toEqual([
      'MANIFEST.json is not laid out as `npm run manifest` writes it',
    ]);
    expect(manifestDrift(cases, `${file}.missing`)[0]).toMatch(/does not exist/);
  });

  it('checkSections refuses a section that is not a heading of the document', () => {
    expect(checkSections([entry('a/x/1', { section: 'Operations' })])).toEqual([]);
    const p = checkSections([
      entry('a/x/1', { section: 'No Such Heading' }),
      entry('a/x/2', { doc: 2, section: 'Operations' }),
    ]);
    expect(p).toHaveLength(2);
    expect(p[0]).toMatch(/^a\/x\/1: doc1 .* has no section heading "No Such Heading"$/);
  });

  it('checkPlacement refuses a case declared twice or outside its area folder', () => {
    expect(
      checkPlacement([
        { id: 'crud/a/1', file: 'suites/crud/a.test.ts' },
        { id: 'crud/a/2', file: 'suites/watch/b.test.ts' },
        { id: 'crud/a/3', file: 'suites/crud/a.test.ts' },
        { id: 'crud/a/3', file: 'suites/crud/c.test.ts' },
      ]),
    ).toEqual([
      'crud/a/2: declared in suites/watch/b.test.ts, outside suites/crud/',
      'crud/a/3: declared 2 times (suites/crud/a.test.ts, suites/crud/c.test.ts)',
    ]);
  });
});

describe('checkOnlyCases', () => {
  it('names a test under suites/ that declares no case', () => {
    expect(
      checkOnlyCases([{ name: 'codec > round trip', file: 'suites/content-types/codec.test.ts' }]),
    ).toEqual([
      'suites/content-types/codec.test.ts: "codec > round trip" is not a conformance case (declare it with conformance(), or move a self-test to harness/test)',
    ]);
    expect(checkOnlyCases([])).toEqual([]);
  });
});

describe('suites/MANIFEST.json matches the code', () => {
  let collected: Collected;

  beforeAll(() => {
    collected = collectCases();
  }, 120_000);

  it('the spec documents are where the checks read them', () => {
    for (const f of Object.values(SPEC_FILES))
      expect(existsSync(join(specDir(ROOT), f)), `${join(specDir(ROOT), f)} (set ORCH_SPEC_DIR)`).toBe(true);
    expect(readSections(ROOT).length).toBeGreaterThan(20);
  });

  it('the cases declared in suites/ are exactly those of MANIFEST.json (else: npm run manifest)', () => {
    expect(collected.cases.length).toBeGreaterThan(0);
    const drift = manifestDrift(collected.cases);
    expect(drift, `suites/MANIFEST.json is out of date (npm run manifest):\n${drift.join('\n')}`).toEqual([]);
  });

  it('every case names a heading of its document', () => {
    expect(checkSections(collected.cases)).toEqual([]);
  });

  it('every case id is declared once, under suites/<the id area>/', () => {
    expect(collected.tests.length).toBeGreaterThanOrEqual(collected.cases.length);
    expect(checkPlacement(collected.tests)).toEqual([]);
  });

  it('suites/ holds conformance cases only (self-tests live in harness/test)', () => {
    expect(checkOnlyCases(collected.others)).toEqual([]);
  });
});
