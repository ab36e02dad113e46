// Field paths and sets, as structured-merge-diff models them: a path is a list of path
// elements (a struct or map field, a keyed list item, a set value, a list index), and a set
// is a trie of them. `fieldsV1` is the JSON form Kubernetes stores in managedFields:
// `f:<name>`, `k:{"key":value,...}` (keys sorted by name), `v:<json>`, `i:<n>`, and `.` for
// a node that is a member itself as well as a parent of members.

/** One step of a field path. Key fields are sorted by name. */
export type PathElement =
  | { field: string }
  | { key: [string, unknown][] }
  | { value: unknown }
  | { index: number };

export type Path = PathElement[];

// ------------------------------------------------------------------ values

/** JSON text of a value with object keys sorted (a canonical form for keys and set values). */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort(compareStrings);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

/**
 * Go's strings.Compare: bytewise on UTF-8, which is code point order. UTF-16 code units
 * agree with it except that a surrogate (half of a code point above U+FFFF) sorts after
 * every other code unit.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** structured-merge-diff's total order of values: numbers, strings, booleans, lists, maps, null. */
export function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown) =>
    typeof v === 'number'
      ? 0
      : typeof v === 'string'
        ? 1
        : typeof v === 'boolean'
          ? 2
          : Array.isArray(v)
            ? 3
            : v !== null && typeof v === 'object'
              ? 4
              : 5;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  if (ra === 1) return compareStrings(a as string, b as string);
  if (ra === 2) return a === b ? 0 : a ? 1 : -1;
  if (ra === 5) return 0;
  return compareStrings(canonicalJson(a), canonicalJson(b));
}

// ------------------------------------------------------------------ path elements

/** The `fieldsV1` key of a path element. */
export function peKey(pe: PathElement): string {
  if ('field' in pe) return `f:${pe.field}`;
  if ('key' in pe)
    return `k:{${pe.key.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  if ('value' in pe) return `v:${canonicalJson(pe.value)}`;
  return `i:${pe.index}`;
}

export class FieldPathError extends Error {}

/** Parses a `fieldsV1` key (`f:`, `k:`, `v:`, `i:`). */
export function parsePeKey(s: string): PathElement {
  const tag = s.slice(0, 2);
  const rest = s.slice(2);
  switch (tag) {
    case 'f:':
      return { field: rest };
    case 'k:': {
      let o: unknown;
      try {
        o = JSON.parse(rest);
      } catch {
        throw new FieldPathError(`invalid key path element: ${s}`);
      }
      if (o === null || typeof o !== 'object' || Array.isArray(o))
        throw new FieldPathError(`invalid key path element: ${s}`);
      return keyElement(Object.entries(o as Record<string, unknown>));
    }
    case 'v:':
      try {
        return { value: JSON.parse(rest) };
      } catch {
        throw new FieldPathError(`invalid value path element: ${s}`);
      }
    case 'i:':
      if (!/^(0|[1-9]\d*)$/.test(rest)) throw new FieldPathError(`invalid index path element: ${s}`);
      return { index: Number(rest) };
    default:
      throw new FieldPathError(`unknown path element type: ${JSON.stringify(s)}`);
  }
}

/** A key path element with its fields sorted by name. */
export function keyElement(fields: [string, unknown][]): PathElement {
  return { key: [...fields].sort((a, b) => compareStrings(a[0], b[0])) };
}

const peOrder = (pe: PathElement) => ('field' in pe ? 0 : 'key' in pe ? 1 : 'value' in pe ? 2 : 3);

/** structured-merge-diff's order of path elements: fields, keys, values, indices. */
export function comparePe(a: PathElement, b: PathElement): number {
  const oa = peOrder(a);
  const ob = peOrder(b);
  if (oa !== ob) return oa - ob;
  if ('field' in a) return compareStrings(a.field, (b as { field: string }).field);
  if ('key' in a) {
    const bk = (b as { key: [string, unknown][] }).key;
    for (let i = 0; ; i++) {
      if (i >= a.key.length && i >= bk.length) return 0;
      if (i >= a.key.length) return -1;
      if (i >= bk.length) return 1;
      const c = compareStrings(a.key[i]![0], bk[i]![0]) || compareValues(a.key[i]![1], bk[i]![1]);
      if (c !== 0) return c;
    }
  }
  if ('value' in a) return compareValues(a.value, (b as { value: unknown }).value);
  return a.index - (b as { index: number }).index;
}

/** A value as structured-merge-diff prints it in a path: strings quoted, the rest as JSON. */
function valueString(v: unknown): string {
  return canonicalJson(v);
}

/** `.name`, `[name="x",port=80]`, `[="v"]`, `[3]`. */
export function peString(pe: PathElement): string {
  if ('field' in pe) return `.${pe.field}`;
  if ('key' in pe) return `[${pe.key.map(([k, v]) => `${k}=${valueString(v)}`).join(',')}]`;
  if ('value' in pe) return `[=${valueString(pe.value)}]`;
  return `[${pe.index}]`;
}

/** A path as Kubernetes prints it in conflicts: `.spec.containers[name="app"].image`. */
export function pathString(path: Path): string {
  return path.map(peString).join('');
}

// ------------------------------------------------------------------ sets

interface Child {
  pe: PathElement;
  set: FieldSet;
}

/** The fieldsV1 form of a finished set (read from, or written to, managedFields). */
const encoded = new WeakMap<FieldSet, Record<string, unknown>>();

/** A set of field paths: members at this level, and child sets per path element. */
export class FieldSet {
  readonly members = new Map<string, PathElement>();
  readonly children = new Map<string, Child>();

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    encoded.delete(this);
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.child(path[i]!, true)!;
    const last = path[path.length - 1]!;
    node.members.set(peKey(last), last);
  }

  /** The child set at a path element (created when asked to). */
  child(pe: PathElement, create = false): FieldSet | undefined {
    const k = peKey(pe);
    let c = this.children.get(k);
    if (!c && create) {
      c = { pe, set: new FieldSet() };
      this.children.set(k, c);
    }
    return c?.set;
  }

  hasMember(pe: PathElement): boolean {
    return this.members.has(peKey(pe));
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.child(path[i]!);
    return !!node && node.hasMember(path[path.length - 1]!);
  }

  /**
   * A copy of this level (its own member and child maps); child sets are shared. Sets are
   * never changed once built, so results of the operations below share unchanged parts.
   */
  clone(): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, c] of this.children) out.children.set(k, c);
    return out;
  }

  union(o: FieldSet): FieldSet {
    if (o.isEmpty()) return this;
    if (this.isEmpty()) return o;
    const out = this.clone();
    for (const [k, pe] of o.members) out.members.set(k, pe);
    for (const [k, c] of o.children) {
      const mine = out.children.get(k);
      out.children.set(k, mine ? { pe: c.pe, set: mine.set.union(c.set) } : c);
    }
    return out;
  }

  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      if (!theirs) continue;
      const i = c.set.intersection(theirs.set);
      if (!i.isEmpty()) out.children.set(k, { pe: c.pe, set: i });
    }
    return out;
  }

  /** Members of this set not in `o`; a member of `o` does not remove this set's children below it. */
  difference(o: FieldSet): FieldSet {
    return this.minus(o, false);
  }

  /** Like difference, but a member of `o` also removes everything below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    return this.minus(o, true);
  }

  /** This set without `o` (the same set when nothing goes). */
  private minus(o: FieldSet, recursive: boolean): FieldSet {
    if (o.isEmpty() || this.isEmpty()) return this;
    const out = new FieldSet();
    let changed = false;
    for (const [k, pe] of this.members) {
      if (o.members.has(k)) changed = true;
      else out.members.set(k, pe);
    }
    for (const [k, c] of this.children) {
      if (recursive && o.members.has(k)) {
        changed = true;
        continue;
      }
      const theirs = o.children.get(k);
      const d = theirs ? c.set.minus(theirs.set, recursive) : c.set;
      if (d !== c.set) changed = true;
      if (!d.isEmpty()) out.children.set(k, d === c.set ? c : { pe: c.pe, set: d });
    }
    return changed ? out : this;
  }

  equals(o: FieldSet): boolean {
    return JSON.stringify(this.toFieldsV1()) === JSON.stringify(o.toFieldsV1());
  }

  /** Every member path, in structured-merge-diff's order. */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (s: FieldSet, prefix: Path) => {
      for (const { pe, member, child } of s.entries()) {
        if (member) out.push([...prefix, pe]);
        if (child) walk(child, [...prefix, pe]);
      }
    };
    walk(this, []);
    return out;
  }

  /** Members and children merged (with their fieldsV1 keys), sorted by path element. */
  private entries(): { k: string; pe: PathElement; member: boolean; child?: FieldSet }[] {
    const out: { k: string; pe: PathElement; member: boolean; child?: FieldSet }[] = [];
    for (const [k, pe] of this.members) {
      const c = this.children.get(k);
      out.push(c ? { k, pe, member: true, child: c.set } : { k, pe, member: true });
    }
    for (const [k, c] of this.children)
      if (!this.members.has(k)) out.push({ k, pe: c.pe, member: false, child: c.set });
    return out.length > 1 ? out.sort((a, b) => comparePe(a.pe, b.pe)) : out;
  }

  /** The `fieldsV1` JSON object of this set (shared: never change it). */
  toFieldsV1(): Record<string, unknown> {
    const hit = encoded.get(this);
    if (hit) return hit;
    const out = this.encode();
    encoded.set(this, out);
    return out;
  }

  /** The `fieldsV1` object, its child sets' read from the cache but not added to it (one entry a set encoded, not one a level). */
  private encode(): Record<string, unknown> {
    const keys = [...this.members.keys()];
    for (const k of this.children.keys()) if (!this.members.has(k)) keys.push(k);
    // fields only (the usual case): their keys sort as their names do, with no entry objects
    const order = keys.every((k) => k.startsWith('f:'))
      ? keys.length > 1
        ? keys.sort(compareStrings)
        : keys
      : this.entries().map((e) => e.k);
    const out: Record<string, unknown> = {};
    for (const k of order) {
      const c = this.children.get(k);
      if (!c) out[k] = {};
      else {
        const sub = encoded.get(c.set) ?? c.set.encode();
        out[k] = this.members.has(k) ? Object.assign({ '.': {} }, sub) : sub;
      }
    }
    return out;
  }

  /** Reads a `fieldsV1` object; a malformed one throws a FieldPathError. */
  static fromFieldsV1(v: unknown): FieldSet {
    const read = (o: unknown, into: FieldSet) => {
      if (o === null || typeof o !== 'object' || Array.isArray(o))
        throw new FieldPathError('fieldsV1 must be a JSON object of path elements');
      for (const [k, sub] of Object.entries(o as Record<string, unknown>)) {
        if (k === '.') continue;
        const pe = parsePeKey(k);
        if (sub === null || typeof sub !== 'object' || Array.isArray(sub))
          throw new FieldPathError(`fieldsV1: the value at ${JSON.stringify(k)} must be an object`);
        const keys = Object.keys(sub);
        if (keys.length === 0 || Object.hasOwn(sub, '.')) into.members.set(peKey(pe), pe);
        if (keys.some((x) => x !== '.')) {
          const c = new FieldSet();
          read(sub, c);
          if (!c.isEmpty()) into.children.set(peKey(pe), { pe, set: c });
        }
      }
    };
    const out = new FieldSet();
    read(v, out);
    return out;
  }

  /** Like fromFieldsV1; the set's fieldsV1 form is then the object read (when well formed). */
  static decode(v: unknown): FieldSet {
    const s = FieldSet.fromFieldsV1(v);
    encoded.set(s, v as Record<string, unknown>);
    return s;
  }
}
