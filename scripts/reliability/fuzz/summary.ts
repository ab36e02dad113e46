// The summary table of a fuzz run: one row per backend.
import type { FuzzResult } from './run.ts';

const mib = (b: number | undefined) => (b === undefined ? '?' : `${(b / 1048576).toFixed(0)} MiB`);

export function summaryTable(rows: { backend: string; result: FuzzResult }[]): string {
  const head = ['backend', 'requests', '2xx', '3xx', '4xx', '5xx', 'none', 'violations', 'max RSS', 'wall'];
  const lines = rows.map(({ backend, result: r }) => [
    backend,
    String(r.requests),
    ...['2xx', '3xx', '4xx', '5xx', 'none'].map((c) => String(r.byClass[c] ?? 0)),
    String(r.violationCount),
    mib(r.maxRssBytes),
    `${(r.wallMs / 1000).toFixed(1)} s`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}
