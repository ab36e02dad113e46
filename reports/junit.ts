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

/**
 * The document with each case's reproducer attached (`files`: case id -> path): a
 * `[[ATTACHMENT|path]]` line in the system-out of the case's <testcase>, the convention of
 * Jenkins' JUnit attachments and GitLab's test reports. A case is found by its id at the start
 * of its test name (after the describe blocks' names, `a > b > id: title`).
 */
export function attachReproducers(xml: string, files: ReadonlyMap<string, string>): string {
  if (files.size === 0) return xml;
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return xml.replace(
    /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g,
    (whole, attrs: string, end: string, inner?: string) => {
      const name = /\bname="([^"]*)"/.exec(attrs)?.[1] ?? '';
      const id = /(?:^|&gt; )([a-z0-9-]+(?:\/[a-z0-9.-]+)+): /.exec(name)?.[1];
      const file = id === undefined ? undefined : files.get(id);
      if (!file) return whole;
      const line = `[[ATTACHMENT|${esc(file)}]]`;
      if (end === '/>') return `<testcase${attrs}>\n<system-out>${line}</system-out>\n</testcase>`;
      const body = inner ?? '';
      if (body.includes(line)) return whole;
      const next = body.includes('<system-out>')
        ? body.replace('<system-out>', `<system-out>${line}\n`)
        : `${body.replace(/\s*$/, '')}\n<system-out>${line}</system-out>\n`;
      return `<testcase${attrs}>${next}</testcase>`;
    },
  );
}
