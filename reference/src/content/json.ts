// JSON parsing that also reports duplicate keys (JSON.parse keeps the last one silently),
// which field validation must report. Fast path: JSON.parse first, the scanner only
// runs to find duplicates when the text has at least one repeated key candidate.
import { errors } from '../errors/status.ts';

export interface Parsed {
  value: unknown;
  /** Paths (`metadata.name`, `spec.items[0].x`) of keys that occurred more than once. */
  duplicates: string[];
}

export function parseJson(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`error decoding request body: ${(e as Error).message}`);
  }
  const duplicates: string[] = [];
  if (typeof value === 'object' && value !== null) findDuplicates(text, duplicates);
  return { value, duplicates };
}

/** A minimal scanner over already-valid JSON that records repeated keys with their paths. */
function findDuplicates(s: string, out: string[]): void {
  let i = 0;
  const skipWs = () => {
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
  };
  const readString = (): string => {
    const start = i;
    i++;
    let escaped = false;
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c === 92) {
        escaped = true;
        i += 2;
        continue;
      }
      if (c === 34) break;
      i++;
    }
    i++;
    const raw = s.slice(start, i);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  };
  const value = (path: string): void => {
    skipWs();
    const c = s[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      skipWs();
      if (s[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        skipWs();
        const key = readString();
        const p = path ? `${path}.${key}` : key;
        if (seen.has(key)) out.push(p);
        else seen.add(key);
        skipWs();
        i++; // ':'
        value(p);
        skipWs();
        if (s[i] === ',') {
          i++;
          continue;
        }
        i++; // '}'
        return;
      }
    } else if (c === '[') {
      i++;
      skipWs();
      if (s[i] === ']') {
        i++;
        return;
      }
      let n = 0;
      for (;;) {
        value(`${path}[${n++}]`);
        skipWs();
        if (s[i] === ',') {
          i++;
          continue;
        }
        i++;
        return;
      }
    } else if (c === '"') {
      readString();
    } else {
      while (i < s.length && !',}] \n\r\t'.includes(s[i]!)) i++;
    }
  };
  value('');
}
