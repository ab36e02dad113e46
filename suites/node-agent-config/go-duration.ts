// Go duration strings (doc3: "Durations are strings", the original interface's Go durations):
// the suite compares a defaulter's `1m0s` with the table's `1m` by value. Written here because
// no maintained npm package reads Go's grammar (sign, units ns to h, fractions, a bare 0).
const UNIT_NS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 6e10,
  h: 3.6e12,
};
const DURATION = /^[-+]?(0|((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;

/** Nanoseconds of a Go duration string, or undefined when the text is not one. */
export function goDurationNs(text: unknown): number | undefined {
  if (typeof text !== 'string' || !DURATION.test(text)) return undefined;
  const sign = text.startsWith('-') ? -1 : 1;
  let ns = 0;
  for (const m of text.matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g))
    ns += Number(m[1]) * UNIT_NS[m[2]!]!;
  return sign * ns;
}
