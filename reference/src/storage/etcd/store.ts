// The store on etcd v3. etcd holds the objects; this process keeps a watch cache of them (the
// in-memory store it extends), fed by one etcd watch over the prefix, and serves reads from it:
//
//   - resource versions are etcd revisions (an object's is its mod revision);
//   - writes are transactions: create when the key's create revision is 0, update and delete
//     when its mod revision is the one the caller read (optimistic concurrency); a write
//     answers once this cache holds it, so a read that follows on this server sees it;
//   - sync() makes the cache as new as etcd is now (a quorum read for the revision, then waits
//     for the watch to deliver up to it): every request but an explicit "any version" read
//     starts with it, so several servers on one etcd serve one consistent API;
//   - lists at a version older than the cache's history are ranges at that revision in etcd
//     (listAt), so continue tokens and Exact lists work while etcd keeps the revision;
//   - the compactor (every --etcd-compaction-interval, as Kubernetes) compacts etcd to the
//     revision it saw one interval earlier, coordinating the servers through a key whose
//     version each expects; every cache learns the compacted revision from that key and
//     forgets its history up to it, so older versions answer 410 Gone.
//
// Values are the objects' JSON without resourceVersion (it is the mod revision). Keys are
// `<prefix>/<storage key>`; `<prefix>/~compact` and `<prefix>/~sync` are the store's own.
import type { Etcd3, IRequestOp, IWatchResponse, Watcher } from 'etcd3';
import { StatusError } from '../../errors/status.ts';
import { bucketOf, MemoryStore } from '../memory.ts';
import {
  type ChangeEvent,
  ExpiredError,
  KeyExistsError,
  KeyNotFoundError,
  type KObject,
  PreconditionError,
  type StoredObject,
} from '../types.ts';
import {
  COMPACT_KEY,
  decode,
  type EtcdStoreOptions,
  encode,
  etcdClient,
  prefixEnd,
  SYNC_KEY,
  storageUnavailable,
  tooLarge,
} from './client.ts';
import { startCompactor } from './compactor.ts';

/** How long a cache behind etcd waits for the watch before it writes a marker to learn a revision. */
const CATCH_UP_QUIET_MS = 30;
/**
 * At most one health probe of etcd a second; calls in between answer the last probe's result
 * (Kubernetes probes on demand too, one probe per half of --etcd-healthcheck-timeout, 2 s).
 * No timer probes an idle server.
 */
const PROBE_EVERY_MS = 1000;
/** At most this many changes before the current revision are replayed into a new cache's history. */
const REPLAY_MAX = 100_000;

export { type EtcdStoreOptions, storageUnavailable } from './client.ts';

export class EtcdStore extends MemoryStore {
  private readonly client: Etcd3;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly compactionMs: number;
  private watcher?: Watcher;
  /** Objects of this server's own writes by revision: the cache takes them instead of decoding the event. */
  private readonly own = new Map<number, KObject>();
  private syncNext?: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void };
  private syncing = false;
  private health?: Error;
  /** The probe under way or last made, and when it started. */
  private probing?: { at: number; done: Promise<Error | undefined> };
  private compactTimer?: ReturnType<typeof setInterval>;
  /** The version of the compaction key this server expects (the compactor's and the watch's). */
  private readonly compaction = { version: 0 };
  private compactRev = 0;
  private closed = false;
  private readonly clockFn: () => number;

  private constructor(opts: EtcdStoreOptions) {
    super({ historyMs: opts.historyMs, historyMax: opts.historyMax, now: opts.now });
    this.clockFn = opts.now ?? Date.now;
    this.prefix = (opts.prefix ?? '/registry').replace(/\/+$/, '');
    this.timeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.compactionMs = opts.compactionIntervalMs ?? 5 * 60_000;
    this.client = etcdClient(opts, this.timeoutMs);
  }

  /** Connects, loads every object under the prefix, and starts the watch and the compactor. */
  static async open(opts: EtcdStoreOptions): Promise<EtcdStore> {
    if (!opts.servers.length) throw new Error('--etcd-servers: no server given');
    const store = new EtcdStore(opts);
    try {
      await store.load();
    } catch (e) {
      store.client.close();
      throw new Error(`cannot reach etcd at ${opts.servers.join(',')}: ${(e as Error).message}`);
    }
    if (store.compactionMs > 0)
      store.compactTimer = startCompactor(
        store.client,
        store.etcdKey(COMPACT_KEY),
        store.compaction,
        store.compactionMs,
        store.timeoutMs,
      );
    return store;
  }

  // ------------------------------------------------------------------ keys and values

  private etcdKey(key: string): Buffer {
    return Buffer.from(`${this.prefix}/${key}`);
  }

  private storageKey(k: Buffer): string {
    return k.toString().slice(this.prefix.length + 1);
  }

  private call<T>(fn: (opts: { deadline: Date }) => Promise<T>): Promise<T> {
    return fn({ deadline: new Date(Date.now() + this.timeoutMs) }).catch((e) => {
      if (e instanceof StatusError) throw e;
      const large = tooLarge(e);
      if (large) throw large;
      this.health = e as Error;
      throw storageUnavailable(e);
    });
  }

  // ------------------------------------------------------------------ the watch cache

  /**
   * The state at an earlier revision, then every change since through the watch: the cache
   * starts with the history etcd still keeps (up to REPLAY_MAX changes), so a watch from a
   * version before this server started resumes instead of answering 410.
   */
  private async load(): Promise<void> {
    const p = Buffer.from(`${this.prefix}/`);
    const deadline = () => ({ deadline: new Date(Date.now() + this.timeoutMs) });
    const now = await this.client.kv.range({ key: p, range_end: prefixEnd(p) }, deadline());
    const rev = Number(now.header.revision);
    const ck = now.kvs.find((kv) => this.storageKey(kv.key) === COMPACT_KEY);
    const compacted = ck ? Number(ck.value.toString()) || 0 : 0;
    this.compactRev = compacted;
    this.compaction.version = ck ? Number(ck.version) : 0;
    // (revision 0 would mean "now" to etcd: the earliest state is that of revision 1)
    let from = Math.max(compacted, rev - REPLAY_MAX, 1);
    let r = now;
    if (from < rev) {
      try {
        r = await this.client.kv.range({ key: p, range_end: prefixEnd(p), revision: from }, deadline());
      } catch {
        // compacted further than this prefix's compactor knows (another API on the same etcd)
        from = rev;
      }
    }
    for (const kv of r.kvs) {
      const key = this.storageKey(kv.key);
      if (key.startsWith('~')) continue;
      const mod = Number(kv.mod_revision);
      this.loadObject(bucketOf(key), { key, rv: mod, obj: decode(kv, mod) });
    }
    this.restoreRevision(from);
    await this.startWatch(from + 1);
    // the changes since come through the watch: the cache is current before anyone reads it
    await this.catchUp(rev);
  }

  private async startWatch(from: number): Promise<void> {
    const w = await this.client
      .watch()
      .prefix(`${this.prefix}/`)
      .withPreviousKV()
      .startRevision(String(from))
      .create();
    this.watcher = w;
    w.on('data', (res: IWatchResponse) => this.ingest(res));
    w.on('disconnected', (e: Error) => {
      if (!this.closed) this.health = new Error(`the watch on etcd is disconnected: ${e?.message ?? e}`);
    });
    w.on('connected', () => {
      if (this.health?.message.startsWith('the watch')) this.health = undefined;
    });
    w.on('error', (e: Error) => {
      // canceled by etcd, e.g. compacted past while disconnected: load the state again
      if (this.closed) return;
      console.error(`orch storage: the etcd watch ended (${e.message}); reloading from etcd`);
      void this.reload();
    });
  }

  /** After the watch was lost: the state as etcd has it now, published as changes, history forgotten. */
  private async reload(): Promise<void> {
    // a watch etcd canceled may never confirm its cancellation: do not wait long for it
    const old = this.watcher;
    this.watcher = undefined;
    if (old) await Promise.race([old.cancel().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
    for (;;) {
      if (this.closed) return;
      try {
        const p = Buffer.from(`${this.prefix}/`);
        const r = await this.client.kv.range({ key: p, range_end: prefixEnd(p) });
        const rev = Number(r.header.revision);
        const seen = new Set<string>();
        const now = this.clockFn();
        for (const kv of r.kvs) {
          const key = this.storageKey(kv.key);
          if (key.startsWith('~')) continue;
          seen.add(key);
          const mod = Number(kv.mod_revision);
          const cur = this.get(key);
          if (cur?.rv === mod) continue;
          const type = cur ? 'MODIFIED' : 'ADDED';
          this.publish({ rv: rev, type, bucket: bucketOf(key), key, obj: decode(kv, mod), time: now });
        }
        for (const o of this.snapshot().objects)
          if (!seen.has(o.key)) {
            const obj = { ...o.obj, metadata: { ...o.obj.metadata, resourceVersion: String(rev) } };
            this.publish({ rv: rev, type: 'DELETED', bucket: bucketOf(o.key), key: o.key, obj, time: now });
          }
        this.advanceTo(rev);
        this.forgetBefore(rev);
        await this.startWatch(rev + 1);
        this.health = undefined;
        return;
      } catch (e) {
        this.health = e as Error;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private ingest(res: IWatchResponse): void {
    const now = this.clockFn();
    for (const e of res.events) {
      const key = this.storageKey(e.kv.key);
      const rv = Number(e.kv.mod_revision);
      if (key.startsWith('~')) {
        if (key === COMPACT_KEY && e.type === 'Put') {
          this.compaction.version = Number(e.kv.version);
          const c = Number(e.kv.value.toString()) || 0;
          if (c > this.compactRev) this.compactRev = c;
          this.advanceTo(rv);
          if (c > 0) this.forgetBefore(c);
        } else this.advanceTo(rv);
        continue;
      }
      const bucket = bucketOf(key);
      let ev: ChangeEvent;
      if (e.type === 'Delete') {
        const last = e.prev_kv ? decode(e.prev_kv, Number(e.prev_kv.mod_revision)) : this.get(key)?.obj;
        if (!last) {
          this.advanceTo(rv);
          continue;
        }
        const delRv = Number(e.kv.mod_revision);
        const obj = { ...last, metadata: { ...last.metadata, resourceVersion: String(delRv) } };
        ev = { rv: delRv, type: 'DELETED', bucket, key, obj, prev: this.get(key)?.obj ?? last, time: now };
      } else {
        const mine = this.own.get(rv);
        if (mine) this.own.delete(rv);
        const obj = mine ?? decode(e.kv, rv);
        const created = e.kv.create_revision === e.kv.mod_revision;
        ev = { rv, type: created ? 'ADDED' : 'MODIFIED', bucket, key, obj, time: now };
        if (!created && !this.get(key)) ev.type = 'ADDED';
      }
      this.publish(ev);
    }
    this.advanceTo(Number(res.header.revision));
  }

  // ------------------------------------------------------------------ consistency

  /**
   * Resolves once this cache holds every change etcd had committed when it was called. Calls
   * that come while one is under way share the next round (one quorum read for all of them).
   */
  sync(): Promise<void> {
    let round = this.syncNext;
    if (!round) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((ok, fail) => {
        resolve = ok;
        reject = fail;
      });
      promise.catch(() => {});
      round = this.syncNext = { promise, resolve, reject };
      // the round starts once the requests that arrived with this one have joined it
      if (!this.syncing) {
        this.syncing = true;
        setImmediate(() => void this.runSync());
      }
    }
    return round.promise;
  }

  private async runSync(): Promise<void> {
    this.syncing = true;
    while (this.syncNext) {
      const round = this.syncNext;
      this.syncNext = undefined;
      try {
        const r = await this.call((o) => this.client.kv.range({ key: this.etcdKey(SYNC_KEY) }, o));
        await this.catchUp(Number(r.header.revision));
        round.resolve();
      } catch (e) {
        round.reject(e);
      }
    }
    this.syncing = false;
  }

  /** Waits until the cache reaches etcd revision `rev`; a marker write brings it there when the last changes were not ours to see. */
  private async catchUp(rev: number): Promise<void> {
    if (this.revision() >= rev) return;
    if (await super.waitFor(rev, CATCH_UP_QUIET_MS)) return;
    const p = await this.call((o) =>
      this.client.kv.put({ key: this.etcdKey(SYNC_KEY), value: Buffer.from(String(process.pid)) }, o),
    );
    const m = Number(p.header.revision);
    if (!(await super.waitFor(m, this.timeoutMs)))
      throw storageUnavailable(
        new Error(`the watch did not deliver revision ${m} within ${this.timeoutMs} ms`),
      );
  }

  override waitFor(rv: number, timeoutMs: number): Promise<boolean> {
    if (this.revision() >= rv) return Promise.resolve(true);
    const reached = super.waitFor(rv, timeoutMs);
    // the revision may be one of etcd's that touched other keys: learn where etcd is
    this.sync().catch(() => {});
    return reached;
  }

  /** The oldest revision a list can be served at: what etcd has not compacted. */
  oldestListable(): number {
    return this.compactRev;
  }

  /** Objects of a bucket (below a key prefix) as etcd had them at revision `rv`; ExpiredError once compacted. */
  async listAt(bucket: string, prefix: string, rv: number): Promise<StoredObject[]> {
    if (rv <= this.compactRev) throw new ExpiredError(String(rv));
    const start = this.etcdKey(prefix || `${bucket}/`);
    let r: Awaited<ReturnType<typeof this.client.kv.range>>;
    try {
      r = await this.client.kv.range(
        { key: start, range_end: prefixEnd(start), revision: rv },
        { deadline: new Date(Date.now() + this.timeoutMs) },
      );
    } catch (e) {
      if (/compacted/i.test((e as Error).message)) throw new ExpiredError(String(rv));
      throw storageUnavailable(e);
    }
    return r.kvs.map((kv) => {
      const key = this.storageKey(kv.key);
      const mod = Number(kv.mod_revision);
      return { key, rv: mod, obj: decode(kv, mod) };
    });
  }

  // ------------------------------------------------------------------ writes

  override async create(_bucket: string, key: string, obj: KObject): Promise<StoredObject> {
    const k = this.etcdKey(key);
    const r = await this.call((o) =>
      this.client.kv.txn(
        {
          compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
          success: [{ request_put: { key: k, value: encode(obj) } }],
          failure: [],
        },
        o,
      ),
    );
    const rev = Number(r.header.revision);
    if (!r.succeeded) {
      await this.catchUp(rev);
      throw new KeyExistsError(key);
    }
    return this.committed(key, obj, rev);
  }

  override async update(
    _bucket: string,
    key: string,
    obj: KObject,
    expectRv?: number,
  ): Promise<StoredObject> {
    const k = this.etcdKey(key);
    const { rev } = await this.onCurrent(key, expectRv, { request_put: { key: k, value: encode(obj) } });
    return this.committed(key, obj, rev);
  }

  override async delete(_bucket: string, key: string, expectRv?: number): Promise<StoredObject> {
    const { r, rev } = await this.onCurrent(key, expectRv, {
      request_delete_range: { key: this.etcdKey(key), prev_kv: true },
    });
    const prev = r.responses[0]?.response_delete_range?.prev_kvs[0];
    await this.reach(rev);
    const last = prev ? decode(prev, Number(prev.mod_revision)) : (this.get(key)?.obj ?? { metadata: {} });
    return { key, rv: rev, obj: { ...last, metadata: { ...last.metadata, resourceVersion: String(rev) } } };
  }

  /**
   * A transaction that applies `op` to an existing key, at mod revision `expectRv` when given;
   * refused: PreconditionError (another version) or KeyNotFoundError, once the cache holds
   * what refused it (a retry reads the newer state).
   */
  private async onCurrent(key: string, expectRv: number | undefined, op: IRequestOp) {
    const k = this.etcdKey(key);
    const r = await this.call((o) =>
      this.client.kv.txn(
        {
          compare:
            expectRv !== undefined
              ? [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectRv }]
              : [{ key: k, target: 'Version', result: 'Greater', version: 0 }],
          success: [op],
          failure: [{ request_range: { key: k, keys_only: true } }],
        },
        o,
      ),
    );
    const rev = Number(r.header.revision);
    if (!r.succeeded) {
      const exists = (r.responses[0]?.response_range?.kvs.length ?? 0) > 0;
      await this.catchUp(rev);
      throw exists ? new PreconditionError(key) : new KeyNotFoundError(key);
    }
    return { r, rev };
  }

  private async committed(key: string, obj: KObject, rev: number): Promise<StoredObject> {
    obj.metadata.resourceVersion = String(rev);
    if (this.revision() < rev) this.own.set(rev, obj);
    await this.reach(rev);
    this.own.delete(rev);
    return { key, rv: rev, obj: this.get(key)?.rv === rev ? this.get(key)!.obj : obj };
  }

  /** Waits for the cache to hold revision `rev` of a committed write (the write stands either way). */
  private async reach(rev: number): Promise<void> {
    if (this.revision() >= rev) return;
    if (!(await super.waitFor(rev, this.timeoutMs)))
      console.error(
        `orch storage: the etcd watch has not delivered revision ${rev} after ${this.timeoutMs} ms`,
      );
  }

  // ------------------------------------------------------------------ compaction

  /** The revision etcd was last compacted at (0: never). */
  compactedRevision(): number {
    return this.compactRev;
  }

  // ------------------------------------------------------------------ health

  private async checkHealth(): Promise<Error | undefined> {
    try {
      await this.client.kv.range(
        { key: this.etcdKey(SYNC_KEY), keys_only: true },
        { deadline: new Date(Date.now() + Math.min(this.timeoutMs, 2000)) },
      );
      if (!this.health?.message.startsWith('the watch')) this.health = undefined;
    } catch (e) {
      this.health = new Error(`etcd does not answer: ${(e as Error).message}`);
    }
    return this.health;
  }

  override failure(): Error | undefined {
    return this.health;
  }

  override probe(): Promise<Error | undefined> {
    const now = Date.now();
    if (!this.probing || now - this.probing.at >= PROBE_EVERY_MS)
      this.probing = { at: now, done: this.checkHealth() };
    // what is known once it is done (a failed call or the watch may have said more since)
    return this.probing.done.then(() => this.health);
  }

  override async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.compactTimer);
    await this.watcher?.cancel().catch(() => {});
    this.client.close();
    await super.close();
  }
}
