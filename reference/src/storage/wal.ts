// Durability for the memory store: an append-only log of changes plus a periodic snapshot,
// under one data directory. Each change is written (write(2)) before it becomes visible, so
// a kill -9 loses nothing that was acknowledged; fdatasync runs in batches shared by all
// writes that arrived meanwhile (group commit), and every reply waits for its batch.
import {
  closeSync,
  existsSync,
  fdatasync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { bucketOf, MemoryStore, type MemoryStoreOptions, type Persistence } from './memory.ts';
import type { ChangeEvent, KObject } from './types.ts';

export interface WalOptions extends MemoryStoreOptions {
  dir: string;
  /** fdatasync before acknowledging writes (default true). */
  sync?: boolean;
  /** Rewrite the snapshot and truncate the log once the log exceeds this many bytes. */
  compactBytes?: number;
}

interface LogLine {
  r: number;
  t: 'A' | 'M' | 'D';
  k: string;
  o?: KObject;
  ts: number;
}

const TYPE = { ADDED: 'A', MODIFIED: 'M', DELETED: 'D' } as const;
const UNTYPE = { A: 'ADDED', M: 'MODIFIED', D: 'DELETED' } as const;

export class WriteAheadLog implements Persistence {
  private fd: number;
  private size = 0;
  private pending: (() => void)[] = [];
  private failed: ((e: Error) => void)[] = [];
  private syncing = false;
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly store: MemoryStore,
    private readonly sync: boolean,
    private readonly compactBytes: number,
  ) {
    this.fd = openSync(join(dir, 'changes.log'), 'a');
  }

  /** Loads snapshot and log into the store; a torn last line (crash mid-write) is dropped. */
  static open(opts: WalOptions): MemoryStore {
    mkdirSync(opts.dir, { recursive: true });
    const store = new MemoryStore(opts);
    const snapPath = join(opts.dir, 'snapshot.json');
    if (existsSync(snapPath)) {
      const snap = JSON.parse(readFileSync(snapPath, 'utf8')) as {
        rev: number;
        objects: { k: string; r: number; o: KObject }[];
      };
      for (const o of snap.objects) store.loadObject(bucketOf(o.k), { key: o.k, rv: o.r, obj: o.o });
      store.restoreRevision(snap.rev);
    }
    const logPath = join(opts.dir, 'changes.log');
    let size = 0;
    if (existsSync(logPath)) {
      const buf = readFileSync(logPath);
      let start = 0;
      let good = 0;
      while (start < buf.length) {
        const nl = buf.indexOf(10, start);
        if (nl < 0) break;
        const line = buf.subarray(start, nl).toString('utf8');
        let rec: LogLine;
        try {
          rec = JSON.parse(line) as LogLine;
        } catch {
          break;
        }
        if (rec.r > store.revision()) {
          const ev: ChangeEvent = {
            rv: rec.r,
            type: UNTYPE[rec.t],
            bucket: bucketOf(rec.k),
            key: rec.k,
            obj: rec.o ?? (store.get(rec.k)?.obj as KObject),
            time: rec.ts,
          };
          if (ev.type === 'DELETED') {
            const last = store.get(rec.k)?.obj;
            if (!last) {
              start = nl + 1;
              good = start;
              continue;
            }
            ev.obj = { ...last, metadata: { ...last.metadata, resourceVersion: String(rec.r) } };
          }
          store.restore(ev);
        }
        start = nl + 1;
        good = start;
      }
      size = good;
      if (good < buf.length) {
        const fd = openSync(logPath, 'r+');
        ftruncateSync(fd, good);
        fsyncSync(fd);
        closeSync(fd);
      }
    }
    const wal = new WriteAheadLog(opts.dir, store, opts.sync ?? true, opts.compactBytes ?? 64 * 1024 * 1024);
    wal.size = size;
    store.attach(wal);
    return store;
  }

  append(ev: ChangeEvent): Promise<void> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const rec: LogLine = { r: ev.rv, t: TYPE[ev.type], k: ev.key, ts: ev.time };
    if (ev.type !== 'DELETED') rec.o = ev.obj;
    const line = Buffer.from(JSON.stringify(rec) + '\n');
    writeSync(this.fd, line);
    this.size += line.length;
    if (this.size > this.compactBytes) this.compact();
    if (!this.sync) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.pending.push(resolve);
      this.failed.push(reject);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.syncing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.syncing || this.pending.length === 0) return;
    const done = this.pending;
    const fail = this.failed;
    this.pending = [];
    this.failed = [];
    this.syncing = true;
    fdatasync(this.fd, (err) => {
      this.syncing = false;
      if (err) for (const f of fail) f(err);
      else for (const d of done) d();
      if (this.pending.length) this.schedule();
    });
  }

  /** Writes every live object to a new snapshot, then starts an empty log. */
  private compact(): void {
    const snap = this.store.snapshot();
    const tmp = join(this.dir, 'snapshot.json.tmp');
    const body = JSON.stringify({
      rev: snap.rev,
      objects: snap.objects.map((o) => ({ k: o.key, r: o.rv, o: o.obj })),
    });
    writeFileSync(tmp, body);
    const fd = openSync(tmp, 'r');
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, join(this.dir, 'snapshot.json'));
    fsyncSync(this.fd);
    ftruncateSync(this.fd, 0);
    fsyncSync(this.fd);
    this.size = 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      if (!this.sync || (this.pending.length === 0 && !this.syncing)) return resolve();
      this.pending.push(resolve);
      this.failed.push(() => resolve());
      this.schedule();
    });
    this.closed = true;
    fsyncSync(this.fd);
    closeSync(this.fd);
  }
}
