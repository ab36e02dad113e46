// The files of the write-ahead log (./wal.ts): the formats of the log's records and of the
// snapshot, writing a snapshot, and reading both back when the store starts.
import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { jsonBytesOnce } from '../content/json.ts';
import { bucketOf, type MemoryStore } from './memory.ts';
import type { ChangeEvent, KObject, StoredObject } from './types.ts';

/** One record of the log: a change. DELETED records carry no object (the last state is known). */
export interface LogLine {
  r: number;
  t: 'A' | 'M' | 'D';
  k: string;
  o?: KObject;
  ts: number;
}

/** A change of the retained history inside a snapshot: with the object before it. */
interface HistoryLine {
  r: number;
  t: 'A' | 'M' | 'D';
  k: string;
  o: KObject;
  p?: KObject;
  ts: number;
}

interface SnapshotFile {
  rev: number;
  objects: { k: string; r: number; o: KObject }[];
  /** Changes up to `rev` still inside the retention window, oldest first (absent in old snapshots). */
  history?: HistoryLine[];
}

export const TYPE = { ADDED: 'A', MODIFIED: 'M', DELETED: 'D' } as const;
const UNTYPE = { A: 'ADDED', M: 'MODIFIED', D: 'DELETED' } as const;

/**
 * A change's LogLine up to its object, written out by hand (`{"r":..,"t":..,"k":..,"ts":..`,
 * no closing brace): JSON.stringify of the head object cost a write about a microsecond.
 */
export function changeHead(ev: ChangeEvent): string {
  return `{"r":${ev.rv},"t":"${TYPE[ev.type]}","k":${JSON.stringify(ev.key)},"ts":${timeText(ev.time)}`;
}

/** The last time written, as text: a millisecond time is no small integer, and its text is made slowly. */
let lastTime = Number.NaN;
let lastTimeText = '';

function timeText(t: number): string {
  if (t !== lastTime) {
    lastTime = t;
    lastTimeText = String(t);
  }
  return lastTimeText;
}

/** What a snapshot holds: the live objects at `rev` and the retained history up to it. */
export interface SnapshotContent {
  rev: number;
  objects: StoredObject[];
  history: ChangeEvent[];
}

/**
 * Every live object of `store` and its retained history (of `buckets`), as they are now. Stored
 * objects never change: the content stays what it is while it is written, whatever the store
 * does meanwhile.
 */
export function snapshotOf(store: MemoryStore, buckets: Set<string>): SnapshotContent {
  const snap = store.snapshot();
  const from = store.oldestRetained();
  const history: ChangeEvent[] = [];
  if (from < snap.rev) {
    for (const b of buckets) store.watch(b, from, (ev) => history.push(ev))();
    history.sort((a, b) => a.rv - b.rv);
  }
  return { rev: snap.rev, objects: snap.objects, history };
}

/** Writes a snapshot to `path` and fsyncs it, in one go; returns the bytes written. */
export function writeSnapshot(path: string, content: SnapshotContent): number {
  const fd = openSync(path, 'w');
  let total = 0;
  try {
    for (const piece of snapshotPieces(content)) {
      let off = 0;
      while (off < piece.length) off += writeSync(fd, piece, off, piece.length - off);
      total += piece.length;
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return total;
}

/**
 * Writes a snapshot to `path` and fsyncs it without holding the event loop: a piece of about
 * 1 MiB at a time, written and synced on the thread pool. Returns the bytes written.
 */
export async function writeSnapshotAsync(path: string, content: SnapshotContent): Promise<number> {
  const file = await open(path, 'w');
  let total = 0;
  try {
    for (const piece of snapshotPieces(content)) {
      let off = 0;
      while (off < piece.length) off += (await file.write(piece, off, piece.length - off)).bytesWritten;
      total += piece.length;
    }
    await file.sync();
  } finally {
    await file.close();
  }
  return total;
}

/** Pieces of a snapshot are gathered up to this size. */
const PIECE = 1 << 20;

/**
 * The snapshot's JSON (SnapshotFile), in pieces of about PIECE bytes. The objects' JSON is the
 * bytes their answers and the log had (jsonBytes), not made again: a snapshot of a hundred
 * thousand objects took over a second of the event loop that way.
 */
function* snapshotPieces(s: SnapshotContent): Generator<Buffer> {
  const out = new Pieces();
  out.put(`{"rev":${s.rev},"objects":[`);
  for (let i = 0; i < s.objects.length; i++) {
    const o = s.objects[i]!;
    out.put(`${i ? ',' : ''}{"k":${JSON.stringify(o.key)},"r":${o.rv},"o":`);
    out.bytes(jsonBytesOnce(o.obj));
    out.put('}');
    yield* out.full();
  }
  out.put('],"history":[');
  for (let i = 0; i < s.history.length; i++) {
    const ev = s.history[i]!;
    // a HistoryLine
    out.put(`${i ? ',' : ''}${changeHead(ev)},"o":`);
    out.bytes(jsonBytesOnce(ev.obj));
    if (ev.prev) {
      out.put(',"p":');
      out.bytes(jsonBytesOnce(ev.prev));
    }
    out.put('}');
    yield* out.full();
  }
  out.put(']}\n');
  yield* out.rest();
}

/**
 * Gathers text and bytes into pieces of about PIECE bytes, each a buffer of its own (a piece
 * may still be in a write while the next is gathered).
 */
class Pieces {
  private chunk = Buffer.allocUnsafeSlow(PIECE);
  private used = 0;
  private ready: Buffer[] = [];
  put(s: string): void {
    if (s.length * 3 > this.chunk.length - this.used) this.seal();
    if (s.length * 3 > this.chunk.length) this.ready.push(Buffer.from(s));
    else this.used += this.chunk.write(s, this.used);
  }
  bytes(b: Buffer): void {
    if (b.length > this.chunk.length - this.used) this.seal();
    if (b.length > this.chunk.length) this.ready.push(b);
    else this.used += b.copy(this.chunk, this.used);
  }
  /** The pieces sealed so far. */
  *full(): Generator<Buffer> {
    if (!this.ready.length) return;
    const ready = this.ready;
    this.ready = [];
    yield* ready;
  }
  /** Every piece, the last one too. */
  *rest(): Generator<Buffer> {
    this.seal();
    yield* this.full();
  }
  private seal(): void {
    if (!this.used) return;
    this.ready.push(this.chunk.subarray(0, this.used));
    this.chunk = Buffer.allocUnsafeSlow(PIECE);
    this.used = 0;
  }
}

export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // some platforms cannot fsync a directory
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Loads the snapshot: the objects at its revision, and the history before it. The loader
 * undoes the history to get the state where it starts, then replays it, so that the store
 * holds the same past versions it held when the snapshot was written.
 */
export function loadSnapshot(path: string, store: MemoryStore, buckets: Set<string>): void {
  if (!existsSync(path)) return;
  const snap = JSON.parse(readFileSync(path, 'utf8')) as SnapshotFile;
  const state = new Map<string, StoredObject>();
  for (const o of snap.objects) state.set(o.k, { key: o.k, rv: o.r, obj: o.o });
  const history = snap.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i]!;
    if (h.t === 'A' || !h.p) state.delete(h.k);
    else state.set(h.k, { key: h.k, rv: Number(h.p.metadata.resourceVersion), obj: h.p });
  }
  for (const o of state.values()) {
    const b = bucketOf(o.key);
    buckets.add(b);
    store.loadObject(b, o);
  }
  store.restoreRevision(history.length ? history[0]!.r - 1 : snap.rev);
  for (const h of history) {
    const b = bucketOf(h.k);
    buckets.add(b);
    store.restore({ rv: h.r, type: UNTYPE[h.t], bucket: b, key: h.k, obj: h.o, time: h.ts });
  }
  // without history (or a history that ends early) the revision still never goes back
  if (store.revision() < snap.rev) store.restoreRevision(snap.rev);
}

function parseRecord(line: string): LogLine | undefined {
  let rec: LogLine;
  try {
    rec = JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
  if (
    typeof rec !== 'object' ||
    rec === null ||
    !Number.isSafeInteger(rec.r) ||
    rec.r <= 0 ||
    !(rec.t in UNTYPE) ||
    typeof rec.k !== 'string' ||
    typeof rec.ts !== 'number' ||
    (rec.t !== 'D' && (typeof rec.o !== 'object' || rec.o === null || typeof rec.o.metadata !== 'object'))
  )
    return undefined;
  return rec;
}

/**
 * Replays the log into the store; returns the length of its whole records. The log's file may
 * go on in zeros (space it grew into ahead of its records): the records end at the first.
 */
export function replayLog(path: string, store: MemoryStore, buckets: Set<string>): number {
  if (!existsSync(path)) return 0;
  const buf = readFileSync(path);
  let start = 0;
  let good = 0;
  let bad = false;
  while (start < buf.length && buf[start] !== 0) {
    const nl = buf.indexOf(10, start);
    if (nl < 0) {
      bad = true; // the last record lacks its end: torn
      break;
    }
    const rec = parseRecord(buf.subarray(start, nl).toString('utf8'));
    if (!rec) {
      bad = true;
      break;
    }
    apply(store, rec, buckets);
    start = nl + 1;
    good = start;
  }
  if (!bad && allZero(buf, good)) return good;
  // A record's text holds no zero byte (JSON escapes it). Zeros inside a record, or before
  // more text, are space the log grew into that a crash left half written: pages of a write
  // whose fdatasync never returned reach the disk in any order, and every acknowledged
  // record lies before them (an fdatasync returns once every page before it is on disk).
  const unwritten = bad ? buf.subarray(good, lineEnd(buf, good)).includes(0) : true;
  if (!unwritten) {
    // Only the end of the log may be torn. A damaged record followed by good ones means
    // the file was damaged some other way: dropping the rest would drop acknowledged data.
    let next = buf.indexOf(10, good);
    while (next >= 0 && next + 1 < buf.length) {
      const end = buf.indexOf(10, next + 1);
      const line = buf.subarray(next + 1, end < 0 ? buf.length : end).toString('utf8');
      if (end >= 0 && parseRecord(line))
        throw new Error(
          `${path}: damaged record at byte ${good} followed by valid records; refusing to start`,
        );
      next = end;
    }
  }
  console.error(`orch storage: dropping a torn record at the end of ${path} (${buf.length - good} bytes)`);
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, good);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return good;
}

/** Where the line starting at `from` ends (its newline, or the end of the buffer). */
function lineEnd(buf: Buffer, from: number): number {
  const nl = buf.indexOf(10, from);
  return nl < 0 ? buf.length : nl;
}

/** Whether `buf` holds only zeros from `from` on. */
function allZero(buf: Buffer, from: number): boolean {
  for (let i = from; i < buf.length; i++) if (buf[i] !== 0) return false;
  return true;
}

function apply(store: MemoryStore, rec: LogLine, buckets: Set<string>): void {
  if (rec.r <= store.revision()) return; // already in the snapshot
  const bucket = bucketOf(rec.k);
  buckets.add(bucket);
  let obj = rec.o;
  if (rec.t === 'D') {
    const last = store.get(rec.k)?.obj;
    if (!last) {
      // nothing to delete: still, revisions never go back
      store.restoreRevision(rec.r);
      return;
    }
    obj = { ...last, metadata: { ...last.metadata, resourceVersion: String(rec.r) } };
  }
  store.restore({ rv: rec.r, type: UNTYPE[rec.t], bucket, key: rec.k, obj: obj!, time: rec.ts });
}
