// The conformance matrix: every section of the three documents, the cases that cover it
// and their results, so untested sections show. Written as a self-contained HTML page and
// as JSON.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { CaseDef } from '../harness/src/spec.ts';
import { esc } from './html.ts';
import type { CaseResult } from './outcomes.ts';
import { type RuleCoverage, ruleCoverageHtml } from './rule-coverage.ts';
import { readSections, SPEC_FILES } from './spec-sections.ts';

export type Outcome = 'passed' | 'failed' | 'skipped' | 'expected-fail' | 'unexpected-pass' | 'not-run';

export interface MatrixRow {
  doc: 1 | 2 | 3;
  section: string;
  path: string[];
  depth: number;
  cases: { id: string; title: string; level: string; place: string; outcome: Outcome; note?: string }[];
  /** Why a section has no case of its own (suites/SECTION-NOTES.yaml). */
  note?: string;
}

/** Notes on sections without cases, by `doc<n>` and section title (suites/SECTION-NOTES.yaml). */
export function readSectionNotes(root: string): Map<string, string> {
  const file = join(root, 'suites', 'SECTION-NOTES.yaml');
  const out = new Map<string, string>();
  if (!existsSync(file)) return out;
  const data = parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>> | null;
  for (const [doc, sections] of Object.entries(data ?? {}))
    for (const [title, note] of Object.entries(sections ?? {}))
      out.set(`${doc}\u0000${title}`, String(note).trim());
  return out;
}

/** Outcomes by case id (a case left out by `--case` is `not-run`). */
export function outcomesOf(results: CaseResult[]): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  for (const r of results) out.set(r.id, r.outcome === 'not-selected' ? 'not-run' : r.outcome);
  return out;
}

/** Notes by case id: why a case was skipped, or the expectation it met or broke. */
export function notesOf(results: CaseResult[]): Map<string, string> {
  return new Map(results.filter((r) => r.note).map((r) => [r.id, r.note!]));
}

export function buildMatrix(
  root: string,
  cases: CaseDef[],
  outcomes: Map<string, Outcome>,
  notes: Map<string, string> = new Map(),
): MatrixRow[] {
  const sectionNotes = readSectionNotes(root);
  return readSections(root).map((s) => ({
    doc: s.doc,
    section: s.title,
    path: s.path,
    depth: s.depth,
    ...(sectionNotes.has(`doc${s.doc}\u0000${s.title}`)
      ? { note: sectionNotes.get(`doc${s.doc}\u0000${s.title}`) }
      : {}),
    cases: cases
      .filter((c) => c.doc === s.doc && c.section === s.title)
      .map((c) => ({
        id: c.id,
        title: c.title,
        level: c.level,
        place: c.place,
        outcome: outcomes.get(c.id) ?? 'not-run',
        ...(notes.has(c.id) ? { note: notes.get(c.id) } : {}),
      })),
  }));
}

/** Cases whose (doc, section) is not a heading of the spec: listed apart so none goes missing. */
export function unplacedCases(root: string, cases: CaseDef[]): CaseDef[] {
  const known = new Set(readSections(root).map((s) => `${s.doc}\u0000${s.title}`));
  return cases.filter((c) => !known.has(`${c.doc}\u0000${c.section}`));
}

export interface MatrixPageInfo {
  title?: string;
  /** A line under the title (endpoint, dialect, expectations, selection). */
  subtitle?: string;
  unplaced?: { id: string; title: string; doc: number; section: string }[];
  /** A block of HTML after the summary (the verdicts by level: reports/levels.ts). */
  levels?: string;
  /** Coverage by rule (reports/rule-coverage.ts): a section of its own at the end of the page. */
  rules?: RuleCoverage;
}

export function matrixHtml(rows: MatrixRow[], info: MatrixPageInfo | string = {}): string {
  const {
    title = 'orch conformance matrix',
    subtitle,
    unplaced = [],
    levels = '',
    rules,
  } = typeof info === 'string' ? { title: info } : info;
  const count = (o: Outcome) => rows.reduce((n, r) => n + r.cases.filter((c) => c.outcome === o).length, 0);
  const covered = rows.filter((r) => r.cases.length > 0).length;
  const body: string[] = [];
  for (const doc of [1, 2, 3] as const) {
    const docRows = rows.filter((x) => x.doc === doc);
    const docCovered = docRows.filter((x) => x.cases.length > 0).length;
    const docExplained = docRows.filter((x) => x.cases.length === 0 && x.note).length;
    body.push(
      `<h2>doc${doc} — ${esc(SPEC_FILES[doc])}</h2><p class="doc-coverage" id="doc${doc}-coverage">${docCovered} of ${docRows.length} sections covered, ${docExplained} without a case for a stated reason, ${docRows.length - docCovered - docExplained} untested</p>`,
    );
    body.push(
      `<table id="doc${doc}"><thead><tr><th>Section</th><th>Cases</th><th>Result</th><th>Cases (id, level, place)</th></tr></thead><tbody>`,
    );
    for (const r of rows.filter((x) => x.doc === doc)) {
      const p = r.cases.filter((c) => c.outcome === 'passed').length;
      const f = r.cases.filter((c) => c.outcome === 'failed' || c.outcome === 'unexpected-pass').length;
      const x = r.cases.filter((c) => c.outcome === 'expected-fail').length;
      const cls = r.cases.length === 0 ? (r.note ? 'explained' : 'untested') : f > 0 ? 'failing' : 'passing';
      const result =
        r.cases.length === 0
          ? r.note
            ? `no case: ${esc(r.note)}`
            : 'untested'
          : `${p}/${r.cases.length} passed${f ? `, ${f} failed` : ''}${x ? `, ${x} expected to fail` : ''}`;
      const list = r.cases
        .map(
          (c) =>
            `<li class="${c.outcome}" title="${esc(c.place)}"><code>${esc(c.id)}</code> <span class="lvl">${esc(c.level)}</span> ${esc(c.title)} — <b>${c.outcome}</b>${c.note ? ` <i class="note">(${esc(c.note)})</i>` : ''}</li>`,
        )
        .join('');
      body.push(
        `<tr class="${cls}" data-section="${esc(r.section)}"><td style="padding-left:${(r.depth - 2) * 1.5 + 0.5}em">${esc(r.section)}</td><td class="n">${r.cases.length}</td><td class="result">${result}</td><td><ul>${list}</ul></td></tr>`,
      );
    }
    body.push('</tbody></table>');
  }
  if (unplaced.length)
    body.push(
      `<h2>Cases naming no heading of the spec</h2><ul id="unplaced">${unplaced.map((c) => `<li><code>${esc(c.id)}</code> ${esc(c.title)} — doc${c.doc} has no section "${esc(c.section)}"</li>`).join('')}</ul>`,
    );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%;margin-bottom:2em}
td,th{border:1px solid #ccc;padding:.3em .5em;vertical-align:top;text-align:left}ul{margin:0;padding-left:1.2em}
tr.untested td:first-child{background:#fff3cd}tr.explained td:first-child{background:#e2e3e5}tr.failing td:first-child{background:#f8d7da}tr.passing td:first-child{background:#d4edda}
li.failed,li.unexpected-pass{color:#a00}li.skipped,li.not-run{color:#777}li.expected-fail{color:#a60}.lvl{font-size:11px;background:#eee;padding:0 .3em;border-radius:3px}
#summary{font-size:16px;margin-bottom:1em}li.conformant{color:#155724}li.not-conformant{color:#a00}.sub{color:#555}</style></head><body><h1>${esc(title)}</h1>
${subtitle ? `<p class="sub" id="run">${esc(subtitle)}</p>\n` : ''}<p id="summary"><span id="sections-covered">${covered}</span> of <span id="sections">${rows.length}</span> sections covered — <span id="passed">${count('passed')}</span> passed, <span id="failed">${count('failed')}</span> failed, <span id="expected-fail">${count('expected-fail')}</span> expected failures, <span id="unexpected-pass">${count('unexpected-pass')}</span> unexpected passes, <span id="skipped">${count('skipped')}</span> skipped, <span id="not-run">${count('not-run')}</span> not run</p>
${levels}${body.join('\n')}${rules ? `\n${ruleCoverageHtml(rules)}` : ''}</body></html>\n`;
}
