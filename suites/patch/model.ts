// The suite's own models of the two RFC patch formats doc1 names, written from the RFCs (never
// from a server's answers): JSON Merge Patch (RFC 7386 § 2, the MergePatch function) and JSON
// Patch (RFC 6902 § 4, the six operations, with JSON Pointer per RFC 6901), plus the fast-check
// arbitraries the property cases draw from.
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

const isObject = (v: unknown): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v);

/** RFC 7386 § 2: MergePatch(Target, Patch). */
export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const out: JsonObject = isObject(target) ? clone(target) : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete out[name];
    else out[name] = mergePatch(out[name], value);
  }
  return out;
}

export function clone<T extends Json>(v: T): T {
  return v === null || typeof v !== 'object' ? v : (JSON.parse(JSON.stringify(v)) as T);
}

// ------------------------------------------------------------------ RFC 6902

export type Op =
  | { op: 'add' | 'replace' | 'test'; path: string; value: Json }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export class PatchError extends Error {}

/** RFC 6901: "/a/b~1c" -> ["a", "b/c"]. */
export function parsePointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw new PatchError(`"${p}" is not a JSON Pointer`);
  return p
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function pointer(...tokens: string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function parentOf(doc: Json, tokens: string[]): { parent: JsonObject | Json[]; key: string } {
  let cur: Json = doc;
  for (const t of tokens.slice(0, -1)) {
    if (isObject(cur) && Object.hasOwn(cur, t)) cur = cur[t]!;
    else if (Array.isArray(cur) && /^(0|[1-9]\d*)$/.test(t) && Number(t) < cur.length) cur = cur[Number(t)]!;
    else throw new PatchError(`path ${pointer(...tokens)}: a parent does not exist`);
  }
  if (!isObject(cur) && !Array.isArray(cur))
    throw new PatchError(`path ${pointer(...tokens)}: the parent is a scalar`);
  return { parent: cur, key: tokens[tokens.length - 1]! };
}

function get(doc: Json, p: string): Json {
  const tokens = parsePointer(p);
  if (!tokens.length) return doc;
  const { parent, key } = parentOf(doc, tokens);
  if (Array.isArray(parent)) {
    if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= parent.length)
      throw new PatchError(`${p} does not exist`);
    return parent[Number(key)]!;
  }
  if (!Object.hasOwn(parent, key)) throw new PatchError(`${p} does not exist`);
  return parent[key]!;
}

function add(doc: Json, p: string, value: Json): Json {
  const tokens = parsePointer(p);
  if (!tokens.length) return clone(value);
  const { parent, key } = parentOf(doc, tokens);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!(key === '-' || /^(0|[1-9]\d*)$/.test(key)) || i > parent.length)
      throw new PatchError(`${p}: bad index`);
    parent.splice(i, 0, clone(value));
  } else parent[key] = clone(value);
  return doc;
}

function remove(doc: Json, p: string): Json {
  const tokens = parsePointer(p);
  if (!tokens.length) throw new PatchError('cannot remove the whole document');
  get(doc, p);
  const { parent, key } = parentOf(doc, tokens);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
  return doc;
}

/** RFC 6902 § 4: applies the operations in order; any error fails the whole patch (§ 5). */
export function jsonPatch(doc: Json, ops: Op[]): Json {
  let d = clone(doc);
  for (const o of ops) {
    switch (o.op) {
      case 'add':
        d = add(d, o.path, o.value);
        break;
      case 'remove':
        d = remove(d, o.path);
        break;
      case 'replace':
        get(d, o.path);
        d = add(remove(d, o.path), o.path, o.value);
        break;
      case 'move': {
        if (o.path.startsWith(`${o.from}/`))
          throw new PatchError('cannot move a value into one of its children');
        const v = clone(get(d, o.from));
        d = add(remove(d, o.from), o.path, v);
        break;
      }
      case 'copy':
        d = add(d, o.path, clone(get(d, o.from)));
        break;
      case 'test':
        if (JSON.stringify(canonical(get(d, o.path))) !== JSON.stringify(canonical(o.value)))
          throw new PatchError(`test ${o.path} failed`);
        break;
    }
  }
  return d;
}

/** Objects with sorted keys, so equal JSON values print alike. */
export function canonical(v: Json): Json {
  if (Array.isArray(v)) return v.map(canonical);
  if (isObject(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical(v[k]!)]),
    );
  return v;
}

/** Applies, or says why the model refuses. */
export function tryJsonPatch(doc: Json, ops: Op[]): { ok: true; doc: Json } | { ok: false; error: string } {
  try {
    return { ok: true, doc: jsonPatch(doc, ops) };
  } catch (e) {
    if (e instanceof PatchError) return { ok: false, error: e.message };
    throw e;
  }
}

// ------------------------------------------------------------------ arbitraries

/** Few keys, so targets and patches overlap often. */
export const keyArb = fc.constantFrom('a', 'b', 'c', 'd');
const scalarArb = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.string({ maxLength: 4 }), fc.boolean());

/** JSON without null (stored documents; a null would be a deletion in a merge patch). */
export const valueArb: fc.Arbitrary<Json> = fc.letrec<{ v: Json; o: JsonObject }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarArb,
    fc.array(scalarArb, { maxLength: 3 }),
    tie('o'),
  ),
  o: fc.dictionary(keyArb, tie('v'), { maxKeys: 3 }),
})).o as fc.Arbitrary<Json>;

export const objectArb = valueArb as fc.Arbitrary<JsonObject>;

/** A merge patch: like a document, but any property may be null (delete it). */
export const mergePatchArb: fc.Arbitrary<JsonObject> = fc.letrec<{ v: Json; o: JsonObject }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    scalarArb,
    fc.array(scalarArb, { maxLength: 3 }),
    tie('o'),
  ),
  o: fc.dictionary(keyArb, tie('v'), { maxKeys: 3 }),
})).o;

/** A flat string map's merge patch: each key set to a string or null. */
export const stringPatchArb = (keys: fc.Arbitrary<string>, values: fc.Arbitrary<string>) =>
  fc.dictionary(keys, fc.option(values, { nil: null, freq: 3 }), { maxKeys: 4 });
