// Coverage by rule: every rule of the documents (suites/rules/doc<n>.yaml), the cases of the
// run that name it (`specRules`) and their outcomes, per section; a rule no case of the text
// names is listed with the reason it has none (`why`), or as not checked yet. A case beyond the
// text (BEYOND) does not cover a rule: it checks what the text leaves open. The page section
// (`ruleCoverageHtml`) goes at the end of the conformance matrix (reports/matrix.ts).
import type { CaseDef } from '../harness/src/spec.ts';
import { esc } from './html.ts';
import { type Rule, readRules } from './spec-rules.ts';
import { readSections } from './spec-sections.ts';

export interface RuleRow {
  id: string;
  text: string;
  level: Rule['level'];
  why?: string;
  /** The cases of the text (not BEYOND) that name the rule, with their outcomes. */
  cases: { id: string; outcome: string }[];
}

export interface RuleSection {
  doc: 1 | 2 | 3;
  section: string;
  depth: number;
  rules: RuleRow[];
}

export interface RuleCounts {
  rules: number;
  /** Rules a case of the text names. */
  withCase: number;
  /** Rules without a case that say why. */
  explained: number;
  /** Rules without a case and without a reason: not checked yet. */
  unchecked: number;
  /** Rules without a case, by reason (`not checked yet` for those without one). */
  byReason: Record<string, number>;
}

export interface RuleCoverage {
  sections: RuleSection[];
  counts: RuleCounts;
  /** Counts per document, `doc1`, `doc2`, `doc3`. */
  perDoc: Record<string, RuleCounts>;
}

export const NOT_CHECKED = 'not checked yet';

function countRules(rows: RuleRow[]): RuleCounts {
  const without = rows.filter((r) => r.cases.length === 0);
  const byReason: Record<string, number> = {};
  for (const r of without) byReason[r.why ?? NOT_CHECKED] = (byReason[r.why ?? NOT_CHECKED] ?? 0) + 1;
  return {
    rules: rows.length,
    withCase: rows.length - without.length,
    explained: without.filter((r) => r.why).length,
    unchecked: without.filter((r) => !r.why).length,
    byReason,
  };
}

/** The rules of `root`'s rules files, in the order of the documents' sections, with the run's cases. */
export function ruleCoverage(
  root: string,
  cases: CaseDef[],
  outcomes: Map<string, string>,
  rules: Rule[] = readRules(root),
): RuleCoverage {
  const byRule = new Map<string, { id: string; outcome: string }[]>();
  for (const c of cases) {
    if (c.level === 'BEYOND') continue;
    for (const id of c.specRules ?? [])
      byRule.set(id, [...(byRule.get(id) ?? []), { id: c.id, outcome: outcomes.get(c.id) ?? 'not-run' }]);
  }
  const row = (r: Rule): RuleRow => ({
    id: r.id,
    text: r.text,
    level: r.level,
    ...(r.why ? { why: r.why } : {}),
    cases: byRule.get(r.id) ?? [],
  });
  const headings = readSections(root);
  const known = new Set(headings.map((s) => `${s.doc}\u0000${s.title}`));
  // a rule under a heading the documents no longer have is kept (after the others), not dropped
  const strays = [
    ...new Set(rules.filter((r) => !known.has(`${r.doc}\u0000${r.section}`)).map((r) => r.section)),
  ];
  const sections: RuleSection[] = [
    ...headings.map((s) => ({ doc: s.doc, section: s.title, depth: s.depth })),
    ...([1, 2, 3] as const).flatMap((doc) => strays.map((section) => ({ doc, section, depth: 2 }))),
  ]
    .map((s) => ({ ...s, rules: rules.filter((r) => r.doc === s.doc && r.section === s.section).map(row) }))
    .filter((s) => s.rules.length > 0)
    .sort((a, b) => a.doc - b.doc);
  const all = sections.flatMap((s) => s.rules);
  const perDoc: Record<string, RuleCounts> = {};
  for (const doc of [1, 2, 3] as const)
    perDoc[`doc${doc}`] = countRules(sections.filter((s) => s.doc === doc).flatMap((s) => s.rules));
  return { sections, counts: countRules(all), perDoc };
}

/** The page's section on rules: the counts, then per section how many rules have a case and the list of those without one. */
export function ruleCoverageHtml(cov: RuleCoverage): string {
  const c = cov.counts;
  const reasons = Object.entries(c.byReason)
    .sort((a, b) => b[1] - a[1])
    .map(([why, n]) => `<li><span class="n">${n}</span> ${esc(why)}</li>`)
    .join('');
  const out: string[] = [
    '<section id="rules">',
    '<h2>Coverage by rule</h2>',
    `<p id="rules-summary"><span id="rules-total">${c.rules}</span> rules (normative sentences and table rows, suites/rules/doc*.yaml): <span id="rules-with-case">${c.withCase}</span> with a case, <span id="rules-without-case">${c.rules - c.withCase}</span> without one (<span id="rules-explained">${c.explained}</span> for a stated reason, <span id="rules-unchecked">${c.unchecked}</span> not checked yet)</p>`,
    `<ul id="rules-by-reason">${reasons}</ul>`,
  ];
  for (const doc of [1, 2, 3] as const) {
    const d = cov.perDoc[`doc${doc}`]!;
    out.push(
      `<h3>doc${doc} rules</h3><p class="doc-rules" id="doc${doc}-rules">${d.withCase} of ${d.rules} rules with a case, ${d.explained} without one for a stated reason, ${d.unchecked} not checked yet</p>`,
      `<table class="rules" id="doc${doc}-rule-table"><thead><tr><th>Section</th><th>Rules with a case</th><th>Rules without a case</th></tr></thead><tbody>`,
    );
    for (const s of cov.sections.filter((x) => x.doc === doc)) {
      const without = s.rules.filter((r) => r.cases.length === 0);
      const withCase = s.rules.length - without.length;
      const cls = without.some((r) => !r.why) ? 'untested' : without.length ? 'explained' : 'passing';
      const list = without
        .map(
          (r) =>
            `<li class="${r.why ? 'explained' : 'untested'}" id="rule-${esc(r.id)}"><code>${esc(r.id)}</code> <span class="lvl">${r.level}</span> "${esc(r.text)}" — <i>${esc(r.why ? `no case: ${r.why}` : NOT_CHECKED)}</i></li>`,
        )
        .join('');
      out.push(
        `<tr class="${cls}" data-section="${esc(s.section)}"><td style="padding-left:${(s.depth - 2) * 1.5 + 0.5}em">${esc(s.section)}</td><td class="n">${withCase}/${s.rules.length}</td><td><ul>${list}</ul></td></tr>`,
      );
    }
    out.push('</tbody></table>');
  }
  out.push('</section>');
  return out.join('\n');
}
