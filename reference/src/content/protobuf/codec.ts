// A descriptor-driven Protobuf codec on protobufjs' wire Writer and Reader: JSON-form values
// (as the API serves them) to Kubernetes' messages and back, with Go's marshalling rules
// (see schema.ts).
//
// The messages are those written in schema.ts and, for every other built-in kind, those of
// messages-1.28.json (made from Kubernetes 1.28's generated.proto and Go structs by
// scripts/gen-protobuf-messages.ts), read at the first message that needs one.
import type * as Protobuf from 'protobufjs/minimal.js';
import { dataFileText } from '../../util/data-file.ts';
import { formatGoDuration as formatDuration, parseDuration } from '../../util/duration.ts';
import { lazyPackage } from '../../util/lazy-package.ts';
import { type Adapt, type FieldDef, MESSAGES, type MessageDef } from './schema.ts';

type Writer = Protobuf.Writer;
type Reader = Protobuf.Reader;

/** protobufjs' wire layer, loaded at the first Protobuf message. */
const protobuf = lazyPackage<typeof Protobuf>('protobufjs/minimal.js');
type Json = Record<string, unknown>;

interface Compiled extends MessageDef {
  /** Fields by ascending number: the order Go writes them. */
  sorted: FieldDef[];
  /** A top-level object (its field 1 is ObjectMeta): its bytes may be cached. */
  object: boolean;
  byNo: Map<number, FieldDef>;
  /** The message's own JSON form (see Adapt), when it is not an object of its fields. */
  adapter?: Adapter;
}

/** ObjectMeta as schema.ts and the generated messages name it. */
const OBJECT_META = new Set(['ObjectMeta', 'apimachinery/pkg/apis/meta/v1.ObjectMeta']);

function compile(def: MessageDef): Compiled {
  return {
    ...def,
    sorted: [...def.fields].sort((a, b) => a.no - b.no),
    object: def.fields.some((f) => f.no === 1 && typeof f.type === 'object' && OBJECT_META.has(f.type.msg)),
    byNo: new Map(def.fields.map((f) => [f.no, f])),
    adapter: def.adapt ? ADAPTERS[def.adapt] : undefined,
  };
}

function checkRefs(defs: Iterable<Compiled>): void {
  for (const def of defs)
    for (const f of def.fields)
      if (typeof f.type === 'object' && !compiled.has(f.type.msg))
        throw new Error(`protobuf schema: ${def.name}.${f.json} refers to unknown message ${f.type.msg}`);
}

const compiled = new Map<string, Compiled>();
let generatedLoaded = false;

/** The generated messages (every built-in kind's), read once, at the first that is needed. */
function loadGenerated(): void {
  if (generatedLoaded) return;
  generatedLoaded = true;
  const data = JSON.parse(dataFileText(new URL('./messages-1.28.json', import.meta.url))) as {
    messages: MessageDef[];
  };
  const added = data.messages.map(compile);
  for (const def of added) compiled.set(def.name, def);
  checkRefs(added);
}

export function messageDef(name: string): Compiled {
  let d = compiled.get(name);
  if (!d && !generatedLoaded) {
    loadGenerated();
    d = compiled.get(name);
  }
  if (!d) throw new Error(`protobuf schema: no message ${name}`);
  return d;
}

export class ProtobufError extends Error {}

const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;

function wireType(f: FieldDef): number {
  if (f.map) return LEN; // entry messages
  if (f.type === 'double') return FIXED64;
  return f.type === 'bool' || f.type === 'int32' || f.type === 'int64' ? VARINT : LEN;
}

const tag = (no: number, wt: number) => ((no << 3) | wt) >>> 0;

// ---------------------------------------------------------------- time

/** 0001-01-01T00:00:00Z, Go's zero time: encoded as an empty Timestamp. */
const GO_ZERO_SECONDS = -62135596800;
/** 9999-12-31T23:59:59Z, the last second a Timestamp may hold. */
const MAX_SECONDS = 253402300799;
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Parses an RFC 3339 timestamp into seconds since the epoch and nanoseconds. */
export function parseTimestamp(text: string, path: string): { seconds: number; nanos: number } {
  const r = RFC3339.exec(text);
  if (!r) throw new ProtobufError(`${path}: invalid RFC 3339 timestamp ${JSON.stringify(text)}`);
  const ms = Date.UTC(Number(r[1]), Number(r[2]) - 1, Number(r[3]), Number(r[4]), Number(r[5]), Number(r[6]));
  let seconds = Math.floor(ms / 1000);
  if (r[1]! < '0100') seconds = utcSeconds(Number(r[1]), ms); // Date.UTC maps years 0..99 to 1900..1999
  if (r[9]) seconds -= (r[9] === '-' ? -1 : 1) * (Number(r[10]) * 3600 + Number(r[11]) * 60);
  const nanos = r[7] ? Number(r[7].padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

function utcSeconds(year: number, ms: number): number {
  const d = new Date(ms);
  d.setUTCFullYear(year);
  return Math.floor(d.getTime() / 1000);
}

/** RFC 3339 in UTC: whole seconds for Time, six fraction digits for MicroTime (as Go prints them). */
export function formatTimestamp(seconds: number, nanos: number, micro: boolean): string {
  if (!(seconds >= GO_ZERO_SECONDS && seconds <= MAX_SECONDS))
    throw new ProtobufError(`timestamp out of range: ${seconds} seconds`);
  const iso = new Date(seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const base = iso.slice(0, iso.indexOf('.'));
  if (!micro) return `${base}Z`;
  const us = Math.floor(nanos / 1000);
  return `${base}.${String(us).padStart(6, '0')}Z`;
}

// ---------------------------------------------------------------- adapted messages

/**
 * A message whose JSON form is not an object of its fields: `toMsg` makes the fields from the
 * JSON form (throwing ProtobufError for a value of the wrong type), `fromMsg` the JSON form from
 * the decoded fields (zero values already left out). `isZero` says which JSON values are Go's
 * zero value, left out of a decoded object unless the field is a pointer.
 */
interface Adapter {
  toMsg(v: unknown, path: string): Json;
  fromMsg(m: Json, path: string): unknown;
  isZero?(v: unknown): boolean;
  /** The fields Go writes for a zero value of a non-pointer field. */
  zero?: Json;
}

const isJsonObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's time.ParseDuration (as metav1.Duration's JSON form is read), in nanoseconds. */
export function parseGoDuration(text: string, path: string): number {
  const ns = parseDuration(text);
  if (ns === undefined) throw new ProtobufError(`${path}: invalid duration ${JSON.stringify(text)}`);
  return Number(ns);
}

/** Go's time.Duration.String() of nanoseconds: `1h2m3.5s`, `150ms`, `0s`. */
export function formatGoDuration(ns: number): string {
  return formatDuration(BigInt(Math.round(ns)));
}

function schemaOr(other: string, isOther: (v: unknown) => boolean, want: string): Adapter {
  return {
    toMsg(v, path) {
      if (isOther(v)) return { [other]: v };
      expect(isJsonObject(v), path, want, v);
      return { schema: v };
    },
    fromMsg: (m) => m.schema ?? m[other] ?? (other === 'allows' ? false : []),
  };
}

const ADAPTERS: Record<Adapt, Adapter> = {
  quantity: {
    toMsg(v, path) {
      expect(typeof v === 'string' || typeof v === 'number', path, 'a quantity', v);
      return { string: String(v) };
    },
    fromMsg: (m) => m.string ?? '0',
    zero: { string: '0' },
  },
  intOrString: {
    toMsg(v, path) {
      if (typeof v === 'string') return { type: 1, intVal: 0, strVal: v };
      expect(typeof v === 'number' && Number.isInteger(v), path, 'an integer or a string', v);
      return { type: 0, intVal: v, strVal: '' };
    },
    fromMsg: (m) => (m.type === 1 ? (m.strVal ?? '') : (m.intVal ?? 0)),
    isZero: (v) => v === 0,
  },
  duration: {
    toMsg(v, path) {
      expect(typeof v === 'string', path, 'a duration', v);
      return { duration: parseGoDuration(v as string, path) };
    },
    fromMsg: (m) => formatGoDuration(Number(m.duration ?? 0)),
    isZero: (v) => v === '0s',
  },
  rawJSON: {
    // the bytes are the value's JSON text, as Kubernetes keeps what a JSON client sent
    toMsg: (v) => ({ raw: Buffer.from(JSON.stringify(v) ?? 'null') }),
    fromMsg(m, path) {
      const raw = Buffer.from(String(m.raw ?? ''), 'base64');
      if (raw.length === 0) return null;
      try {
        return JSON.parse(raw.toString('utf8'));
      } catch {
        throw new ProtobufError(`${path}: does not hold JSON`);
      }
    },
  },
  schemaOrArray: schemaOr('jSONSchemas', Array.isArray, 'a schema or an array of schemas'),
  schemaOrBool: {
    toMsg(v, path) {
      if (typeof v === 'boolean') return { allows: v };
      expect(isJsonObject(v), path, 'a schema or a boolean', v);
      return { allows: true, schema: v };
    },
    fromMsg: (m) => m.schema ?? m.allows ?? false,
  },
  schemaOrStringArray: schemaOr('property', Array.isArray, 'a schema or an array of strings'),
  array: {
    toMsg(v, path) {
      expect(Array.isArray(v), path, 'an array', v);
      return { items: v };
    },
    fromMsg: (m) => m.items ?? [],
    isZero: (v) => Array.isArray(v) && v.length === 0,
  },
};

for (const def of MESSAGES) compiled.set(def.name, compile(def));
checkRefs(compiled.values());

// ---------------------------------------------------------------- encoding

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function expect(ok: boolean, path: string, want: string, v: unknown): void {
  if (!ok) throw new ProtobufError(`${path}: expected ${want}, got ${typeName(v)}`);
}

function toBytes(v: unknown, f: FieldDef, path: string): Uint8Array {
  if (v instanceof Uint8Array) return v;
  expect(typeof v === 'string', path, f.type === 'rawbytes' ? 'bytes' : 'a base64 string', v);
  return Buffer.from(v as string, 'base64');
}

function writeInt(w: Writer, t: 'int32' | 'int64', v: unknown, path: string): void {
  expect(typeof v === 'number' && Number.isInteger(v), path, 'an integer', v);
  if (t === 'int32') w.int32(v as number);
  else w.int64(v as number);
}

function writeTime(w: Writer, f: FieldDef, v: unknown, path: string): void {
  w.uint32(tag(f.no, LEN)).fork();
  if (v !== undefined && v !== null) {
    expect(typeof v === 'string', path, 'an RFC 3339 timestamp', v);
    const t = parseTimestamp(v as string, path);
    const nanos = f.type === 'microtime' ? t.nanos - (t.nanos % 1000) : 0; // Time keeps whole seconds
    if (!(t.seconds === GO_ZERO_SECONDS && nanos === 0)) {
      w.uint32(tag(1, VARINT)).int64(t.seconds);
      w.uint32(tag(2, VARINT)).int32(nanos);
    }
  }
  w.ldelim();
}

/** Writes one value of a (non-map) field, the field's tag included. */
function writeValue(w: Writer, f: FieldDef, v: unknown, path: string, cache?: RawCache): void {
  const t = f.type;
  if (typeof t === 'object') {
    const def = messageDef(t.msg);
    if (def.adapter) v = def.adapter.toMsg(v, path);
    expect(typeof v === 'object' && v !== null && !Array.isArray(v), path, 'an object', v);
    if (cache && def.object) {
      // a whole object (a list item): reuse or remember its bytes
      w.uint32(tag(f.no, LEN)).bytes(encodeWith(def, v as Json, cache, path));
      return;
    }
    w.uint32(tag(f.no, LEN)).fork();
    writeMessage(w, def, v as Json, path, cache);
    w.ldelim();
    return;
  }
  switch (t) {
    case 'string':
      expect(typeof v === 'string', path, 'a string', v);
      w.uint32(tag(f.no, LEN)).string(v as string);
      return;
    case 'bytes':
    case 'rawbytes':
      w.uint32(tag(f.no, LEN)).bytes(toBytes(v, f, path));
      return;
    case 'bool':
      expect(typeof v === 'boolean', path, 'a boolean', v);
      w.uint32(tag(f.no, VARINT)).bool(v as boolean);
      return;
    case 'int32':
    case 'int64':
      w.uint32(tag(f.no, VARINT));
      writeInt(w, t, v, path);
      return;
    case 'double':
      expect(typeof v === 'number', path, 'a number', v);
      w.uint32(tag(f.no, FIXED64)).double(v as number);
      return;
    case 'time':
    case 'microtime':
      writeTime(w, f, v, path);
      return;
    case 'fieldsV1':
      w.uint32(tag(f.no, LEN)).fork();
      w.uint32(tag(1, LEN)).bytes(Buffer.from(JSON.stringify(v)));
      w.ldelim();
      return;
  }
}

/** The zero value Go writes for a field backed by a value (not a pointer). */
function writeZero(w: Writer, f: FieldDef, path: string): void {
  const t = f.type;
  if (typeof t === 'object') {
    const def = messageDef(t.msg);
    if (!def.adapter) writeValue(w, f, {}, path);
    else {
      // the zero value is written as Go holds it, not through the JSON form
      w.uint32(tag(f.no, LEN)).fork();
      writeMessage(w, def, def.adapter.zero ?? {}, path);
      w.ldelim();
    }
  } else if (t === 'string') writeValue(w, f, '', path);
  else if (t === 'bool') writeValue(w, f, false, path);
  else if (t === 'int32' || t === 'int64' || t === 'double') writeValue(w, f, 0, path);
  else if (t === 'time' || t === 'microtime') writeTime(w, f, undefined, path);
  // bytes and FieldsV1 are slices/pointers in Go: nothing is written when unset
}

/** The `value` field (number 2) of a map's entry message. */
const entryValues = new Map<FieldDef, FieldDef>();
function entryValue(f: FieldDef): FieldDef {
  let v = entryValues.get(f);
  if (!v) entryValues.set(f, (v = { ...f, no: 2, map: false }));
  return v;
}

/** Go sorts map keys as byte strings. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function writeMessage(w: Writer, def: Compiled, obj: Json, path: string, cache?: RawCache): void {
  for (const f of def.sorted) {
    // an inline struct's fields are the object's own
    const v = f.inline ? obj : obj[f.json];
    const p = path ? `${path}.${f.json}` : f.json;
    const present = v !== undefined && v !== null;
    if (f.map) {
      if (!present) continue;
      expect(typeof v === 'object' && !Array.isArray(v), p, 'an object', v);
      const m = v as Json;
      for (const k of Object.keys(m).sort(byteOrder)) {
        const val = m[k];
        w.uint32(tag(f.no, LEN)).fork();
        w.uint32(tag(1, LEN)).string(k);
        if (val !== undefined && val !== null) writeValue(w, entryValue(f), val, `${p}[${k}]`);
        w.ldelim();
      }
    } else if (f.repeated) {
      if (!present) continue;
      expect(Array.isArray(v), p, 'an array', v);
      (v as unknown[]).forEach((el, i) => {
        writeValue(w, f, el, `${p}[${i}]`, cache);
      });
    } else if (present) {
      writeValue(w, f, v, p, cache);
    } else if (!f.ptr) {
      writeZero(w, f, p);
    }
  }
}

/** Encoded messages of immutable stored objects, reused by lists and watch fan-out. */
export type RawCache = WeakMap<object, { def: Compiled; bytes: Buffer }>;

function encodeWith(def: Compiled, obj: Json, cache?: RawCache, path = ''): Buffer {
  const hit = cache?.get(obj);
  if (hit && hit.def === def) return hit.bytes;
  const w = protobuf().Writer.create();
  writeMessage(w, def, obj, path, cache);
  const out = w.finish();
  const bytes = Buffer.isBuffer(out) ? out : Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  if (cache && def.object) cache.set(obj, { def, bytes });
  return bytes;
}

/**
 * Serializes a JSON-form value as the named message. With a cache, the bytes of whole objects
 * (immutable once stored) are remembered and reused.
 */
export function encodeMessage(name: string, obj: Json, cache?: RawCache): Buffer {
  return encodeWith(messageDef(name), obj, cache);
}

// ---------------------------------------------------------------- decoding

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  return (v as { toNumber(): number }).toNumber();
}

function readTime(r: Reader, f: FieldDef, path: string): string | undefined {
  const end = subEnd(r, path);
  if (r.pos === end) return undefined; // Go's zero time
  let seconds = 0;
  let nanos = 0;
  while (r.pos < end) {
    const t = r.uint32();
    const no = t >>> 3;
    const wt = t & 7;
    if ((no === 1 || no === 2) && wt !== VARINT)
      throw new ProtobufError(`${path}: wrong wire type ${wt} for field ${no}`);
    if (no === 1) seconds = toNumber(r.int64());
    else if (no === 2) nanos = r.int32();
    else r.skipType(wt);
  }
  checkEnd(r, end, path);
  if (f.type === 'time') nanos = 0; // Time carries whole seconds
  if (nanos < 0 || nanos > 999_999_999) throw new ProtobufError(`${path}: nanos out of range`);
  return formatTimestamp(seconds, nanos, f.type === 'microtime');
}

function subEnd(r: Reader, path: string): number {
  const len = r.uint32();
  const end = r.pos + len;
  if (end > r.len) throw new ProtobufError(`${path}: index out of range: ${r.pos} + ${len} > ${r.len}`);
  return end;
}

function checkEnd(r: Reader, end: number, path: string): void {
  if (r.pos !== end) throw new ProtobufError(`${path}: message overruns its length`);
}

function readValue(r: Reader, f: FieldDef, path: string): unknown {
  const t = f.type;
  if (typeof t === 'object') {
    const end = subEnd(r, path);
    const def = messageDef(t.msg);
    const v = readMessage(r, def, end, path);
    checkEnd(r, end, path);
    return def.adapter ? def.adapter.fromMsg(v, path) : v;
  }
  switch (t) {
    case 'string':
      return r.string();
    case 'bytes':
      return Buffer.from(r.bytes()).toString('base64');
    case 'rawbytes':
      return Buffer.from(r.bytes());
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'int64':
      return toNumber(r.int64());
    case 'double':
      return r.double();
    case 'time':
    case 'microtime':
      return readTime(r, f, path);
    case 'fieldsV1': {
      const end = subEnd(r, path);
      let raw: Uint8Array | undefined;
      while (r.pos < end) {
        const tg = r.uint32();
        if (tg >>> 3 === 1) {
          if ((tg & 7) !== LEN) throw new ProtobufError(`${path}: wrong wire type ${tg & 7} for field 1`);
          raw = r.bytes();
        } else r.skipType(tg & 7);
      }
      checkEnd(r, end, path);
      if (!raw || raw.length === 0) return undefined;
      try {
        return JSON.parse(Buffer.from(raw).toString('utf8'));
      } catch {
        throw new ProtobufError(`${path}: FieldsV1 does not hold JSON`);
      }
    }
  }
}

function isZero(f: FieldDef, v: unknown): boolean {
  if (v === undefined) return true;
  if (typeof f.type === 'object') {
    const adapter = messageDef(f.type.msg).adapter;
    if (adapter) return v === null || (!f.ptr && !!adapter.isZero?.(v));
  }
  if (f.ptr || f.keep) return false;
  if (v === '' || v === 0 || v === false) return true;
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !Buffer.isBuffer(v) &&
    Object.keys(v).length === 0
  );
}

function readMessage(r: Reader, def: Compiled, end: number, path: string): Json {
  const out: Json = {};
  while (r.pos < end) {
    const t = r.uint32();
    const no = t >>> 3;
    const wt = t & 7;
    const f = def.byNo.get(no);
    if (!f) {
      r.skipType(wt);
      continue;
    }
    const p = path ? `${path}.${f.json}` : f.json;
    if (wt !== wireType(f))
      throw new ProtobufError(`${p}: wrong wire type ${wt} for field ${no} of ${def.name}`);
    if (f.map) {
      const entryEnd = subEnd(r, p);
      let key = '';
      let val: unknown = typeof f.type === 'object' ? undefined : '';
      while (r.pos < entryEnd) {
        const et = r.uint32();
        if (et >>> 3 === 1 && (et & 7) === LEN) key = r.string();
        else if (et >>> 3 === 2 && (et & 7) === LEN) val = readValue(r, f, `${p}[${key}]`);
        else r.skipType(et & 7);
      }
      checkEnd(r, entryEnd, p);
      if (val === undefined) {
        // an entry without a value holds the value type's zero
        const def = messageDef((f.type as { msg: string }).msg);
        val = def.adapter ? def.adapter.fromMsg(def.adapter.zero ?? {}, p) : {};
      }
      const m = (out[f.json] ??= {}) as Json;
      m[key] = val;
    } else if (f.repeated) {
      const v = readValue(r, f, p);
      ((out[f.json] ??= []) as unknown[]).push(v ?? (typeof f.type === 'object' ? {} : ''));
    } else if (f.inline) {
      const v = readValue(r, f, p) as Json;
      out[f.json] = { ...(out[f.json] as Json | undefined), ...v };
    } else {
      const v = readValue(r, f, p);
      if (v === undefined) delete out[f.json];
      else out[f.json] = v;
    }
  }
  // Go's JSON leaves out zero values (omitempty); keep the field order of the message
  const res: Json = {};
  for (const f of def.fields) {
    if (f.inline) Object.assign(res, out[f.json]);
    else if (!isZero(f, out[f.json])) res[f.json] = out[f.json];
  }
  return res;
}

/** Parses the named message into its JSON form. */
export function decodeMessage(name: string, buf: Uint8Array): Json {
  const r = protobuf().Reader.create(buf);
  const out = readMessage(r, messageDef(name), r.len, '');
  checkEnd(r, r.len, name);
  return out;
}
