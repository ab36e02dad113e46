// The report of a differential run: diff.json (everything), index.html (the divergences grouped
// by kind of difference, the first differing answers side by side) and one reproducer per side
// and divergence (repro/<n>-a.sh, repro/<n>-b.sh).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ExpectationFile } from '../../harness/src/expectations.ts';
import { knownDepartures } from './known.ts';
import { curlScript } from './repro.ts';
import type { DiffResult, Divergence } from './runner.ts';
import type { StartedSide } from './sides.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const json = (v: unknown) => JSON.stringify(v, null, 2);

/** The kind of a difference without the operation: what the page groups by. */
function group(d: Divergence): string {
  const colon = d.signature.indexOf(': ');
  if (d.signature.startsWith('status: ')) return d.signature;
  return colon < 0 ? d.signature : d.signature.slice(colon + 2).replace(/^status .*/, 'status codes differ');
}

function scriptsOf(
  d: Divergence,
  n: number,
  sides: StartedSide[],
): { a: string; b: string; files: [string, string] } {
  const make = (label: 'A' | 'B', side: StartedSide, answer: Divergence['a']) =>
    curlScript({
      title: `diff divergence ${n} (${d.signature}), side ${label}: ${side.about}; set ${side.credentials}`,
      server: side.target.url,
      requests: answer.requests,
    });
  return {
    a: make('A', sides[0]!, d.a),
    b: make('B', sides[1]!, d.b),
    files: [`repro/${n}-a.sh`, `repro/${n}-b.sh`],
  };
}

function html(
  r: DiffResult,
  sides: StartedSide[],
  scripts: { files: [string, string] }[],
  known: ExpectationFile,
): string {
  const groups = new Map<string, number[]>();
  for (const [i, d] of r.divergences.entries()) groups.set(group(d), [...(groups.get(group(d)) ?? []), i]);
  const parts = [
    '<!doctype html><html><head><meta charset="utf-8"><title>orch-conformance diff</title>',
    '<style>body{font-family:sans-serif;margin:1.5em}pre{background:#f6f6f6;padding:.5em;overflow:auto;max-height:32em;font-size:12px}',
    '.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em}.ok{color:#175}.bad{color:#a11}li.hit{font-weight:bold}</style></head><body>',
    '<h1>Differential run</h1>',
    `<p>Seed <code>${r.seed}</code> (replay: <code>orch-conformance diff ... --seed=${r.seed}</code>); ${r.opsDone} operations in ${r.sequences} sequences, ${r.shrinkSequences} more while shrinking; ${(r.elapsedMs / 1000).toFixed(1)} s.</p>`,
    `<ul><li>A: ${esc(sides[0]!.about)}</li><li>B: ${esc(sides[1]!.about)}</li></ul>`,
    r.divergences.length
      ? `<p class="bad">${r.divergences.length} kinds of difference.</p>`
      : '<p class="ok">No divergence.</p>',
  ];
  for (const [g, idx] of groups) {
    parts.push(`<h2>${esc(g)}</h2>`);
    for (const i of idx) {
      const d = r.divergences[i]!;
      const n = i + 1;
      parts.push(
        `<h3 id="d${n}">${n}. ${esc(d.signature)}</h3>`,
        `<p>Shrunk from ${d.foundLength} to ${d.ops.length} operations (round seed ${d.roundSeed}). Reproducers: <a href="${scripts[i]!.files[0]}">side A</a>, <a href="${scripts[i]!.files[1]}">side B</a>.</p>`,
        '<ol>',
        ...d.labels.map((l, k) => `<li${k === d.index ? ' class="hit"' : ''}>${esc(l)}</li>`),
        '</ol>',
        `<p>Differs at: <code>${esc(d.paths.join(', '))}</code></p>`,
        ...knownDepartures(known, d).map(
          (k) => `<p>Known departure <code>${esc(k.id)}</code>: ${esc(k.note)}</p>`,
        ),
        '<div class="pair">',
        `<div><h4>A</h4><pre>${esc(json(d.a.results[d.index]))}</pre></div>`,
        `<div><h4>B</h4><pre>${esc(json(d.b.results[d.index]))}</pre></div>`,
        '</div>',
      );
    }
  }
  parts.push('</body></html>');
  return parts.join('\n');
}

/** Writes the report into `dir`; returns the paths of its JSON and HTML files. */
export function writeReport(
  dir: string,
  r: DiffResult,
  sides: StartedSide[],
  known: ExpectationFile = { cases: {} },
): { json: string; html: string } {
  const out = resolve(dir);
  mkdirSync(join(out, 'repro'), { recursive: true });
  const scripts = r.divergences.map((d, i) => scriptsOf(d, i + 1, sides));
  scripts.forEach((s) => {
    s.files.forEach((f, k) => {
      const p = join(out, f);
      writeFileSync(p, k === 0 ? s.a : s.b);
      chmodSync(p, 0o755);
    });
  });
  const data = {
    seed: r.seed,
    opsDone: r.opsDone,
    sequences: r.sequences,
    shrinkSequences: r.shrinkSequences,
    elapsedMs: r.elapsedMs,
    sides: sides.map((s) => ({ about: s.about, url: s.target.url, dialect: s.target.dialect })),
    divergences: r.divergences.map((d, i) => ({
      signature: d.signature,
      group: group(d),
      index: d.index,
      paths: d.paths,
      operations: d.ops,
      labels: d.labels,
      roundSeed: d.roundSeed,
      foundLength: d.foundLength,
      a: d.a.results,
      b: d.b.results,
      reproducers: scripts[i]!.files,
      known: knownDepartures(known, d),
    })),
  };
  const jsonFile = join(out, 'diff.json');
  const htmlFile = join(out, 'index.html');
  writeFileSync(jsonFile, `${json(data)}\n`);
  writeFileSync(htmlFile, html(r, sides, scripts, known));
  return { json: jsonFile, html: htmlFile };
}
