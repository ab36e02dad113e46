// Go duration strings (`time.ParseDuration`): an optional sign, then one or more decimal
// numbers each with a unit (ns, us, µs, ms, s, m, h), e.g. `1h2m3.5s`, `300ms`, `-1.5h`;
// `0` alone needs no unit. Written here rather than taken from a package: no maintained npm
// package parses exactly Go's grammar (signs, `µs`, fractions on every unit, `0`). One parser
// for the command line's flags, CEL's duration values and the node agent configuration; and
// Go's `String` form, for the request log's latencies.

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const PART = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/y;
const MAX_NS = 2n ** 63n - 1n;

/** Nanoseconds of a Go duration, or undefined when the text is not one (or overflows int64). */
export function parseDuration(text: string): bigint | undefined {
  let s = text;
  let neg = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') return undefined;
  let total = 0n;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const at = PART.lastIndex;
    const m = PART.exec(s);
    if (!m || m.index !== at) return undefined;
    const [, whole = '', frac = ''] = m;
    // a number needs a digit before or after the point (`.5s` and `1.s` are Go durations, `.s` is not)
    if (whole === '' && frac === '') return undefined;
    const unit = UNIT_NS[m[3]!]!;
    let ns = BigInt(whole || '0') * unit;
    if (frac) ns += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    total += ns;
    if (total > MAX_NS + (neg ? 1n : 0n)) return undefined;
  }
  return neg ? -total : total;
}

/**
 * Why a text is not a Go duration, in the words of Go's `time.ParseDuration` (`time: invalid
 * duration "x"`, `time: missing unit in duration "1"`, `time: unknown unit "y" in duration
 * "1y"`), or undefined when it is one.
 */
export function goDurationError(text: string): string | undefined {
  if (parseDuration(text) !== undefined) return undefined;
  const q = JSON.stringify(text);
  const invalid = `time: invalid duration ${q}`;
  // Go's scan: numbers each followed by a unit (the letters up to the next digit or point)
  let s = text.replace(/^[-+]/, '');
  if (s === '') return invalid;
  while (s !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    if (num[0] === '' || (num[1] === '' && !num[2])) return invalid;
    s = s.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (unit === '') return `time: missing unit in duration ${q}`;
    if (!(unit in UNIT_NS)) return `time: unknown unit ${JSON.stringify(unit)} in duration ${q}`;
    s = s.slice(unit.length);
  }
  // every part well formed: the total overflows int64
  return invalid;
}

/** The duration in seconds (a float), for comparisons; undefined when not a duration. */
export function durationSeconds(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const ns = parseDuration(text);
  return ns === undefined ? undefined : Number(ns) / 1e9;
}

/**
 * Milliseconds of a duration given on the command line (`2m`, `30s`, `1h30m`, `500ms`, `0`),
 * or undefined when the text is not a Go duration or is negative (no flag takes one).
 */
export function parseGoDuration(text: string): number | undefined {
  const ns = parseDuration(text);
  return ns === undefined || ns < 0n ? undefined : Number(ns) / 1e6;
}

/** Go's `time.Duration.String` of a duration in nanoseconds: `850ns`, `12.5µs`, `1.234567ms`, `2.5s`, `1m30s`. */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  const a = neg ? -ns : ns;
  const frac = (v: bigint, unit: bigint, digits: number) => {
    const whole = v / unit;
    const rest = (v % unit).toString().padStart(digits, '0').replace(/0+$/, '');
    return rest ? `${whole}.${rest}` : `${whole}`;
  };
  let text: string;
  if (a < 1_000n) text = `${a}ns`;
  else if (a < 1_000_000n) text = `${frac(a, 1_000n, 3)}µs`;
  else if (a < 1_000_000_000n) text = `${frac(a, 1_000_000n, 6)}ms`;
  else {
    const h = a / 3_600_000_000_000n;
    const m = (a / 60_000_000_000n) % 60n;
    const s = `${frac(a % 60_000_000_000n, 1_000_000_000n, 9)}s`;
    text = h ? `${h}h${m}m${s}` : m ? `${m}m${s}` : s;
  }
  return neg ? `-${text}` : text;
}
