// Fresh names for a replay. The suites make their objects' names unique to a run with a random
// hexadecimal part after a dash (`cm-1f3a9c0e`, namespace `conf-7b21d4aa`, group
// `w-00c3e1f2a9.example.com`). A replay that sent the same names again would meet the objects
// of the run, or of the replay before it; so each such part becomes a variable the script sets
// fresh each time, of the same length (a name's length limit holds as it did) and sorting
// among the others as the run's did.

import { type Part, replaceMatches, type Text } from './text.ts';

/** A random part: 6 to 10 hex digits after `<letter or digit>-`, ending the word, with a digit in it. */
const TOKEN = /(?<=[a-z0-9]-)[0-9a-f]{6,10}(?![0-9a-z])/g;

/** The run-unique parts found in `texts` (request paths and bodies), in order of appearance. */
export function uniqueParts(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(TOKEN)) if (/[0-9]/.test(m[0])) seen.add(m[0]);
  return [...seen];
}

/** A fresh part's variable: S1, S2, … */
export const freshVar = (i: number) => `S${i + 1}`;

/**
 * The script lines setting each fresh part, of the same length as the run's: its first digits
 * (two, one of a short part), random digits, then its rank among the parts in two digits. So
 * distinct parts stay distinct, and names sort as they did in the run (a list answer's order
 * compares equal).
 */
export function freshLines(parts: readonly string[]): string[] {
  if (parts.length === 0) return [];
  const sorted = [...parts].sort();
  return [
    'RUN=$(od -An -N8 -tx1 /dev/urandom | tr -d " \\n")',
    ...parts.map((p, i) => {
      const keep = p.length >= 8 ? 2 : 1;
      const rank = (sorted.indexOf(p) % 256).toString(16).padStart(2, '0');
      return `${freshVar(i)}="${p.slice(0, keep)}\${RUN:0:${p.length - keep - 2}}${rank}"  # the run's ${p}`;
    }),
  ];
}

/** `t` with each run-unique part replaced by its variable. */
export function freshen(t: Text, parts: readonly string[]): Text {
  if (parts.length === 0) return t;
  const index = new Map(parts.map((p, i) => [p, i]));
  return replaceMatches(t, new RegExp(TOKEN.source, 'g'), (m) => {
    const i = index.get(m[0]);
    return i === undefined ? [m[0]] : [{ v: freshVar(i) } as Part];
  });
}
