// The conformance matrix: every section of the three documents, the cases that cover it
// and their results, so untested sections show. Written as a self-contained HTML page and
// as JSON.
import { readFileSync } from 'node:fs';
import type { ManifestEntry } from '../scripts/manifest.ts';
import { readSections, SPEC_FILES } from './spec-sections.ts';

export type Outcome = 'passed' | 'failed' | 'skipped' | 'expected-fail' | 'not-run';

export interface MatrixRow {
  doc: 1 | 2 | 3;
  section: string;
  path: string[];
  depth: number;
  cases: { id: string; title: string; level: string; place: string; outcome: Outcome }[];
}

interface VitestJson {
  testResults: { assertionResults: { title: string; status: string; failureMessages?: string[] }[] }[];
}

/** Outcomes by case id from vitest's JSON report (test titles start with `<id>: `). */
export function outcomesFrom(resultsPath: string, expectedFail: Set<string> = new Set()): Map<string, Outcome> {
  const r = JSON.parse(readFileSync(resultsPath, 'utf8')) as VitestJson;
  const out = new Map<string, Outcome>();
  for (const f of r.testResults)
    for (const a of f.assertionResults) {
      const id = a.title.split(': ')[0]!;
      const o: Outcome =
        a.status === 'passed' ? (expectedFail.has(id) ? 'expected-fail' : 'passed') : a.status === 'failed' ? 'failed' : 'skipped';
      out.set(id, o);
    }
  return out;
}

export function buildMatrix(root: string, cases: ManifestEntry[], outcomes: Map<string, Outcome>): MatrixRow[] {
  return readSections(root).map((s) => ({
    doc: s.doc,
    section: s.title,
    path: s.path,
    depth: s.depth,
    cases: cases
      .filter((c) => c.doc === s.doc && c.section === s.title)
      .map((c) => ({ id: c.id, title: c.title, level: c.level, place: c.place, outcome: outcomes.get(c.id) ?? 'not-run' })),
  }));
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function matrixHtml(rows: MatrixRow[], title = 'orch conformance matrix'): string {
  const count = (o: Outcome) => rows.reduce((n, r) => n + r.cases.filter((c) => c.outcome === o).length, 0);
  const covered = rows.filter((r) => r.cases.length > 0).length;
  const body: string[] = [];
  for (const doc of [1, 2, 3] as const) {
    body.push(`<h2>doc${doc} — ${esc(SPEC_FILES[doc])}</h2><table><thead><tr><th>Section</th><th>Cases</th><th>Result</th><th>Cases (id, level, place)</th></tr></thead><tbody>`);
    for (const r of rows.filter((x) => x.doc === doc)) {
      const p = r.cases.filter((c) => c.outcome === 'passed').length;
      const f = r.cases.filter((c) => c.outcome === 'failed').length;
      const cls = r.cases.length === 0 ? 'untested' : f > 0 ? 'failing' : 'passing';
      const result = r.cases.length === 0 ? 'untested' : `${p}/${r.cases.length} passed${f ? `, ${f} failed` : ''}`;
      const list = r.cases
        .map((c) => `<li class="${c.outcome}" title="${esc(c.place)}"><code>${esc(c.id)}</code> <span class="lvl">${esc(c.level)}</span> ${esc(c.title)} — <b>${c.outcome}</b></li>`)
        .join('');
      body.push(
        `<tr class="${cls}" data-section="${esc(r.section)}"><td style="padding-left:${(r.depth - 2) * 1.5 + 0.5}em">${esc(r.section)}</td><td>${r.cases.length}</td><td>${result}</td><td><ul>${list}</ul></td></tr>`,
      );
    }
    body.push('</tbody></table>');
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%;margin-bottom:2em}
td,th{border:1px solid #ccc;padding:.3em .5em;vertical-align:top;text-align:left}ul{margin:0;padding-left:1.2em}
tr.untested td:first-child{background:#fff3cd}tr.failing td:first-child{background:#f8d7da}tr.passing td:first-child{background:#d4edda}
li.failed{color:#a00}li.skipped,li.not-run{color:#777}li.expected-fail{color:#a60}.lvl{font-size:11px;background:#eee;padding:0 .3em;border-radius:3px}
#summary{font-size:16px;margin-bottom:1em}</style></head><body><h1>${esc(title)}</h1>
<p id="summary"><span id="sections-covered">${covered}</span> of ${rows.length} sections covered — <span id="passed">${count('passed')}</span> passed, <span id="failed">${count('failed')}</span> failed, <span id="skipped">${count('skipped')}</span> skipped, ${count('expected-fail')} expected failures, ${count('not-run')} not run</p>
${body.join('\n')}</body></html>\n`;
}
