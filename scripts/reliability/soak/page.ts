// The soak's HTML page: one self-contained file (inline CSS and SVG, no script) with, for each
// backend, the verdict, the counts, the memory figures and line charts of memory and of the
// write and event rates over time.
import type { Flatness } from './memory.ts';
import type { Sample, SoakResult } from './run.ts';

const MB = 1024 * 1024;
const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#17becf', '#7f7f7f'];

export interface Series {
  name: string;
  points: [number, number][];
}

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/** An SVG line chart: x in seconds, y from 0 to a round maximum, one line per series, a legend. */
export function lineChart(title: string, unit: string, series: Series[]): string {
  const W = 660;
  const legendRows = Math.ceil(series.length / 4);
  const H = 260 + (legendRows - 1) * 14;
  const L = 60;
  const R = 24;
  const T = 28;
  const B = 26 + legendRows * 14;
  const all = series.flatMap((s) => s.points);
  const xMax = Math.max(1, ...all.map((p) => p[0]));
  const yMax = niceMax(Math.max(0, ...all.map((p) => p[1])));
  const x = (v: number) => L + (v / xMax) * (W - L - R);
  const y = (v: number) => T + (1 - v / yMax) * (H - T - B);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">`,
    `<text x="${L}" y="16" font-size="13" font-weight="bold">${esc(title)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4;
    parts.push(
      `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`,
      `<text x="${L - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end">${+v.toFixed(1)}</text>`,
    );
  }
  for (let i = 0; i <= 5; i++) {
    const v = (xMax * i) / 5;
    parts.push(
      `<text x="${x(v)}" y="${H - B + 16}" font-size="11" text-anchor="middle">${v.toFixed(0)} s</text>`,
    );
  }
  parts.push(
    `<text x="14" y="${T + (H - T - B) / 2}" font-size="11" transform="rotate(-90 14 ${T + (H - T - B) / 2})" text-anchor="middle">${esc(unit)}</text>`,
  );
  series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length];
    if (s.points.length)
      parts.push(
        `<polyline fill="none" stroke="${c}" stroke-width="1.5" points="${s.points.map(([a, b]) => `${x(a).toFixed(1)},${y(b).toFixed(1)}`).join(' ')}"/>`,
      );
    const lx = L + (i % 4) * 150;
    const ly = H - 14 * (legendRows - Math.floor(i / 4));
    parts.push(
      `<rect x="${lx}" y="${ly}" width="12" height="3" fill="${c}"/>`,
      `<text x="${lx + 16}" y="${ly + 5}" font-size="11">${esc(s.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}

function rates(samples: Sample[], f: (s: Sample) => number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 1; i < samples.length; i++) {
    const dt = samples[i]!.t - samples[i - 1]!.t;
    if (dt > 0) out.push([samples[i]!.t, (f(samples[i]!) - f(samples[i - 1]!)) / dt]);
  }
  return out;
}

const fmt = (n: number) => n.toLocaleString('en-US');
const mbs = (b: number) => (Number.isFinite(b) ? `${(b / MB).toFixed(1)} MB` : '-');

function memoryRow(name: string, f: Flatness | undefined, judged: boolean, samplesPerMinute: number): string {
  if (!f) return '';
  const verdict = f.flat === undefined ? 'too few samples' : !judged ? 'reported' : f.flat ? 'flat' : 'GROWS';
  return `<tr><td>${esc(name)}</td><td>${f.samples}</td><td>${mbs(f.early)}</td><td>${mbs(f.late)}</td><td>${mbs(f.growthBytes)}</td><td>${Number.isFinite(f.growthPct) ? `${f.growthPct.toFixed(1)}%` : '-'}</td><td>${Number.isFinite(f.slopePerSample) ? `${((f.slopePerSample * samplesPerMinute) / MB).toFixed(2)} MB/min` : '-'}</td><td class="${verdict === 'GROWS' ? 'bad' : ''}">${verdict}</td></tr>`;
}

function section(r: SoakResult): string {
  const e = r.events;
  const spm = 60 / r.sampleSeconds;
  const mem: Series[] = [];
  r.memory.servers.forEach((_, i) => {
    const n = r.servers > 1 ? ` ${i + 1}` : '';
    mem.push({
      name: `server${n} RSS`,
      points: r.samples
        .filter((s) => s.servers[i]?.rss !== undefined)
        .map((s) => [s.t, s.servers[i]!.rss! / MB]),
    });
    mem.push({
      name: `server${n} external`,
      points: r.samples
        .filter((s) => s.servers[i]?.external !== undefined)
        .map((s) => [s.t, s.servers[i]!.external! / MB]),
    });
    mem.push({
      name: `server${n} heap used`,
      points: r.samples
        .filter((s) => s.servers[i]?.heap !== undefined)
        .map((s) => [s.t, s.servers[i]!.heap! / MB]),
    });
  });
  mem.push({ name: 'driver RSS', points: r.samples.map((s) => [s.t, s.driverRss / MB]) });
  if (r.samples.some((s) => s.etcdRss !== undefined))
    mem.push({
      name: 'etcd RSS',
      points: r.samples.filter((s) => s.etcdRss !== undefined).map((s) => [s.t, s.etcdRss! / MB]),
    });
  const writes: Series[] = [{ name: 'writes/s (acknowledged)', points: rates(r.samples, (s) => s.writes) }];
  const events: Series[] = [{ name: 'events/s (all watchers)', points: rates(r.samples, (s) => s.events) }];
  const row = (k: string, v: string | number, bad = false) =>
    `<tr><th>${esc(k)}</th><td class="${bad ? 'bad' : ''}">${typeof v === 'number' ? fmt(v) : esc(v)}</td></tr>`;
  return `
<section>
<h2>${esc(r.backend)}${r.servers > 1 ? ` (${r.servers} servers)` : ''} <span class="${r.pass ? 'pass' : 'fail'}">${r.pass ? 'PASS' : 'FAIL'}</span></h2>
${r.reasons.length ? `<ul class="bad">${r.reasons.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>` : ''}
<p>${(r.seconds / 60).toFixed(1)} minutes from ${esc(r.startedAt)}, ${r.watchersCount} watchers, ${r.rate} writes/s asked (${r.achievedRate.toFixed(1)} achieved), seed ${r.seed}.</p>
${lineChart('Memory over time', 'MB', mem)}
${lineChart('Writes per second', 'per second', writes)}
${lineChart('Watch events delivered per second', 'per second', events)}
<div class="tables">
<table><caption>Writes and events</caption>
${row('writes acknowledged', r.writes.acknowledged)}
${row('creates / updates / deletes', `${fmt(r.writes.byType.ADDED ?? 0)} / ${fmt(r.writes.byType.MODIFIED ?? 0)} / ${fmt(r.writes.byType.DELETED ?? 0)}`)}
${row('writes failed', r.writes.failed, r.writes.failed > 0)}
${row('events expected', e.expected)}
${row('events delivered', e.delivered)}
${row('lost', e.lost, e.lost > 0)}
${row('duplicated', e.duplicated, e.duplicated > 0)}
${row('reordered', e.reordered, e.reordered > 0)}
${row('unexpected', e.unexpected, e.unexpected > 0)}
${row('watches resumed', r.watch.resumed)}
${row('bookmarks', r.watch.bookmarks)}
${row('410 Gone (within the history)', r.watch.expired, r.watch.expired > 0)}
${row('410 Gone (resumed from beyond the history)', r.watch.expiredBeyond)}
${row('watch errors', r.watch.errors, r.watch.errors > 0)}
${row('settle after the last write', `${r.settleSeconds.toFixed(1)} s`)}
</table>
<table><caption>By watcher scope</caption>
<tr><th>scope</th><th>watchers</th><th>expected</th><th>delivered</th><th>lost</th><th>dup.</th><th>reord.</th><th>unexp.</th></tr>
${r.byScope.map((s) => `<tr><td>${s.kind}</td><td>${s.watchers}</td><td>${fmt(s.expected)}</td><td>${fmt(s.delivered)}</td><td>${s.lost}</td><td>${s.duplicated}</td><td>${s.reordered}</td><td>${s.unexpected}</td></tr>`).join('\n')}
</table>
</div>
<table><caption>Memory: mean of the second quarter against the last quarter of the writes (limits: ${r.memory.limits.maxPct}% and ${mbs(r.memory.limits.maxBytes)}, both exceeded = grows)</caption>
<tr><th>process</th><th>samples</th><th>2nd quarter</th><th>last quarter</th><th>growth</th><th>growth %</th><th>trend, second half</th><th>verdict</th></tr>
${r.memory.servers.map((m, i) => memoryRow(`server${r.servers > 1 ? ` ${i + 1}` : ''} RSS`, m.rss, true, spm) + memoryRow(`server${r.servers > 1 ? ` ${i + 1}` : ''} heap used`, m.heap, false, spm) + memoryRow(`server${r.servers > 1 ? ` ${i + 1}` : ''} heap used, lowest of each minute`, m.heapFloor, false, 1) + memoryRow(`server${r.servers > 1 ? ` ${i + 1}` : ''} external (Buffers)`, m.external, false, spm)).join('\n')}
${memoryRow('driver RSS (holds every event it checks)', r.memory.driver, false, spm)}
${memoryRow('etcd RSS', r.memory.etcd, false, spm)}
</table>
${
  e.failing.length
    ? `<h3>Watchers with problems (first ${e.failing.length})</h3><ul>${e.failing.map((c) => `<li><code>${esc(c.scope)}</code>: ${esc(c.problems.join('; '))}</li>`).join('')}</ul>`
    : ''
}
${r.writes.failures.length ? `<h3>Failed writes</h3><ul>${r.writes.failures.map((f) => `<li>${esc(f)}</li>`).join('')}</ul>` : ''}
${r.watch.errorTexts.length ? `<h3>Watch errors</h3><ul>${r.watch.errorTexts.map((f) => `<li>${esc(f)}</li>`).join('')}</ul>` : ''}
</section>`;
}

export function renderPage(results: SoakResult[]): string {
  const pass = results.every((r) => r.pass);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Soak ${pass ? 'PASS' : 'FAIL'}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1500px;color:#222}
h2{border-bottom:1px solid #ccc;padding-bottom:.2em}
.pass{color:#fff;background:#2a7d2a;padding:0 .4em;border-radius:3px}
.fail{color:#fff;background:#b22;padding:0 .4em;border-radius:3px}
.bad{color:#b22;font-weight:bold}
table{border-collapse:collapse;margin:1em 1em 1em 0;vertical-align:top}
td,th{border:1px solid #ddd;padding:2px 8px;text-align:right}
th{text-align:left;background:#f6f6f6}
caption{text-align:left;font-weight:bold;padding:4px 0}
.tables{display:flex;flex-wrap:wrap;align-items:flex-start}
td:first-child{text-align:left}
svg{display:inline-block;margin:.5em 1em .5em 0}
</style></head><body>
<h1>Soak: watchers over steady writes <span class="${pass ? 'pass' : 'fail'}">${pass ? 'PASS' : 'FAIL'}</span></h1>
<p>Every watcher must see exactly the acknowledged writes in its scope, in resourceVersion order, each once;
the servers' resident memory must stay flat.</p>
${results.map(section).join('\n')}
</body></html>
`;
}
