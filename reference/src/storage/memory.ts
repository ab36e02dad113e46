// An MVCC store held in memory. Past states inside the retained history are rebuilt by
// undoing later changes; a write-ahead log (./wal.ts) makes it durable when attached.

import { asChange, objectOf, type PastChange, pastOf, supersededOf } from './past.ts';
import {
  type ChangeEvent,
  ExpiredError,
  KeyExistsError,
  KeyNotFoundError,
  type KObject,
  PreconditionError,
  type Storage,
  type StoredObject,
  type WatchListener,
  type WatchScope,
} from './types.ts';

export interface Persistence {
  /** Records a change; resolves with `value` when it is durable. Called synchronously in write order. */
  append<T>(ev: ChangeEvent, value: T): Promise<T>;
  close(): Promise<void>;
  /** Why the log refuses writes (a failed write or fdatasync), or undefined while it works. */
  failure(): Error | undefined;
  /** Checks now that the log can still make writes durable (failing it when not); its failure. */
  probe?(): Error | undefined;
}

export interface MemoryStoreOptions {
  /** How long changes stay in the history (watch from an old version, Exact reads). */
  historyMs?: number;
  /** Upper bound on history length, whatever its age. */
  historyMax?: number;
  now?: () => number;
}

interface Bucket {
  objects: Map<string, StoredObject>;
  sorted: string[] | null;
  /** Watchers of the whole bucket. */
  watchers: Set<WatchListener>;
  /** Watchers of one namespace, by `<bucket>/<namespace>/`. */
  byPrefix: Map<string, Set<WatchListener>>;
  /** Watchers of one object, by key. */
  byKey: Map<string, Set<WatchListener>>;
}

export class MemoryStore implements Storage {
  private rev = 0;
  private floor = 0;
  private readonly buckets = new Map<string, Bucket>();
  /** The bucket asked for last, and its name (see bucket()). */
  private lastBucket?: Bucket;
  private lastBucketName?: string;
  /**
   * Changes in revision order. Slots before `historyStart` have left the window: they are
   * cleared at once (undefined) so that the changes and their bytes can be collected, and the
   * slots themselves go once they are half the array. Objects that are no longer the current
   * state are kept as their JSON bytes (./past.ts).
   */
  private readonly history: (PastChange | undefined)[] = [];
  private historyStart = 0;
  /** Trims the history while no write comes (memory must fall back when idle); set while it is not empty. */
  private trimTimer?: ReturnType<typeof setInterval>;
  /** Replays of the history in progress (a listener could write): the history is not trimmed meanwhile. */
  private replaying = 0;
  private readonly waiters: { rv: number; resolve: (ok: boolean) => void }[] = [];
  private persistence?: Persistence;
  private readonly historyMs: number;
  private readonly historyMax: number;
  private readonly now: () => number;

  constructor(opts: MemoryStoreOptions = {}) {
    this.historyMs = opts.historyMs ?? 5 * 60_000;
    this.historyMax = opts.historyMax ?? 1_000_000;
    this.now = opts.now ?? Date.now;
  }

  failure(): Error | undefined {
    return this.persistence?.failure();
  }

  probe(): Error | undefined | Promise<Error | undefined> {
    return this.persistence?.probe ? this.persistence.probe() : this.failure();
  }

  attach(p: Persistence): void {
    this.persistence = p;
  }

  /** Replays a change read back from disk (no persistence, no watchers). */
  restore(ev: ChangeEvent): void {
    if (ev.type !== 'ADDED') ev.prev = this.get(ev.key)?.obj;
    this.applyChange(ev);
    this.rev = Math.max(this.rev, ev.rv);
    this.pushHistory(ev);
  }

  /** Sets the revision after loading a snapshot; history before it is unknown. */
  restoreRevision(rv: number): void {
    this.rev = Math.max(this.rev, rv);
    this.floor = Math.max(this.floor, rv);
  }

  snapshot(): { rev: number; objects: StoredObject[] } {
    const objects: StoredObject[] = [];
    for (const b of this.buckets.values()) for (const o of b.objects.values()) objects.push(o);
    return { rev: this.rev, objects };
  }

  loadObject(bucket: string, o: StoredObject): void {
    this.bucket(bucket).objects.set(o.key, o);
    this.bucket(bucket).sorted = null;
  }

  revision(): number {
    return this.rev;
  }

  oldestRetained(): number {
    this.trimHistory();
    return this.historyStart < this.history.length
      ? Math.max(this.floor, this.history[this.historyStart]!.rv - 1)
      : Math.max(this.floor, this.rev);
  }

  get(key: string): StoredObject | undefined {
    // a key of the bucket asked for last (`<group>/<resource>/...`): no bucket name cut out of it
    const last = this.lastBucketName;
    if (last !== undefined && key.charCodeAt(last.length) === 47 && key.startsWith(last))
      return this.lastBucket!.objects.get(key);
    return this.bucket(bucketOf(key)).objects.get(key);
  }

  getAt(key: string, rv: number): KObject | undefined {
    if (rv >= this.rev) return this.get(key)?.obj;
    this.checkRetained(rv);
    let state: KObject | undefined = this.get(key)?.obj;
    for (let i = this.history.length - 1; i >= this.historyStart; i--) {
      const ev = this.history[i]!;
      if (ev.rv <= rv) break;
      if (ev.key === key)
        state = ev.type === 'ADDED' || ev.prev === undefined ? undefined : objectOf(ev.prev);
    }
    return state;
  }

  list(bucketName: string, prefix: string, rv?: number): StoredObject[] {
    const b = this.bucket(bucketName);
    if (rv === undefined || rv >= this.rev) {
      const keys = this.sortedKeys(b);
      const out: StoredObject[] = [];
      let i = prefix ? lowerBound(keys, prefix) : 0;
      for (; i < keys.length; i++) {
        const k = keys[i]!;
        if (prefix && !k.startsWith(prefix)) break;
        out.push(b.objects.get(k)!);
      }
      return out;
    }
    this.checkRetained(rv);
    const state = new Map<string, StoredObject | undefined>();
    for (let i = this.history.length - 1; i >= this.historyStart; i--) {
      const ev = this.history[i]!;
      if (ev.rv <= rv) break;
      if (ev.bucket !== bucketName || (prefix && !ev.key.startsWith(prefix))) continue;
      const prev = ev.type === 'ADDED' || !ev.prev ? undefined : objectOf(ev.prev);
      state.set(ev.key, prev && { key: ev.key, obj: prev, rv: Number(prev.metadata.resourceVersion) });
    }
    const out: StoredObject[] = [];
    for (const o of b.objects.values()) {
      if (prefix && !o.key.startsWith(prefix)) continue;
      if (!state.has(o.key)) out.push(o);
    }
    for (const v of state.values()) if (v) out.push(v);
    out.sort((a, b2) => (a.key < b2.key ? -1 : a.key > b2.key ? 1 : 0));
    return out;
  }

  create(bucket: string, key: string, obj: KObject): Promise<StoredObject> {
    // not an async function: its promise would be one more of every create's
    if (this.bucket(bucket).objects.has(key)) return Promise.reject(new KeyExistsError(key));
    try {
      return this.commit('ADDED', bucket, key, obj, undefined);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  async update(bucket: string, key: string, obj: KObject, expectRv?: number): Promise<StoredObject> {
    const cur = this.bucket(bucket).objects.get(key);
    if (!cur) throw new KeyNotFoundError(key);
    if (expectRv !== undefined && cur.rv !== expectRv) throw new PreconditionError(key);
    return this.commit('MODIFIED', bucket, key, obj, cur.obj);
  }

  async delete(bucket: string, key: string, expectRv?: number): Promise<StoredObject> {
    const cur = this.bucket(bucket).objects.get(key);
    if (!cur) throw new KeyNotFoundError(key);
    if (expectRv !== undefined && cur.rv !== expectRv) throw new PreconditionError(key);
    return this.commit('DELETED', bucket, key, cur.obj, cur.obj);
  }

  watch(bucketName: string, fromRv: number, listener: WatchListener, scope: WatchScope = {}): () => void {
    let { prefix, key } = scope;
    if (prefix === `${bucketName}/`) prefix = undefined;
    if (prefix !== undefined && nsPrefixOf(bucketName, `${prefix}x`) !== prefix) {
      // not a namespace prefix: watch the bucket and filter
      const p = prefix;
      const inner = listener;
      listener = (ev) => {
        if (ev.key.startsWith(p)) inner(ev);
      };
      prefix = undefined;
    }
    const inScope = (k: string) =>
      key !== undefined ? k === key : prefix === undefined || k.startsWith(prefix);
    if (fromRv < this.rev) {
      this.checkRetained(fromRv);
      // the history is in revision order: start at the first change after fromRv
      let lo = this.historyStart;
      let hi = this.history.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.history[mid]!.rv <= fromRv) lo = mid + 1;
        else hi = mid;
      }
      this.replaying++;
      try {
        for (let i = lo; i < this.history.length; i++) {
          const ev = this.history[i]!;
          if (ev.bucket === bucketName && inScope(ev.key)) listener(asChange(ev));
        }
      } finally {
        this.replaying--;
      }
    }
    const b = this.bucket(bucketName);
    let set: Set<WatchListener>;
    let drop = () => {};
    if (key !== undefined || prefix !== undefined) {
      const index = key !== undefined ? b.byKey : b.byPrefix;
      const k = (key ?? prefix)!;
      let s0 = index.get(k);
      if (!s0) index.set(k, (s0 = new Set()));
      set = s0;
      drop = () => {
        if (set.size === 0 && index.get(k) === set) index.delete(k);
      };
    } else set = b.watchers;
    set.add(listener);
    return () => {
      set.delete(listener);
      drop();
    };
  }

  waitFor(rv: number, timeoutMs: number): Promise<boolean> {
    if (this.rev >= rv) return Promise.resolve(true);
    return new Promise((resolve) => {
      const w = { rv, resolve };
      this.waiters.push(w);
      const t = setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(this.rev >= rv);
      }, timeoutMs);
      t.unref?.();
      w.resolve = (ok) => {
        clearTimeout(t);
        resolve(ok);
      };
    });
  }

  async close(): Promise<void> {
    clearInterval(this.trimTimer);
    this.trimTimer = undefined;
    for (const b of this.buckets.values()) {
      b.watchers.clear();
      b.byPrefix.clear();
      b.byKey.clear();
    }
    await this.persistence?.close();
  }

  private commit(
    type: ChangeEvent['type'],
    bucket: string,
    key: string,
    obj: KObject,
    prev: KObject | undefined,
  ): Promise<StoredObject> {
    const rv = this.rev + 1;
    const rvs = String(rv);
    const stored = type === 'DELETED' ? { ...obj, metadata: { ...obj.metadata, resourceVersion: rvs } } : obj;
    stored.metadata.resourceVersion = rvs;
    const ev: ChangeEvent = { rv, type, bucket, key, obj: stored, prev, time: this.now() };
    // The change is written to the log before it becomes visible; the reply waits for
    // the batched fsync (see wal.ts).
    const result: StoredObject = { key, rv, obj: stored };
    const durable = this.persistence?.append(ev, result);
    this.publish(ev);
    return durable ?? Promise.resolve(result);
  }

  /**
   * Makes a change visible: the state, the history, the watchers, and whoever waits for its
   * revision. A store whose revisions come from elsewhere (./etcd/store.ts) calls it with
   * changes in revision order; `ev.prev` is filled from the state when missing.
   */
  protected publish(ev: ChangeEvent): void {
    if (ev.type !== 'ADDED' && !ev.prev) ev.prev = this.get(ev.key)?.obj;
    this.rev = Math.max(this.rev, ev.rv);
    this.applyChange(ev);
    this.pushHistory(ev);
    this.dispatch(this.bucket(ev.bucket), ev);
    if (this.waiters.length) this.wake();
    this.keepAsBytes(ev);
  }

  /**
   * Once a change is out (its watchers have it, and their bytes of its objects), what it made
   * past is kept as bytes: its previous object (and a deletion's object) in its own slot, and
   * the object of the change that made the previous state, found by its revision.
   */
  private keepAsBytes(ev: ChangeEvent): void {
    if (ev.type === 'ADDED') return;
    const h = this.history;
    const last = h.length - 1;
    if (h[last] === ev) h[last] = pastOf(ev);
    if (!ev.prev) return;
    const rv = Number(ev.prev.metadata.resourceVersion);
    let lo = this.historyStart;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (h[mid]!.rv < rv) lo = mid + 1;
      else hi = mid;
    }
    const made = h[lo];
    if (lo < last && made && made.rv === rv && made.key === ev.key && made.obj === ev.prev)
      h[lo] = supersededOf(made);
  }

  /** Moves the revision to `rv` (changes up to it that this store holds none of: other keys). */
  protected advanceTo(rv: number): void {
    if (rv <= this.rev) return;
    this.rev = rv;
    if (this.waiters.length) this.wake();
  }

  /** Forgets the history up to `rv` (the backing store compacted it): older versions are gone. */
  protected forgetBefore(rv: number): void {
    this.floor = Math.max(this.floor, rv);
    if (this.replaying) return;
    const h = this.history;
    let start = this.historyStart;
    while (start < h.length && h[start]!.rv <= rv) {
      h[start] = undefined;
      start++;
    }
    this.historyStart = start;
    this.trimHistory();
  }

  /** Hands a change to the watchers of its bucket, of its namespace and of its key only. */
  private dispatch(b: Bucket, ev: ChangeEvent): void {
    const call = (set: Set<WatchListener> | undefined) => {
      if (!set) return;
      for (const w of set) {
        try {
          w(ev);
        } catch (e) {
          // one broken watcher must not fail the write or starve the others
          set.delete(w);
          console.error('orch storage: watcher failed:', e);
        }
      }
    };
    call(b.watchers);
    if (b.byPrefix.size) call(b.byPrefix.get(nsPrefixOf(ev.bucket, ev.key)));
    if (b.byKey.size) call(b.byKey.get(ev.key));
  }

  private applyChange(ev: ChangeEvent): void {
    const b = this.bucket(ev.bucket);
    if (ev.type === 'DELETED') {
      if (b.objects.delete(ev.key)) b.sorted = null;
    } else {
      if (!b.objects.has(ev.key)) b.sorted = null;
      b.objects.set(ev.key, { key: ev.key, rv: ev.rv, obj: ev.obj });
    }
  }

  private pushHistory(ev: ChangeEvent): void {
    this.history.push(ev);
    // Every write drops what left the window (only the oldest changes are looked at), and a
    // timer does it while no write comes.
    this.trimHistory();
    if (!this.trimTimer && this.historyStart < this.history.length) {
      const every = Math.min(10_000, Math.max(100, this.historyMs / 10));
      this.trimTimer = setInterval(() => this.trimHistory(), every);
      this.trimTimer.unref?.();
    }
  }

  private trimHistory(): void {
    if (this.replaying) return;
    const h = this.history;
    const cutoff = this.now() - this.historyMs;
    let start = this.historyStart;
    while (start < h.length && (h[start]!.time < cutoff || h.length - start > this.historyMax)) {
      this.floor = h[start]!.rv;
      h[start] = undefined;
      start++;
    }
    if (start > 0 && start * 2 >= h.length) {
      // each slot is moved at most once per slot cleared: constant time per change
      h.splice(0, start);
      start = 0;
    }
    this.historyStart = start;
    if (h.length === 0 && this.trimTimer) {
      clearInterval(this.trimTimer);
      this.trimTimer = undefined;
    }
  }

  private checkRetained(rv: number): void {
    if (rv < this.oldestRetained()) throw new ExpiredError(String(rv));
  }

  private wake(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (this.rev >= w.rv) {
        this.waiters.splice(i, 1);
        w.resolve(true);
      }
    }
  }

  /** A bucket by name (made on first use, never removed); a write asks for its own several times. */
  private bucket(name: string): Bucket {
    if (name === this.lastBucketName) return this.lastBucket!;
    let b = this.buckets.get(name);
    if (!b) {
      b = { objects: new Map(), sorted: null, watchers: new Set(), byPrefix: new Map(), byKey: new Map() };
      this.buckets.set(name, b);
    }
    this.lastBucket = b;
    this.lastBucketName = name;
    return b;
  }

  private sortedKeys(b: Bucket): string[] {
    if (!b.sorted) b.sorted = [...b.objects.keys()].sort();
    return b.sorted;
  }
}

export function bucketOf(key: string): string {
  // `<group>/<resource>/<namespace>/<name>`: the bucket is the first two segments.
  const i = key.indexOf('/');
  const j = key.indexOf('/', i + 1);
  return key.slice(0, j);
}

/** `<bucket>/<namespace>/` of a key `<bucket>/<namespace>/<name>`. */
function nsPrefixOf(bucket: string, key: string): string {
  const j = key.indexOf('/', bucket.length + 1);
  return j < 0 ? key : key.slice(0, j + 1);
}

function lowerBound(keys: string[], prefix: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
