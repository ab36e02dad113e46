// Field paths and field sets for the apply suite: a readable path notation for scenario files,
// its translation to and from `fieldsV1` (doc2 § managedFields entry), and the two ways a set is
// compared with a server's answer.
//
// Notation. A path is a sequence of elements:
//   .name           a struct field or a key of a map (`f:name` in fieldsV1)
//   ["any name"]    the same for a name that is not [A-Za-z0-9_-]+ (a JSON string)
//   [k:{"name":"x"}]  the list item with these key field values (`k:{json}`; keys sorted)
//   [v:"x"]         the set item with this value (`v:json`)
//   [i:0]           the item at this index (`i:0`)
//   [?"key"]        (decoded answers only) a fieldsV1 key of a form this suite does not know
// e.g. `.data.a`, `.metadata.labels["example.com/team"]`, `.spec.mapList[k:{"name":"x"}].value`.
//
// fieldsV1 (as this suite understands the encoding): a nested map; each key names a child
// (`f:`, `k:`, `v:`, `i:`); a child that is in the set and has no children in it is `{}`; a
// child that is in the set and also has children carries the key "." mapped to `{}`.
// The text shows only `f:` names and `{}` leaves; the list-item key formats follow Kubernetes.

export type PathElement =
  | { f: string }
  | { k: Record<string, unknown> }
  | { v: unknown }
  | { i: number }
  | { raw: string };
export type FieldPath = PathElement[];

const IDENT = /^[A-Za-z0-9_-]+$/;

/** JSON with object keys sorted, so equal values have one text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** Index just past the JSON value that starts at `i` (strings, objects, arrays, literals). */
function scanJson(s: string, i: number): number {
  const c = s[i];
  if (c === '"') {
    for (let j = i + 1; j < s.length; j++) {
      if (s[j] === '\\') j++;
      else if (s[j] === '"') return j + 1;
    }
    throw new Error(`unterminated string in path ${s}`);
  }
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const d = s[j];
      if (d === '"') j = scanJson(s, j) - 1;
      else if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    throw new Error(`unbalanced JSON in path ${s}`);
  }
  let j = i;
  while (j < s.length && s[j] !== ']') j++;
  return j;
}

/** Parses the notation; throws on anything it does not understand. */
export function parsePath(s: string): FieldPath {
  const out: FieldPath = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === '.') {
      let j = i + 1;
      while (j < s.length && s[j] !== '.' && s[j] !== '[') j++;
      const name = s.slice(i + 1, j);
      if (!IDENT.test(name)) throw new Error(`path ${s}: bad field name "${name}" (quote it as ["${name}"])`);
      out.push({ f: name });
      i = j;
    } else if (s[i] === '[') {
      const kind = s.slice(i + 1, i + 3);
      const start =
        kind === 'k:' || kind === 'v:' || kind === 'i:' ? i + 3 : s[i + 1] === '?' ? i + 2 : i + 1;
      const end = scanJson(s, start);
      if (s[end] !== ']') throw new Error(`path ${s}: expected ] at ${end}`);
      const value = JSON.parse(s.slice(start, end));
      if (s[i + 1] === '?') out.push({ raw: String(value) });
      else if (kind === 'k:') {
        if (!value || typeof value !== 'object' || Array.isArray(value))
          throw new Error(`path ${s}: k: needs an object`);
        out.push({ k: value });
      } else if (kind === 'v:') out.push({ v: value });
      else if (kind === 'i:') {
        if (!Number.isInteger(value)) throw new Error(`path ${s}: i: needs an integer`);
        out.push({ i: value });
      } else {
        if (typeof value !== 'string') throw new Error(`path ${s}: ["..."] needs a JSON string`);
        out.push({ f: value });
      }
      i = end + 1;
    } else throw new Error(`path ${s}: unexpected "${s[i]}" at ${i}`);
  }
  if (out.length === 0) throw new Error('empty path');
  return out;
}

export function formatElement(e: PathElement): string {
  if ('f' in e) return IDENT.test(e.f) ? `.${e.f}` : `[${JSON.stringify(e.f)}]`;
  if ('k' in e) return `[k:${canonicalJson(e.k)}]`;
  if ('v' in e) return `[v:${canonicalJson(e.v)}]`;
  if ('i' in e) return `[i:${e.i}]`;
  return `[?${JSON.stringify(e.raw)}]`;
}

export function formatPath(p: FieldPath): string {
  return p.map(formatElement).join('');
}

/** The canonical text of a path written in the notation. */
export function canonicalPath(s: string): string {
  return formatPath(parsePath(s));
}

/** The fieldsV1 key of an element. */
export function fieldsKey(e: PathElement): string {
  if ('f' in e) return `f:${e.f}`;
  if ('k' in e) return `k:${canonicalJson(e.k)}`;
  if ('v' in e) return `v:${canonicalJson(e.v)}`;
  if ('i' in e) return `i:${e.i}`;
  return e.raw;
}

/** The element a fieldsV1 key names; keys of an unknown form are kept raw. */
export function elementOfKey(key: string): PathElement {
  const body = key.slice(2);
  try {
    if (key.startsWith('f:')) return { f: body };
    if (key.startsWith('k:')) {
      const v = JSON.parse(body);
      if (v && typeof v === 'object' && !Array.isArray(v)) return { k: v };
    }
    if (key.startsWith('v:')) return { v: JSON.parse(body) };
    if (key.startsWith('i:') && /^\d+$/.test(body)) return { i: Number(body) };
  } catch {
    // not JSON: kept raw below
  }
  return { raw: key };
}

type Trie = { member: boolean; children: Map<string, Trie> };

/** Encodes a set of paths (notation) as fieldsV1. */
export function toFieldsV1(paths: Iterable<string>): Record<string, unknown> {
  const root: Trie = { member: false, children: new Map() };
  for (const s of paths) {
    let node = root;
    for (const e of parsePath(s)) {
      const key = fieldsKey(e);
      let next = node.children.get(key);
      if (!next) node.children.set(key, (next = { member: false, children: new Map() }));
      node = next;
    }
    node.member = true;
  }
  const enc = (t: Trie): Record<string, unknown> => {
    const o: Record<string, unknown> = {};
    if (t.member && t.children.size > 0) o['.'] = {};
    for (const k of [...t.children.keys()].sort()) o[k] = enc(t.children.get(k)!);
    return o;
  };
  return enc(root);
}

/** Decodes fieldsV1 into the set of paths it holds (canonical notation). */
export function fromFieldsV1(fields: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown, prefix: FieldPath) => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) {
      out.add(formatPath([...prefix, { raw: `<not a map: ${JSON.stringify(node)}>` }]));
      return;
    }
    const keys = Object.keys(node);
    if (keys.length === 0 && prefix.length > 0) out.add(formatPath(prefix));
    for (const k of keys) {
      if (k === '.') {
        if (prefix.length > 0) out.add(formatPath(prefix));
        continue;
      }
      walk((node as Record<string, unknown>)[k], [...prefix, elementOfKey(k)]);
    }
  };
  walk(fields ?? {}, []);
  return out;
}

/** Fields that identify the object; the text does not say whether they are owned, so they are not compared. */
const IDENTITY = new Set(
  [
    '.apiVersion',
    '.kind',
    '.metadata',
    '.metadata.name',
    '.metadata.namespace',
    '.metadata.uid',
    '.metadata.resourceVersion',
    '.metadata.creationTimestamp',
    '.metadata.generation',
    '.metadata.selfLink',
    '.metadata.managedFields',
  ].map(canonicalPath),
);

export function withoutIdentity(paths: Iterable<string>): Set<string> {
  return new Set([...paths].filter((p) => !IDENTITY.has(p)));
}

/**
 * The format-independent view of a path: list-item elements (whatever their key format) become
 * `[*]`, so only the `f:` structure the text shows is compared.
 */
export function lenientPath(s: string): string {
  return parsePath(s)
    .map((e) => ('f' in e ? formatElement(e) : '[*]'))
    .join('');
}

export function lenientSet(paths: Iterable<string>): Set<string> {
  return new Set([...paths].map(lenientPath));
}

/** Kubernetes' text for a path in a conflict cause (structured-merge-diff's Path.String()). */
export function smdPathString(s: string): string {
  const value = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : v === null ? 'null' : String(v));
  return parsePath(s)
    .map((e) => {
      if ('f' in e) return `.${e.f}`;
      if ('k' in e)
        return `[${Object.keys(e.k)
          .sort()
          .map((n) => `${n}=${value(e.k[n])}`)
          .join(',')}]`;
      if ('v' in e) return `[=${value(e.v)}]`;
      if ('i' in e) return `[${e.i}]`;
      return `[${e.raw}]`;
    })
    .join('');
}

export function sortedList(s: Iterable<string>): string[] {
  return [...s].sort();
}

export function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

/** "missing: ...; unexpected: ..." between an expected and an actual set. */
export function setDiff(expected: Set<string>, actual: Set<string>): string {
  const missing = [...expected].filter((x) => !actual.has(x)).sort();
  const extra = [...actual].filter((x) => !expected.has(x)).sort();
  return [
    missing.length ? `missing ${missing.join(', ')}` : '',
    extra.length ? `unexpected ${extra.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}
