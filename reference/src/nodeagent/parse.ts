// Reading a node agent configuration file's text into a plain value: YAML (JSON is YAML) with
// the `yaml` package, one document, at most MAX_BYTES, aliases bounded, and duplicate keys
// found with their paths (the package only warns about them when told to keep going).
import { parseAllDocuments } from 'yaml';
import { childPath, type FieldError } from './field-error.ts';

/** Files above this size are refused unread (a node agent configuration is a few kB). */
export const MAX_BYTES = 1024 * 1024;
/** Alias expansions allowed; a "billion laughs" document needs far more. */
const MAX_ALIASES = 100;
const MAX_DEPTH = 64;

export interface Parsed {
  value?: unknown;
  /** Paths of keys that appear twice in one mapping. */
  duplicates: string[];
  errors: FieldError[];
}

const whole = (detail: string): FieldError => ({ path: '', type: 'Invalid value', detail });

export function parseText(text: string): Parsed {
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_BYTES)
    return {
      duplicates: [],
      errors: [whole(`the file is ${size} bytes, above the limit of ${MAX_BYTES} bytes`)],
    };
  let doc: ReturnType<typeof parseAllDocuments>[number];
  try {
    const docs = parseAllDocuments(text, { uniqueKeys: false, prettyErrors: true, version: '1.2' });
    if (!Array.isArray(docs)) return { duplicates: [], errors: [whole('not YAML or JSON')] };
    if (docs.length > 1) return { duplicates: [], errors: [whole('the file holds more than one document')] };
    if (docs.length === 0)
      return {
        duplicates: [],
        errors: [whole('the document must be an object (a mapping), not an empty document')],
      };
    doc = docs[0]!;
  } catch (e) {
    return { duplicates: [], errors: [whole(`not YAML or JSON: ${firstLine(e)}`)] };
  }
  if (doc.errors.length)
    return { duplicates: [], errors: [whole(`not YAML or JSON: ${firstLine(doc.errors[0])}`)] };
  const duplicates: string[] = [];
  const walk = (node: unknown, path: string, depth: number) => {
    if (depth > MAX_DEPTH) return;
    const n = node as { items?: unknown[] } | null;
    if (!n || typeof n !== 'object' || !Array.isArray(n.items)) return;
    const seen = new Set<string>();
    n.items.forEach((item, i) => {
      const pair = item as { key?: unknown; value?: unknown } | null;
      if (pair && typeof pair === 'object' && 'key' in pair) {
        const k = pair.key as { value?: unknown } | null;
        const name = String(k && typeof k === 'object' ? k.value : k);
        const p = childPath(path, name);
        if (seen.has(name)) duplicates.push(p);
        seen.add(name);
        walk(pair.value, p, depth + 1);
      } else walk(item, childPath(path, i), depth + 1);
    });
  };
  walk(doc.contents, '', 0);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    return { duplicates, errors: [whole(`not usable YAML: ${firstLine(e)}`)] };
  }
  if (depthOf(value, 0) > MAX_DEPTH)
    return { duplicates, errors: [whole(`nested more than ${MAX_DEPTH} levels deep`)] };
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return {
      duplicates,
      errors: [whole(`the document must be an object (a mapping), not ${describe(value)}`)],
    };
  return { value, duplicates, errors: [] };
}

function depthOf(v: unknown, d: number): number {
  if (d > MAX_DEPTH || v === null || typeof v !== 'object') return d;
  let max = d;
  for (const x of Object.values(v as object)) max = Math.max(max, depthOf(x, d + 1));
  return max;
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'an empty document';
  if (Array.isArray(v)) return 'a list';
  return `a ${typeof v}`;
}

function firstLine(e: unknown): string {
  const line = String((e as Error)?.message ?? e).split('\n')[0]!;
  // the parser recurses per level: a document nested thousands deep exhausts the stack
  return /call stack/i.test(line) ? `nested too deeply (${line})` : line;
}
