// Coverage by rule on the matrix page (reports/rule-coverage.ts): which rules a case of the
// text names, per section of the documents, and the list of the rules without one with the
// reason each gives, or as not checked yet.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CaseDef } from '../../harness/src/spec.ts';
import { matrixHtml } from '../../reports/matrix.ts';
import { NOT_CHECKED, ruleCoverage, ruleCoverageHtml } from '../../reports/rule-coverage.ts';
import { type Rule, rulesFile } from '../../reports/spec-rules.ts';
import { readManifest } from '../manifest.ts';
import { ROOT } from './helpers.ts';

const rule = (id: string, section: string, over: Partial<Rule> = {}): Rule => ({
  id,
  doc: 1,
  section,
  text: `text of ${id}`,
  level: 'MUST',
  ...over,
});

const kase = (id: string, specRules: string[], level: CaseDef['level'] = 'MUST'): CaseDef => ({
  id,
  title: `title of ${id}`,
  doc: 1,
  section: 'Operations',
  place: 'a place',
  level,
  specRules,
});

const RULES = [
  rule('doc1/operations/checked', 'Operations'),
  rule('doc1/operations/beyond-only', 'Operations'),
  rule('doc1/operations/explained', 'Operations', { why: 'describes a client' }),
  rule('doc1/events/checked', 'Events'),
  rule('doc1/gone/stray', 'A heading no longer there'),
  rule('doc2/endpoints/unchecked', 'Endpoints', { doc: 2, level: 'SHOULD' }),
];

const CASES = [
  kase('a/x/1', ['doc1/operations/checked', 'doc1/events/checked']),
  kase('a/x/2', ['doc1/operations/checked']),
  kase('a/x/3', ['doc1/operations/beyond-only'], 'BEYOND'),
];

describe('coverage by rule', () => {
  const cov = ruleCoverage(ROOT, CASES, new Map([['a/x/1', 'passed']]), RULES);

  it('counts the rules a case of the text names; a BEYOND case covers none', () => {
    expect(cov.counts).toEqual({
      rules: 6,
      withCase: 2,
      explained: 1,
      unchecked: 3,
      byReason: { 'describes a client': 1, [NOT_CHECKED]: 3 },
    });
    expect(cov.perDoc.doc1).toMatchObject({ rules: 5, withCase: 2, explained: 1, unchecked: 2 });
    expect(cov.perDoc.doc2).toMatchObject({ rules: 1, withCase: 0, unchecked: 1 });
  });

  it('groups the rules by the section of the document they are written in, in document order', () => {
    expect(cov.sections.map((s) => `doc${s.doc} ${s.section}`)).toEqual([
      'doc1 Operations',
      'doc1 Events',
      'doc1 A heading no longer there',
      'doc2 Endpoints',
    ]);
    const ops = cov.sections[0]!.rules;
    expect(ops.find((r) => r.id === 'doc1/operations/checked')?.cases).toEqual([
      { id: 'a/x/1', outcome: 'passed' },
      { id: 'a/x/2', outcome: 'not-run' },
    ]);
    expect(ops.find((r) => r.id === 'doc1/operations/beyond-only')?.cases).toEqual([]);
  });

  it('the page section lists each rule without a case with its reason, and counts per section', () => {
    const html = ruleCoverageHtml(cov);
    expect(html).toContain('<span id="rules-total">6</span>');
    expect(html).toContain('<span id="rules-with-case">2</span>');
    expect(html).toContain('<span id="rules-explained">1</span>');
    expect(html).toContain('<span id="rules-unchecked">3</span>');
    expect(html).toMatch(/id="rule-doc1\/operations\/explained">.*no case: describes a client/);
    expect(html).toMatch(/id="rule-doc1\/operations\/beyond-only">.*not checked yet/);
    expect(html).toMatch(/id="rule-doc2\/endpoints\/unchecked">.*SHOULD/);
    expect(html).not.toContain('id="rule-doc1/operations/checked"');
    expect(html).toMatch(/data-section="Operations">.*<td class="n">1\/3<\/td>/);
    expect(html).toMatch(/data-section="Events">.*<td class="n">1\/1<\/td>/);
  });

  it('the matrix page ends with the section when given the coverage, and has none without it', () => {
    expect(matrixHtml([], { rules: cov })).toMatch(
      /<section id="rules">[\s\S]*<\/section><\/body><\/html>\n$/,
    );
    expect(matrixHtml([], {})).not.toContain('id="rules"');
  });
});

describe('coverage by rule of the checked-in rules and cases', () => {
  it('matches the rules files and the manifest', () => {
    const rules = ([1, 2, 3] as const).flatMap(
      (doc) =>
        (parse(readFileSync(rulesFile(ROOT, doc), 'utf8')) as { rules: { id: string; why?: string }[] })
          .rules,
    );
    const cases = readManifest();
    const named = new Set(cases.filter((c) => c.level !== 'BEYOND').flatMap((c) => c.specRules ?? []));
    const without = rules.filter((r) => !named.has(r.id));
    const cov = ruleCoverage(ROOT, cases, new Map());
    expect(cov.counts.rules).toBe(rules.length);
    expect(cov.counts.withCase).toBe(rules.length - without.length);
    expect(cov.counts.explained).toBe(without.filter((r) => r.why).length);
    expect(cov.counts.unchecked).toBe(without.filter((r) => !r.why).length);
    const html = ruleCoverageHtml(cov);
    for (const r of without) expect(html).toContain(`id="rule-${r.id}"`);
  });
});
