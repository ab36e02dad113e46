// The fault meta test's result page (out/faults/index.html beside catchers.json): every fault
// of the catalogue that ran, the rule it breaks, its catchers (those that caught it in bold),
// the other cases it failed, and the seconds its run took; the slowest first in a list of its
// own, so the cost of the meta test shows where it is.
import { esc } from './html.ts';

export interface FaultVerdict {
  fault: string;
  area: string;
  breaks: string;
  catchers: string[];
  caughtBy: string[];
  strayFailures: string[];
  /** Cases of the radius that failed, as faults/blast-radius.json says they do. */
  alsoFailed: string[];
  /** Cases of the radius that passed. */
  vanished: string[];
  /** Cases of the radius that skipped (not judged). */
  skippedRadius: string[];
  proxyErrors: string[];
  ok: boolean;
  /** The seconds the fault's run spent in its test files. */
  seconds: number;
  /** The cases of the run that took two seconds or more (case id -> seconds): where its time went. */
  slowCases?: Record<string, number>;
}

/** The slow cases of a run, slowest first, for the list of slowest runs. */
const slowCases = (v: FaultVerdict) => {
  const cases = Object.entries(v.slowCases ?? {}).sort((a, b) => b[1] - a[1]);
  return cases.length
    ? `: ${cases.map(([id, s]) => `<code>${esc(id)}</code> ${s.toFixed(1)} s`).join(', ')}`
    : '';
};

export interface FaultTable {
  when: string;
  faults: number;
  run: number;
  ok: number;
  seconds: number;
  verdicts: FaultVerdict[];
}

const SLOWEST = 15;

export function renderFaultsPage(t: FaultTable): string {
  const row = (v: FaultVerdict) => {
    const catchers = v.catchers
      .map((c) =>
        v.caughtBy.some((id) => id === c || (c.endsWith('/') && id.startsWith(c)))
          ? `<b>${esc(c)}</b>`
          : esc(c),
      )
      .join('<br>');
    const problems = [
      ...(v.caughtBy.length ? [] : ['no catcher failed']),
      ...(v.strayFailures.length ? [`stray failures: ${v.strayFailures.join(', ')}`] : []),
      ...(v.vanished.length ? [`blast radius cases that passed: ${v.vanished.join(', ')}`] : []),
      ...(v.proxyErrors.length ? [`proxy errors: ${v.proxyErrors.join(' | ')}`] : []),
    ];
    return `<tr class="${v.ok ? 'ok' : 'bad'}"><td><code>${esc(v.fault)}</code></td><td>${esc(v.area)}</td><td>${esc(v.breaks)}</td><td>${catchers}</td><td>${v.alsoFailed.map(esc).join('<br>')}</td><td class="n">${v.seconds.toFixed(1)}</td><td>${v.ok ? 'OK' : esc(problems.join('; '))}</td></tr>`;
  };
  const slowest = [...t.verdicts].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST);
  const total = t.verdicts.reduce((s, v) => s + v.seconds, 0);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Faults and their catchers</title><style>
body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .5em;vertical-align:top;text-align:left}
tr.bad{background:#fdd}.n{text-align:right;font-variant-numeric:tabular-nums}code{font-size:13px}</style></head><body>
<h1>Faults and their catchers</h1>
<p id="summary">${t.run} of ${t.faults} faults run on ${esc(t.when)}: <span id="ok">${t.ok}</span> caught by a named catcher and by nothing else; ${t.run - t.ok} not. The meta test took ${t.seconds} s; the faults' runs spent ${total.toFixed(0)} s in test files.</p>
<h2>Slowest runs</h2><ol id="slowest">${slowest.map((v) => `<li><code>${esc(v.fault)}</code> (${esc(v.area)}) ${v.seconds.toFixed(1)} s${slowCases(v)}</li>`).join('')}</ol>
<h2>Every fault</h2>
<table id="faults"><thead><tr><th>fault</th><th>area</th><th>breaks</th><th>catchers (caught by, in bold)</th><th>also failed (its blast radius)</th><th>seconds</th><th>verdict</th></tr></thead><tbody>
${t.verdicts.map(row).join('\n')}
</tbody></table></body></html>
`;
}
