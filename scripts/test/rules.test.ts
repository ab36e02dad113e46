// The rules files (suites/rules/doc<n>.yaml) against the documents and the cases, as
// `npm run rules:check` does: the files are what the documents give (with the hand-written
// `why` of a rule left without a case), no rule id is declared twice, no case names a rule that
// does not exist, and every case at a level of the text (not BEYOND) names at least one rule.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseDef } from '../../harness/src/spec.ts';
import { extractFromText, extractRules, type Rule, readRules, rulesFile } from '../../reports/spec-rules.ts';
import { SPEC_FILES } from '../../reports/spec-sections.ts';
import { type Collected, collectCases } from '../manifest.ts';
import {
  casesWithoutRules,
  duplicateRules,
  generate,
  rulesProblems,
  rulesYaml,
  staleWhy,
  unknownRules,
} from '../rules.ts';
import { cleanupTempDirs, ROOT, tempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

const DOC = [
  '# A document',
  '',
  'An introduction before any section states no rule.',
  '',
  '## What it does',
  '',
  '- The service must answer every request. It may cache answers.',
  '- Details of the cache: not shown.',
  '',
  'Fields of an object:',
  '',
  '| Field | Notes |',
  '|---|---|',
  '| name | unique per kind |',
  '| uid | set by the server |',
  '',
  '### Retries',
  '',
  'A client should retry',
  'after a 429. The same rule holds for 503.',
  '',
].join('\n');

const caseOf = (id: string, over: Partial<CaseDef> = {}): CaseDef => ({
  id,
  title: `title of ${id}`,
  doc: 1,
  section: 'What it does',
  place: 'a place',
  level: 'MUST',
  ...over,
});

const rule = (id: string, over: Partial<Rule> = {}): Rule => ({
  id,
  doc: 1,
  section: 'What it does',
  text: `text of ${id}`,
  level: 'MUST',
  ...over,
});

describe('extracting the rules of a document', () => {
  it('gives one rule per sentence and per table row, under the section it is written in', () => {
    expect(extractFromText(1, DOC)).toEqual([
      {
        id: 'doc1/what-does/service-must-answer-every-request',
        doc: 1,
        section: 'What it does',
        text: 'The service must answer every request.',
        level: 'MUST',
      },
      {
        id: 'doc1/what-does/may-cache-answers',
        doc: 1,
        section: 'What it does',
        text: 'It may cache answers.',
        level: 'MAY',
      },
      {
        id: 'doc1/what-does/name-unique-per-kind',
        doc: 1,
        section: 'What it does',
        text: 'name | unique per kind',
        level: 'MUST',
      },
      {
        id: 'doc1/what-does/uid-set-server',
        doc: 1,
        section: 'What it does',
        text: 'uid | set by the server',
        level: 'MUST',
      },
      {
        id: 'doc1/retries/client-should-retry-after-429',
        doc: 1,
        section: 'Retries',
        text: 'A client should retry after a 429.',
        level: 'SHOULD',
      },
      {
        id: 'doc1/retries/same-rule-holds-503',
        doc: 1,
        section: 'Retries',
        text: 'The same rule holds for 503.',
        level: 'MUST',
      },
    ]);
  });

  it('keeps every id when rules are added elsewhere, in the same section too', () => {
    const before = extractFromText(1, DOC).map((r) => r.id);
    const more = DOC.replace(
      '## What it does\n',
      '## Other\n\nA new rule.\n\n## What it does\n\nAn added first rule.\n',
    ).replace('| name |', '| kind | a new row |\n| name |');
    const after = extractFromText(1, more).map((r) => r.id);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after.length).toBe(before.length + 3);
  });

  it('numbers rules of a section that would share an id', () => {
    const ids = extractFromText(2, '## S\n\n- Names are unique.\n- Names are unique!\n').map((r) => r.id);
    expect(ids).toEqual(['doc2/s/names-unique', 'doc2/s/names-unique.2']);
  });

  it('reads the three documents of the spec', () => {
    const rules = extractRules(ROOT);
    for (const doc of [1, 2, 3] as const)
      expect(rules.filter((r) => r.doc === doc).length).toBeGreaterThan(100);
  });
});

describe('the checks themselves', () => {
  it('duplicateRules names an id declared twice', () => {
    expect(duplicateRules([rule('doc1/a/x'), rule('doc1/a/y'), rule('doc1/a/x')])).toEqual([
      'rule id doc1/a/x is declared more than once',
    ]);
    expect(duplicateRules([rule('doc1/a/x')])).toEqual([]);
  });

  it('unknownRules names a case naming a rule that does not exist, or one rule twice', () => {
    const rules = [rule('doc1/a/x'), rule('doc1/a/y')];
    expect(
      unknownRules(
        [
          caseOf('a/b/1', { specRules: ['doc1/a/x'] }),
          caseOf('a/b/2', { specRules: ['doc1/a/x', 'doc1/a/nope'] }),
          caseOf('a/b/3', { specRules: ['doc1/a/y', 'doc1/a/y'] }),
          caseOf('a/b/4'),
        ],
        rules,
      ),
    ).toEqual([
      'a/b/2: names rule doc1/a/nope, which suites/rules/doc*.yaml does not have',
      'a/b/3: names a rule twice',
    ]);
  });

  it('casesWithoutRules names the cases of the text that name no rule (BEYOND ones may not)', () => {
    const got = casesWithoutRules([
      caseOf('a/b/1', { specRules: ['doc1/a/x'] }),
      caseOf('a/b/2'),
      caseOf('a/b/3', { level: 'SHOULD', specRules: [] }),
      caseOf('a/b/4', { level: 'BEYOND' }),
    ]);
    expect(got.map((c) => c.id)).toEqual(['a/b/2', 'a/b/3']);
  });

  it('staleWhy names a rule that says why it has no case while a case checks it', () => {
    const rules = [rule('doc1/a/x', { why: 'needs a node' }), rule('doc1/a/y', { why: 'client behaviour' })];
    expect(
      staleWhy(
        [
          caseOf('a/b/1', { specRules: ['doc1/a/x'] }),
          caseOf('a/b/2', { level: 'BEYOND', specRules: ['doc1/a/y'] }),
        ],
        rules,
      ),
    ).toEqual(['doc1/a/x: has a `why` (no case) but a case checks it; remove the why']);
  });

  it('generate keeps a why by id and reports one whose rule the document no longer gives', () => {
    const root = tempDir('rules');
    const spec = join(root, 'spec');
    mkdirSync(spec);
    mkdirSync(join(root, 'suites', 'rules'), { recursive: true });
    copyFileSync(
      join(ROOT, 'suites', 'rules', 'rules.schema.json'),
      join(root, 'suites', 'rules', 'rules.schema.json'),
    );
    for (const f of Object.values(SPEC_FILES)) writeFileSync(join(spec, f), '# empty\n');
    writeFileSync(join(spec, SPEC_FILES[1]), DOC);
    const fresh = extractFromText(1, DOC);
    const kept = { ...fresh[0]!, why: 'needs a node' };
    const gone = rule('doc1/what-does/removed-sentence', { why: 'client behaviour' });
    writeFileSync(rulesFile(root, 1), rulesYaml(1, [kept, gone, ...fresh.slice(1)]));
    const old = process.env.ORCH_SPEC_DIR;
    process.env.ORCH_SPEC_DIR = spec;
    try {
      const checkedIn = readRules(root);
      expect(checkedIn.map((r) => r.id)).toContain(gone.id);
      const { files, lost } = generate(root, checkedIn);
      expect(lost.map((r) => r.id)).toEqual([gone.id]);
      expect(files.get(1)).toBe(rulesYaml(1, [kept, ...fresh.slice(1)]));
      expect(files.get(1)).toContain('why: needs a node');
      const problems = rulesProblems(root, []);
      expect(problems).toContain(
        `${gone.id}: its \`why\` would be lost (the document no longer gives this rule; move the why)`,
      );
      expect(problems.some((p) => p.startsWith(`${rulesFile(root, 1)} is not what the document gives`))).toBe(
        true,
      );
      writeFileSync(rulesFile(root, 1), files.get(1)!);
      for (const doc of [2, 3] as const) writeFileSync(rulesFile(root, doc), files.get(doc)!);
      expect(rulesProblems(root, [caseOf('a/b/1', { specRules: [kept.id] })])).toEqual([
        `${kept.id}: has a \`why\` (no case) but a case checks it; remove the why`,
      ]);
      expect(rulesProblems(root, [caseOf('a/b/1', { specRules: ['doc1/what-does/nope'] })])).toEqual([
        'a/b/1: names rule doc1/what-does/nope, which suites/rules/doc*.yaml does not have',
      ]);
    } finally {
      if (old === undefined) delete process.env.ORCH_SPEC_DIR;
      else process.env.ORCH_SPEC_DIR = old;
    }
  });

  it('readRules refuses a file that does not match the schema', () => {
    const root = tempDir('rules-schema');
    mkdirSync(join(root, 'suites', 'rules'), { recursive: true });
    copyFileSync(
      join(ROOT, 'suites', 'rules', 'rules.schema.json'),
      join(root, 'suites', 'rules', 'rules.schema.json'),
    );
    writeFileSync(
      rulesFile(root, 1),
      'rules:\n  - id: Not An Id\n    section: S\n    level: MUST\n    text: t\n',
    );
    expect(() => readRules(root)).toThrow(/does not match rules.schema.json/);
  });
});

describe('suites/rules/doc*.yaml match the documents and the cases', () => {
  let collected: Collected;

  beforeAll(() => {
    collected = collectCases();
  }, 120_000);

  it('the files are what the documents give, and every rule a case names exists (else: npm run rules)', () => {
    const problems = rulesProblems(ROOT, collected.cases);
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('no rule id is declared twice', () => {
    const rules = readRules(ROOT);
    expect(rules.length).toBeGreaterThan(300);
    expect(duplicateRules(rules)).toEqual([]);
  });

  it('every case at a level of the text names at least one rule', () => {
    const left = casesWithoutRules(collected.cases).map((c) => `${c.id} (${c.place})`);
    expect(left, `cases naming no rule (add specRules next to their place):\n${left.join('\n')}`).toEqual([]);
  });

  it('a rule file names its document in every id', () => {
    for (const doc of [1, 2, 3] as const)
      for (const line of readFileSync(rulesFile(ROOT, doc), 'utf8').split('\n'))
        if (line.startsWith('  - id: ')) expect(line.startsWith(`  - id: doc${doc}/`), line).toBe(true);
  });
});
