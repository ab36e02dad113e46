// Values a server made that a case sent back: a resourceVersion or uid from an earlier answer
// (an update's precondition, a watch's starting point), a list's continue token, the name a
// generateName create was given. A replay's server makes other ones, so the script takes
// each from the answer of the same earlier step (the same key's n-th occurrence in it) and
// sends that instead of the run's.
//
// A value counts as the server's when an answer held it before any request did: a value the
// case chose itself (a made-up resourceVersion, a name) stays as the run sent it.

import type { Exchange } from './exchange.ts';
import { type Part, replaceMatches, type Text } from './text.ts';

const KEYS = ['resourceVersion', 'uid', 'continue', 'name'] as const;
type Key = (typeof KEYS)[number];
const PREFIX: Record<Key, string> = { resourceVersion: 'RV', uid: 'UID', continue: 'CONT', name: 'NAME' };

export interface Capture {
  /** The script's variable. */
  name: string;
  /** The step (0-based) whose answer holds it, the key and its occurrence (1 first) there. */
  step: number;
  key: Key;
  index: number;
  value: string;
}

const FIELD = /"(resourceVersion|uid|continue|name)"(\s*:\s*)"([^"\\]*)"/g;

const textOf = (b: string | Buffer | undefined): string | undefined =>
  b === undefined ? undefined : typeof b === 'string' ? b : isText(b) ? b.toString('utf8') : undefined;

/** Bytes that are UTF-8 text without NUL (a body a here-document can hold). */
export function isText(b: Buffer): boolean {
  if (b.includes(0)) return false;
  return Buffer.from(b.toString('utf8'), 'utf8').equals(b);
}

/** A key and a value, as one map key. */
const kv = (key: string, value: string) => `${key}\u0000${value}`;

/** The query parameters that carry a server's value. */
const QUERY_KEYS: Record<string, Key> = { resourceVersion: 'resourceVersion', continue: 'continue' };

/** The values a request sends (as kv): its path segments (names), its query's, its body's. */
function requestValues(x: Exchange): Set<string> {
  const out = new Set<string>();
  const [path, query] = splitQuery(x.path);
  for (const s of path.split('/')) if (s) out.add(kv('name', safeDecode(s)));
  for (const p of query ? query.split('&') : []) {
    const key = QUERY_KEYS[p.slice(0, p.indexOf('='))];
    if (key) out.add(kv(key, safeDecode(p.slice(p.indexOf('=') + 1))));
  }
  for (const m of (textOf(x.body) ?? '').matchAll(FIELD)) out.add(kv(m[1]!, m[3]!));
  return out;
}

export function splitQuery(path: string): [string, string | undefined] {
  const q = path.indexOf('?');
  return q < 0 ? [path, undefined] : [path.slice(0, q), path.slice(q + 1)];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** What each step may take from earlier answers: value -> capture, per step. */
export class Captures {
  /** Per step, the values available to its request (made by the server in an earlier answer). */
  private readonly available: Map<string, Capture>[] = [];
  /** The captures some request uses, by variable name. */
  readonly used = new Map<string, Capture>();
  /** The values a request sent before any answer held them (the case chose them), as kv. */
  private readonly introduced = new Set<string>();

  /** Whether the case chose this value of this key itself (a request sent it first). */
  chosen(key: string, value: string): boolean {
    return this.introduced.has(kv(key, value));
  }

  constructor(steps: readonly Exchange[]) {
    const introduced = this.introduced;
    let avail = new Map<string, Capture>();
    steps.forEach((x, j) => {
      this.available.push(avail);
      for (const v of requestValues(x)) if (!avail.has(v)) introduced.add(v);
      const answer = x.watchMs === undefined ? textOf(x.answer) : undefined;
      if (!answer) return;
      avail = new Map(avail);
      const count: Record<string, number> = {};
      const generated = /"generateName"\s*:/.test(textOf(x.body) ?? '');
      for (const m of answer.matchAll(FIELD)) {
        const key = m[1] as Key;
        const index = (count[key] = (count[key] ?? 0) + 1);
        const value = m[3]!;
        if (!value || introduced.has(kv(key, value))) continue;
        if (key === 'name' && !(generated && index === 1)) continue;
        if (avail.get(kv(key, value))?.step === j) continue; // its first occurrence in this answer
        avail.set(kv(key, value), { name: `${PREFIX[key]}${j + 1}_${index}`, step: j, key, index, value });
      }
    });
  }

  private use(step: number, key: string, value: string): Capture | undefined {
    const c = this.available[step]?.get(kv(key, value));
    if (c) this.used.set(c.name, c);
    return c;
  }

  /** A step's path and query, the server's values as variables. */
  path(step: number, t: string): Text {
    const [path, query] = splitQuery(t);
    const out: Text = [];
    path.split('/').forEach((seg, i) => {
      if (i > 0) out.push('/');
      const c = seg ? this.use(step, 'name', safeDecode(seg)) : undefined;
      out.push(c ? { v: c.name, enc: true } : seg);
    });
    if (query !== undefined) {
      out.push('?');
      query.split('&').forEach((p, i) => {
        if (i > 0) out.push('&');
        const eq = p.indexOf('=');
        const key = eq < 0 ? undefined : QUERY_KEYS[p.slice(0, eq)];
        const c = key ? this.use(step, key, safeDecode(p.slice(eq + 1))) : undefined;
        out.push(...(c ? [p.slice(0, eq + 1), { v: c.name, enc: true } as Part] : [p]));
      });
    }
    return out;
  }

  /** A body's (or an answer's) text, the server's values given to this step as variables. */
  body(step: number, t: Text): Text {
    return replaceMatches(t, new RegExp(FIELD.source, 'g'), (m) => {
      const c = this.use(step, m[1]!, m[3]!);
      return c ? [`"${m[1]}"${m[2]}"`, { v: c.name }, '"'] : [m[0]];
    });
  }
}
