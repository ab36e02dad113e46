// Durations written as Go writes them on command lines (`2m`, `30s`, `1h30m`, `500ms`, `0`).
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/** Milliseconds of a Go duration, or undefined when the text is not one (negative durations included). */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (!text) return undefined;
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const at = PART.lastIndex;
    const m = PART.exec(text);
    if (!m || m.index !== at) return undefined;
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  return ms;
}
