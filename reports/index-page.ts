// index.html of a report directory: the verdict and a link to each page of the report, so a
// published report (GitHub or GitLab Pages, ci-templates/) opens on something.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { esc } from './html.ts';

const PAGES: [file: string, what: string][] = [
  ['matrix.html', 'the matrix: every section of the three documents, its cases and their outcomes'],
  ['trend.html', 'the trend: pass counts per run, the newly failing cases, since when each case fails'],
  ['html/index.html', 'the Allure report: every case with its steps, spec place and history'],
  ['junit.xml', 'JUnit XML'],
  ['summary.json', 'the summary (JSON)'],
  ['timings.json', 'where the time went (JSON)'],
];

export function indexHtml(
  dir: string,
  s: { ok: boolean; reasons: string[]; executed: number; passed: number; profile: string },
  title: string,
): string {
  const links = PAGES.filter(([f]) => f === 'summary.json' || existsSync(join(dir, f)))
    .map(([f, what]) => `<li><a href="${esc(f)}">${esc(f)}</a>: ${esc(what)}</li>`)
    .join('');
  const verdict = s.ok ? 'PASS' : `FAIL: ${s.reasons.join('; ')}`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}.pass{color:#155724}.fail{color:#a00}</style></head><body>
<h1>${esc(title)}</h1><p id="verdict" class="${s.ok ? 'pass' : 'fail'}"><b>${esc(verdict)}</b> — ${s.passed} of ${s.executed} cases passed, profile ${esc(s.profile)}</p>
<ul id="pages">${links}</ul></body></html>
`;
}
