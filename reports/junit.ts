// Merging the JUnit XML of several shards into one document: the <testsuite> elements of
// every part under one <testsuites>, whose tests/failures/errors/time are the sums.
// vitest writes one <testsuites> root holding <testsuite> elements; nothing else is needed.

const ROOT_OPEN = /<testsuites\b([^>]*)>/;
const ROOT_CLOSE = '</testsuites>';

function attr(attrs: string, name: string): number {
  const m = new RegExp(`\\b${name}="([^"]*)"`).exec(attrs);
  return m ? Number(m[1]) || 0 : 0;
}

/** The <testsuite> elements of one JUnit document and its totals. */
export function parseJunit(xml: string): {
  suites: string;
  tests: number;
  failures: number;
  errors: number;
  time: number;
} {
  const open = ROOT_OPEN.exec(xml);
  const end = xml.lastIndexOf(ROOT_CLOSE);
  if (!open || end < 0) throw new Error('not a JUnit XML document with a <testsuites> root');
  const attrs = open[1] ?? '';
  const inner = xml.slice(open.index + open[0].length, end);
  return {
    suites: inner.replace(/^\s*\n/, '').replace(/\s+$/, ''),
    tests: attr(attrs, 'tests'),
    failures: attr(attrs, 'failures'),
    errors: attr(attrs, 'errors'),
    time: attr(attrs, 'time'),
  };
}

export function mergeJunit(parts: string[], name = 'orch conformance'): string {
  const parsed = parts.map(parseJunit);
  const sum = (k: 'tests' | 'failures' | 'errors' | 'time') => parsed.reduce((n, p) => n + p[k], 0);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return [
    '<?xml version="1.0" encoding="UTF-8" ?>',
    `<testsuites name="${esc(name)}" tests="${sum('tests')}" failures="${sum('failures')}" errors="${sum('errors')}" time="${sum('time')}">`,
    ...parsed.map((p) => p.suites).filter((s) => s.trim()),
    ROOT_CLOSE,
    '',
  ].join('\n');
}
