// JSON parsing that also reports duplicate keys (JSON.parse keeps the last one silently),
// which field validation must report. One pass over the text counts the keys written (and
// bounds the nesting); the scanner that names the repeated keys runs only when JSON.parse
// kept fewer keys than that.
import { errors } from '../errors/status.ts';

export interface Parsed {
  value: unknown;
  /** Paths (`metadata.name`, `spec.items[0].x`) of keys that occurred more than once. */
  duplicates: string[];
}

/**
 * How deeply objects and arrays may nest in a request body (and in an object built from one,
 * e.g. by a patch). Go's JSON decoder stops at 10000; far less is safe here: the YAML library
 * and the recursive walkers over objects (schema decoding, merge, YAML output) would exhaust
 * the stack some way below 1000 levels. No real object comes near this.
 */
export const MAX_NESTING = 256;

/** The 400 for a body nested deeper than MAX_NESTING. */
export function tooDeep(limit = MAX_NESTING) {
  return errors.badRequest(
    `error decoding request body: exceeded max depth: objects and arrays nest more than ${limit} levels deep`,
  );
}

/** Whether a decoded value nests objects and arrays deeper than `limit`; no recursion, safe on cycles. */
export function valueNestingExceeds(value: unknown, limit = MAX_NESTING): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
    }
  }
  return false;
}

export function parseJson(text: string): Parsed {
  const keys = scanKeys(text);
  if (keys < 0) throw tooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`error decoding request body: ${(e as Error).message}`);
  }
  const duplicates: string[] = [];
  // JSON.parse keeps one of each repeated key: fewer keys decoded than written means a repeat
  if (typeof value === 'object' && value !== null && countKeys(value) !== keys)
    findDuplicates(text, duplicates);
  return { value, duplicates };
}

/**
 * One linear pass over JSON text: the number of object keys written in it (a string followed
 * by `:`), or -1 when objects and arrays nest deeper than MAX_NESTING.
 */
function scanKeys(text: string): number {
  let depth = 0;
  let keys = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // a backslash: skip the escaped character
      if (c === 92) i++;
      else if (c === 34) {
        inString = false;
        let j = i + 1;
        while (j < text.length) {
          const w = text.charCodeAt(j);
          if (w !== 32 && w !== 10 && w !== 13 && w !== 9) break;
          j++;
        }
        if (text.charCodeAt(j) === 58) keys++;
      }
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_NESTING) return -1;
    } else if (c === 125 || c === 93) depth--;
  }
  return keys;
}

/** The number of keys of every object in a decoded value; no recursion. */
function countKeys(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x);
      continue;
    }
    for (const k in v) {
      n++;
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object') stack.push(x);
    }
  }
  return n;
}

/** A minimal scanner over already-valid JSON that records repeated keys with their paths. */
function findDuplicates(s: string, out: string[]): void {
  new DuplicateScanner(s, out).value('');
}

class DuplicateScanner {
  private i = 0;

  constructor(
    private readonly s: string,
    private readonly out: string[],
  ) {}

  private skipWs(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 10 || c === 13 || c === 9) this.i++;
      else break;
    }
  }

  private readString(): string {
    const s = this.s;
    const start = this.i;
    this.i++;
    let escaped = false;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 92) {
        escaped = true;
        this.i += 2;
        continue;
      }
      if (c === 34) break;
      this.i++;
    }
    this.i++;
    const raw = s.slice(start, this.i);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  }

  value(path: string): void {
    this.skipWs();
    const s = this.s;
    const c = s[this.i];
    if (c === '{') this.object(path);
    else if (c === '[') this.array(path);
    else if (c === '"') this.readString();
    else while (this.i < s.length && !',}] \n\r\t'.includes(s[this.i]!)) this.i++;
  }

  /** An object, at its `{`: its keys, each seen once. */
  private object(path: string): void {
    const s = this.s;
    this.i++;
    const seen = new Set<string>();
    this.skipWs();
    if (s[this.i] === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.skipWs();
      const key = this.readString();
      const p = path ? `${path}.${key}` : key;
      if (seen.has(key)) this.out.push(p);
      else seen.add(key);
      this.skipWs();
      this.i++; // ':'
      this.value(p);
      this.skipWs();
      if (s[this.i] === ',') {
        this.i++;
        continue;
      }
      this.i++; // '}'
      return;
    }
  }

  /** An array, at its `[`: its items, with their indexes in the path. */
  private array(path: string): void {
    const s = this.s;
    this.i++;
    this.skipWs();
    if (s[this.i] === ']') {
      this.i++;
      return;
    }
    let n = 0;
    for (;;) {
      this.value(`${path}[${n++}]`);
      this.skipWs();
      if (s[this.i] === ',') {
        this.i++;
        continue;
      }
      this.i++;
      return;
    }
  }
}

const jsonCache = new WeakMap<object, Buffer>();

/**
 * Serialized bytes of an object; stored objects never change, so their bytes are cached.
 * The cached bytes live as long as the object (the current state and the whole history
 * window), so they get an allocation of their own: Buffer.from would cut small ones from
 * the shared 8 KiB pool, and one cached slice keeps its whole slab alive, together with the
 * short-lived buffers cut from it meanwhile (each watcher's write batch, for one).
 */
export function jsonBytes(obj: unknown): Buffer {
  if (typeof obj === 'object' && obj !== null) {
    const hit = jsonCache.get(obj);
    if (hit) return hit;
    const s = JSON.stringify(obj);
    const b = Buffer.allocUnsafeSlow(Buffer.byteLength(s));
    b.write(s);
    jsonCache.set(obj, b);
    return b;
  }
  return Buffer.from(JSON.stringify(obj));
}

/**
 * An object's bytes as jsonBytes has them, or made for this once and not kept: for a pass over
 * many objects (a snapshot) that must not grow the cache with ones nobody else sends.
 */
export function jsonBytesOnce(obj: object): Buffer {
  return jsonCache.get(obj) ?? Buffer.from(JSON.stringify(obj));
}
