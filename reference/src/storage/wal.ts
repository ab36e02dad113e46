// Durability for the memory store: an append-only log of changes plus a snapshot, under one
// data directory.
//
// - fdatasync runs in batches shared by every write that arrived meanwhile (group commit);
//   every reply waits for its batch. The records of a turn of the event loop go to
//   `changes.log` in one write(2) at the turn's end, or as soon as anything is about to leave
//   the process (an answer, a watch event, a webhook's request, an audit event: exposure.ts),
//   so a kill -9 loses nothing that was acknowledged, nor anything a watcher or reader saw,
//   nor a version already handed out. A failed
//   write or fdatasync is fatal for the log: the pages may be lost, so the waiting writes
//   fail and every later write is refused (fail-stop) until the process restarts and
//   recovers from what is on disk.
// - Without fdatasync each change is written before it becomes visible; a change that
//   cannot be written is refused (append throws) and never becomes visible.
// - Once the log passes `compactBytes`, every live object and the retained change history
//   go to `snapshot.json` (written to a temporary file, fsynced, renamed, directory fsynced).
//   The history lets watch-from-an-old-version and Exact reads keep working across a restart,
//   within the retention window. The snapshot is written without holding the event loop: the
//   log moves aside (`changes.old.log`, synced first) and a new one takes the writes while the
//   snapshot of that moment is written on the thread pool; once it is in place the old log
//   goes. A restart replays the snapshot, the old log if it is still there (its records the
//   snapshot holds are skipped), then the log. Writing it in one go held every request for
//   232 ms at 100,000 ConfigMaps (377 ms at 140,000); now 13 and 16 ms.
// - The log grows ahead of its records in steps of zeros (GROW_BYTES), written once: a record
//   then overwrites space the file already has, and its fdatasync flushes data only. Appending
//   changed the file's size at every batch, and each fdatasync waited for a journal commit
//   of the file system as well (twice the time and about 40 us more CPU a sync, measured on
//   ext4). Replay stops at the zeros; a clean close cuts them off.
// - On start the snapshot is loaded and the log replayed; a torn last record (a crash in the
//   middle of a write) is dropped and cut from the file. A damaged record followed by good
//   ones is not a torn write: the server refuses to start rather than drop acknowledged data.
import {
  closeSync,
  constants,
  existsSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  writevSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { jsonBytes } from '../content/json.ts';
import { holdUntilExposure, release } from './exposure.ts';
import { MemoryStore, type MemoryStoreOptions, type Persistence } from './memory.ts';
import type { ChangeEvent } from './types.ts';
import {
  changeHead,
  fsyncDir,
  loadSnapshot,
  replayLog,
  type SnapshotContent,
  snapshotOf,
  writeSnapshot,
  writeSnapshotAsync,
} from './wal-files.ts';

/** How a record that holds an object ends. */
const RECORD_END = Buffer.from('}\n');

/**
 * A change's record, the JSON of its LogLine, as the buffers that go to the file one after
 * another. The object's JSON is the one its answer and its watchers send (jsonBytes: made
 * once and kept with the object, which never changes once stored): a write serialises its
 * object once, and its bytes are not decoded or encoded again on the way to the file.
 */
function logRecord(ev: ChangeEvent): Buffer[] {
  const head = changeHead(ev);
  if (ev.type === 'DELETED') return [Buffer.from(`${head}}\n`)];
  return [Buffer.from(`${head},"o":`), jsonBytes(ev.obj), RECORD_END];
}

export interface WalOptions extends MemoryStoreOptions {
  dir: string;
  /** fdatasync before acknowledging writes (default true). */
  sync?: boolean;
  /** Rewrite the snapshot and truncate the log once the log exceeds this many bytes (default 64 MiB). */
  compactBytes?: number;
}

const LOG = 'changes.log';
/** The log a compaction moved aside, until the snapshot that holds its records is in place. */
const OLD_LOG = 'changes.old.log';
/** The next log, made before the log moves aside (a leftover of a crash in between is empty). */
const NEXT_LOG = 'changes.next.log';
const SNAPSHOT = 'snapshot.json';
/** Written, synced and removed by probe(). */
const PROBE = 'health-probe';
/**
 * fdatasyncs in flight at most. A batch's fdatasync starts after its writes, so it makes them
 * durable whatever another one does. Each has a descriptor of its own: Linux reports a
 * writeback error once per open file, so two calls on one descriptor could let one of them
 * succeed for pages the other was told were lost.
 */
const SYNC_SLOTS = 2;
/**
 * Writes that must be waiting before a second fdatasync starts beside the one in flight. A
 * second one at once halved the batches (twice the fdatasyncs and the thread pool's wakeups:
 * about 7 % more main-thread CPU a durable create); one at most left the loop idle while every
 * client waited on it (93-96 % busy). With this threshold: 9,202-11,441 creates a second
 * against 8,844-10,054 with one at most (median 10,256 against 9,349, six alternating
 * benchmark runs each, loop 97-98 % busy).
 */
const SECOND_SYNC_AT = 12;
/**
 * How far the log's file grows at a time, with zeros, ahead of its records. 1 MiB: one
 * journal commit for every 1 MiB of records instead of one a batch; larger steps made the
 * batch that flushes them slower (up to 12 ms for 16 MiB) for no fewer system calls.
 */
const GROW_BYTES = 1 << 20;
let zeros: Buffer | undefined;

/** Removes a file left by a failed step; a failure to remove it changes nothing about the failure. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // (a directory in its place, a read-only directory): the next attempt meets it again
  }
}

interface Waiter {
  resolve: (value: unknown) => void;
  /** What the write's promise resolves with. */
  value: unknown;
  reject: (e: Error) => void;
}

export class WriteAheadLog implements Persistence {
  private fd: number;
  /** Bytes of whole records in the log. */
  private size = 0;
  /** The file's length: zeros from `size` on (see GROW_BYTES). */
  private allocated: number;
  /** Writes waiting for the next fdatasync. */
  private waiters: Waiter[] = [];
  /** Their records, not yet in the file (fdatasync mode). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Descriptors of the log for fdatasync not in use (see SYNC_SLOTS); all of them when none is in flight. */
  private freeSyncFds: number[] = [];
  private syncFds: number[] = [];
  /** fdatasyncs in flight, those of a log moved aside too. */
  private syncing = 0;
  private scheduled = false;
  /** Writes the records held back (see append); one function, so exposure.ts can forget it. */
  private readonly writeHeld = () => this.writePending();
  private compactScheduled = false;
  /** A compaction whose snapshot is being written (see compact). */
  private compacting?: Promise<void>;
  private compactAt: number;
  private closing = false;
  private closePromise?: Promise<void>;
  private idle: (() => void)[] = [];
  /** Set once a write or an fdatasync failed: the log accepts nothing more. */
  private failed?: Error;
  /** Buckets that ever had a change (to collect the history at compaction). */
  readonly buckets = new Set<string>();

  private constructor(
    private readonly dir: string,
    private readonly store: MemoryStore,
    private readonly sync: boolean,
    private readonly compactBytes: number,
    size: number,
  ) {
    const path = join(dir, LOG);
    const created = !existsSync(path);
    this.fd = openSync(path, constants.O_RDWR | constants.O_CREAT);
    if (created) fsyncDir(dir);
    this.allocated = fstatSync(this.fd).size;
    this.syncFds = this.openSyncFds(path);
    this.freeSyncFds = [...this.syncFds];
    this.size = size;
    this.compactAt = compactBytes;
  }

  private openSyncFds(path: string): number[] {
    const fds: number[] = [];
    if (this.sync) for (let i = 0; i < SYNC_SLOTS; i++) fds.push(openSync(path, 'r'));
    return fds;
  }

  failure(): Error | undefined {
    return this.failed;
  }

  /**
   * Whether the log is still the file a restart will read, and the data directory takes a
   * durable write now (the health checks ask). A log deleted or replaced under the server, or
   * a directory that refuses writes, fails the log: nothing written from then on would survive
   * a restart, so nothing more may be acknowledged.
   */
  probe(): Error | undefined {
    if (this.failed || this.closing) return this.failed;
    try {
      const path = join(this.dir, LOG);
      const open = fstatSync(this.fd);
      const named = statSync(path);
      if (open.ino !== named.ino || open.dev !== named.dev)
        throw new Error(`${path} is not the open log any more`);
      const probe = join(this.dir, PROBE);
      const fd = openSync(probe, 'w');
      try {
        writeSync(fd, 'probe');
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      rmSync(probe);
    } catch (e) {
      this.fail(new Error(`the data directory is not usable: ${(e as Error).message}`));
    }
    return this.failed;
  }

  /** Loads snapshot and log into a new store and attaches the log to it. */
  static open(opts: WalOptions): MemoryStore {
    const dir = opts.dir;
    const fresh = !existsSync(dir);
    mkdirSync(dir, { recursive: true });
    if (fresh) fsyncDir(dirname(dir));
    rmSync(join(dir, `${SNAPSHOT}.tmp`), { force: true });
    rmSync(join(dir, NEXT_LOG), { force: true });
    const store = new MemoryStore(opts);
    const buckets = new Set<string>();
    loadSnapshot(join(dir, SNAPSHOT), store, buckets);
    // a compaction that did not finish left its old log: the snapshot may not hold it yet
    const unfinished = existsSync(join(dir, OLD_LOG));
    if (unfinished) replayLog(join(dir, OLD_LOG), store, buckets);
    const size = replayLog(join(dir, LOG), store, buckets);
    const wal = new WriteAheadLog(dir, store, opts.sync ?? true, opts.compactBytes ?? 64 * 1024 * 1024, size);
    for (const b of buckets) wal.buckets.add(b);
    store.attach(wal);
    if (unfinished) wal.compactNow();
    return store;
  }

  /**
   * Logs a change; resolves with `value` once it is durable. Throws (synchronously, so that the store
   * does not apply the change) when the log is closed or failed, and, without fdatasync, when
   * the write fails. With fdatasync the record is written with its batch: a failed write
   * rejects the batch and fails the log, as a failed fdatasync does.
   */
  append<T>(ev: ChangeEvent, value: T): Promise<T> {
    if (this.closing) throw new Error('store is closed');
    if (this.failed) throw this.failed;
    const record = logRecord(ev);
    // With fdatasync, no write is acknowledged before its batch's sync, and the records of a
    // turn of the event loop go to the file in one write at the turn's end (one system call a
    // turn, not a request). Should anything of them leave the process before (an answer, a
    // watch event, a webhook's request: see exposure.ts), they are written first: a kill -9
    // must not take changes somebody saw (and a restart would hand their versions out again).
    // Without fdatasync, each record reaches the file before the change is visible.
    if (this.sync) {
      if (this.pending.length === 0) {
        holdUntilExposure(this.writeHeld);
        this.schedule();
      }
      for (const b of record) {
        this.pending.push(b);
        this.pendingBytes += b.length;
      }
    } else this.size += this.writeRecord(record);
    this.buckets.add(ev.bucket);
    if (this.size + this.pendingBytes > this.compactAt && !this.compactScheduled && !this.compacting) {
      // Not now: the store applies this change right after append returns, and the
      // snapshot must hold every change the log holds.
      this.compactScheduled = true;
      setImmediate(() => this.compact());
    }
    if (!this.sync) return Promise.resolve(value);
    return new Promise<T>((resolve, reject) => {
      this.waiters.push({ resolve: resolve as (v: unknown) => void, value, reject });
      this.schedule();
    });
  }

  /**
   * Writes whole records (the buffers in order, in one writev), or nothing: a partial write
   * is cut off again. Returns their size. The buffers go to the file as they are: the objects'
   * JSON is not copied, and nothing is cut from the shared pool for long (see jsonBytes).
   */
  private writeRecord(bufs: Buffer[]): number {
    let len = 0;
    for (const b of bufs) len += b.length;
    const at = this.size;
    this.grow(at + len);
    let off = 0;
    try {
      off = writevSync(this.fd, bufs, at);
      if (off < len) {
        // a short write (a full disk, or more buffers than one writev takes): the rest in order
        const rest = Buffer.concat(bufs);
        while (off < len) off += writeSync(this.fd, rest, off, len - off, at + off);
      }
      return len;
    } catch (e) {
      if (off > 0) {
        try {
          ftruncateSync(this.fd, at);
          this.allocated = at;
        } catch {
          // the log now ends in a partial record that later records would follow
          this.fail(new Error(`change log damaged: ${(e as Error).message}`));
        }
      }
      throw e;
    }
  }

  /**
   * Makes the file at least `end` long, in steps of GROW_BYTES of zeros. Best effort: where the
   * zeros cannot be written (a full disk), the records are written past the end as appended
   * ones, and their own write reports the error.
   */
  private grow(end: number): void {
    if (end <= this.allocated) return;
    zeros ??= Buffer.alloc(GROW_BYTES);
    const to = Math.ceil(end / GROW_BYTES) * GROW_BYTES;
    try {
      while (this.allocated < to)
        this.allocated += writeSync(
          this.fd,
          zeros,
          0,
          Math.min(GROW_BYTES, to - this.allocated),
          this.allocated,
        );
    } catch {
      // this.allocated is what was written
    }
  }

  private fail(e: Error): void {
    if (this.failed) return;
    this.failed = e;
    console.error(`orch storage: ${e.message}; no further writes are accepted until restart`);
  }

  /**
   * At the end of this turn of the event loop: writes the turn's records, and starts a batch's
   * fdatasync (every write of the turn joins it) when a slot is free (a completing sync
   * schedules again).
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /**
   * Writes the records waiting for a sync, in one write. A failed write fails the log: the
   * changes are already visible in memory, as after a failed fdatasync, so nothing more may
   * be acknowledged (the partial records are cut off again where possible).
   */
  private writePending(): void {
    if (!this.pending.length) return;
    release(this.writeHeld);
    const records = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    try {
      this.size += this.writeRecord(records);
    } catch (e) {
      this.fail(new Error(`write to the change log failed: ${(e as Error).message}`));
    }
  }

  private flush(): void {
    this.writePending();
    if (
      this.waiters.length &&
      this.freeSyncFds.length &&
      (this.syncing === 0 || this.waiters.length >= SECOND_SYNC_AT)
    ) {
      const fd = this.freeSyncFds.pop()!;
      const batch = this.waiters;
      this.waiters = [];
      this.syncing++;
      fdatasync(fd, (err) => {
        this.syncing--;
        // a descriptor of a log moved aside meanwhile is closed, not used again
        if (this.syncFds.includes(fd)) this.freeSyncFds.push(fd);
        else closeSync(fd);
        if (err) this.fail(new Error(`fdatasync of the change log failed: ${err.message}`));
        // after a failure nothing is known to be durable, whatever later calls report
        const f = this.failed;
        for (const w of batch) {
          if (f) w.reject(f);
          else w.resolve(w.value);
        }
        if (this.waiters.length) this.schedule();
        else this.checkIdle();
      });
    }
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.syncing > 0 || this.scheduled || this.waiters.length) return;
    const idle = this.idle;
    this.idle = [];
    for (const f of idle) f();
  }

  /**
   * Compacts the log without holding the event loop: the log moves aside and a new one takes
   * the writes, and the snapshot of that moment is written on the thread pool; the old log
   * goes once the snapshot is in place. Runs outside append, when the store has applied every
   * logged change. A compaction that could not finish left its old log: the next one writes
   * the snapshot at once instead (compactNow), for a log moved aside must never replace it.
   */
  compact(): Promise<void> {
    this.compactScheduled = false;
    if (this.compacting) return this.compacting;
    if (this.closing || this.failed) return Promise.resolve();
    if (existsSync(join(this.dir, OLD_LOG))) {
      this.compactNow();
      return Promise.resolve();
    }
    let content: SnapshotContent;
    try {
      content = this.moveLogAside();
    } catch (e) {
      console.error(`orch storage: compaction failed: ${(e as Error).message}`);
      this.compactAt = this.size + this.compactBytes;
      return Promise.resolve();
    }
    this.compacting = this.finishCompaction(content).finally(() => {
      this.compacting = undefined;
    });
    return this.compacting;
  }

  /**
   * Writes the records held back, makes the log durable, and starts a new one in its place; the
   * old one stays as `changes.old.log`. Returns what the snapshot must hold: everything the old
   * log holds, at this moment.
   */
  private moveLogAside(): SnapshotContent {
    this.writePending();
    if (this.failed) throw this.failed;
    // A batch of the new log could otherwise be acknowledged while an earlier one of the old
    // log is still on its way to the disk (an fdatasync makes only its own file durable).
    fdatasyncSync(this.fd);
    const path = join(this.dir, LOG);
    const old = join(this.dir, OLD_LOG);
    const next = join(this.dir, NEXT_LOG);
    const fd = openSync(next, 'w+');
    let syncFds: number[] = [];
    try {
      syncFds = this.openSyncFds(next);
      renameSync(path, old);
    } catch (e) {
      for (const f of [fd, ...syncFds]) closeSync(f);
      rmSync(next, { force: true });
      throw e;
    }
    try {
      renameSync(next, path);
      fsyncDir(this.dir);
    } catch (e) {
      // the log is `changes.old.log` now and nothing takes its place: nothing written from
      // here on would be read at a restart
      this.fail(new Error(`starting a new change log failed: ${(e as Error).message}`));
      for (const f of [fd, ...syncFds]) closeSync(f);
      throw e;
    }
    // no more writes go to the old log; its syncs in flight close their descriptors
    closeSync(this.fd);
    for (const f of this.freeSyncFds) closeSync(f);
    this.fd = fd;
    this.syncFds = syncFds;
    this.freeSyncFds = [...syncFds];
    this.size = 0;
    this.allocated = 0;
    return snapshotOf(this.store, this.buckets);
  }

  /** Resolves once no compaction is under way (at once when none is). */
  compacted(): Promise<void> {
    return this.compacting ?? Promise.resolve();
  }

  /** Writes the snapshot on the thread pool, puts it in place and removes the old log. */
  private async finishCompaction(content: SnapshotContent): Promise<void> {
    const tmp = join(this.dir, `${SNAPSHOT}.tmp`);
    let written = 0;
    try {
      written = await writeSnapshotAsync(tmp, content);
      // a failed log takes no snapshot: what it holds may not all be durable
      if (this.failed) throw this.failed;
      this.placeSnapshot(tmp);
    } catch (e) {
      // the old snapshot and both logs are still in place: the next compaction writes it again
      this.compactionFailed(tmp, e);
      return;
    }
    this.removeOldLog();
    this.boundAfter(written);
  }

  /** Puts a written snapshot in place of the last one. */
  private placeSnapshot(tmp: string): void {
    renameSync(tmp, join(this.dir, SNAPSHOT));
    fsyncDir(this.dir);
  }

  /** A compaction that failed: its temporary file goes, and the next is tried a bound later. */
  private compactionFailed(tmp: string, e: unknown): void {
    removeQuietly(tmp);
    console.error(`orch storage: compaction failed: ${(e as Error).message}`);
    this.compactAt = this.size + this.compactBytes;
  }

  /** The next compaction's bound, after a snapshot of `written` bytes. */
  private boundAfter(written: number): void {
    // a snapshot much larger than the log bound would otherwise be rewritten too often
    this.compactAt = Math.max(this.compactBytes, Math.floor(written / 2));
  }

  /** The old log once a durable snapshot holds its records (a restart would skip them anyway). */
  private removeOldLog(): void {
    try {
      rmSync(join(this.dir, OLD_LOG), { force: true });
      fsyncDir(this.dir);
    } catch (e) {
      console.error(`orch storage: removing the old change log failed: ${(e as Error).message}`);
    }
  }

  /**
   * Writes every live object and the retained history to a new snapshot in one go, then
   * empties the log (and removes an old one). At a start that found an unfinished compaction,
   * and after one failed.
   */
  compactNow(): void {
    this.compactScheduled = false;
    if (this.closing || this.failed) return;
    const tmp = join(this.dir, `${SNAPSHOT}.tmp`);
    let written = 0;
    try {
      written = writeSnapshot(tmp, snapshotOf(this.store, this.buckets));
      this.placeSnapshot(tmp);
    } catch (e) {
      // the old snapshot and the whole log are still in place: try again later
      this.compactionFailed(tmp, e);
      return;
    }
    this.removeOldLog();
    // Everything the log holds is in the durable snapshot now. An fdatasync in flight
    // still covers its writes (they are in the snapshot); later records go to the empty log.
    // Records still waiting for a sync are in the snapshot too: they need not be written.
    this.pending = [];
    this.pendingBytes = 0;
    release(this.writeHeld);
    try {
      ftruncateSync(this.fd, 0);
      this.size = 0;
      this.allocated = 0;
      fsyncSync(this.fd);
    } catch (e) {
      // records the snapshot already holds are skipped on replay: harmless
      console.error(`orch storage: truncating the change log failed: ${(e as Error).message}`);
    }
    this.boundAfter(written);
  }

  close(): Promise<void> {
    this.closePromise ??= this.doClose();
    return this.closePromise;
  }

  private async doClose(): Promise<void> {
    this.closing = true;
    // every accepted write gets its fdatasync (and its answer) before the file is closed
    await new Promise<void>((resolve) => {
      this.idle.push(resolve);
      this.checkIdle();
    });
    // a snapshot being written is finished (or abandoned) before the files close
    await this.compacting;
    try {
      if (!this.failed) {
        // the zeros ahead of the records go: the file holds the records and nothing else
        if (this.allocated > this.size) ftruncateSync(this.fd, this.size);
        fsyncSync(this.fd);
      }
    } finally {
      closeSync(this.fd);
      for (const fd of this.syncFds) closeSync(fd);
    }
  }
}
