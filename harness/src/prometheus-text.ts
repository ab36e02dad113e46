// The Prometheus text exposition format (version 0.0.4) as the suites read `/metrics`: each
// sample line `name{label="value",...} value [timestamp]`, label values unescaped (\\, \", \n),
// `# HELP` and `# TYPE` lines kept by metric name. Written here rather than taken from npm:
// the format is a few lines of grammar, and the parsers published there are unmaintained.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  help: Map<string, string>;
  type: Map<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

function unescapeValue(s: string): string {
  return s.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

/** Parses an exposition; a line it cannot read throws with its number. */
const SPECIAL_VALUES: Record<string, number> = {
  nan: Number.NaN,
  inf: Number.POSITIVE_INFINITY,
  '+inf': Number.POSITIVE_INFINITY,
  infinity: Number.POSITIVE_INFINITY,
  '+infinity': Number.POSITIVE_INFINITY,
  '-inf': Number.NEGATIVE_INFINITY,
  '-infinity': Number.NEGATIVE_INFINITY,
};

export function parsePrometheusText(text: string): Exposition {
  const out: Exposition = { samples: [], help: new Map(), type: new Map() };
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    if (line.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+([a-zA-Z_:][a-zA-Z0-9_:]*)\s?(.*)$/.exec(line);
      if (m)
        (m[1] === 'HELP' ? out.help : out.type).set(m[2]!, m[1] === 'HELP' ? unescapeValue(m[3]!) : m[3]!);
      return;
    }
    const bad = (why: string) => new Error(`/metrics line ${i + 1}: ${why}: ${raw.slice(0, 200)}`);
    const name = NAME.exec(line)?.[0];
    if (!name) throw bad('no metric name');
    let rest = line.slice(name.length);
    const labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      rest = rest.slice(1);
      for (;;) {
        rest = rest.replace(/^[\s,]+/, '');
        if (rest.startsWith('}')) {
          rest = rest.slice(1);
          break;
        }
        const m = /^([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(rest);
        if (!m) throw bad('a malformed label');
        labels[m[1]!] = unescapeValue(m[2]!);
        rest = rest.slice(m[0].length);
      }
    }
    const v = rest.trim().split(/\s+/)[0];
    if (v === undefined || v === '') throw bad('no value');
    // a value as Go's ParseFloat reads it: the special values in any letter case
    const special = SPECIAL_VALUES[v.toLowerCase()];
    const value = special ?? Number(v);
    if (Number.isNaN(value) && special === undefined) throw bad(`"${v}" is not a number`);
    out.samples.push({ name, labels, value });
  });
  return out;
}
