// A view of the storage in another resource's shape: objects are converted from the storage
// resource's shape as they are read (get, list, watch) and into it as they are written.
// Conversions of stored objects are cached per object, so the watchers of a change share
// one converted object (and its serialized bytes).
import type {
  ChangeEvent,
  KObject,
  Storage,
  StoredObject,
  WatchListener,
  WatchScope,
} from '../storage/types.ts';
import type { StoredAs } from './types.ts';

export class ConvertingStorage implements Storage {
  private readonly objects = new WeakMap<KObject, KObject>();
  private readonly events = new WeakMap<ChangeEvent, ChangeEvent>();

  constructor(
    private readonly inner: Storage,
    private readonly conv: StoredAs,
  ) {}

  private out(o: KObject): KObject {
    let hit = this.objects.get(o);
    if (!hit) {
      hit = this.conv.fromStorage(o);
      this.objects.set(o, hit);
    }
    return hit;
  }

  private stored(s: StoredObject): StoredObject {
    return { key: s.key, rv: s.rv, obj: this.out(s.obj) };
  }

  revision(): number {
    return this.inner.revision();
  }
  oldestRetained(): number {
    return this.inner.oldestRetained();
  }
  get(key: string): StoredObject | undefined {
    const s = this.inner.get(key);
    return s && this.stored(s);
  }
  getAt(key: string, rv: number): KObject | undefined {
    const o = this.inner.getAt(key, rv);
    return o && this.out(o);
  }
  list(bucket: string, prefix: string, rv?: number): StoredObject[] {
    return this.inner.list(bucket, prefix, rv).map((s) => this.stored(s));
  }
  async create(bucket: string, key: string, obj: KObject): Promise<StoredObject> {
    return this.stored(await this.inner.create(bucket, key, this.conv.toStorage(obj)));
  }
  async update(bucket: string, key: string, obj: KObject, expectRv?: number): Promise<StoredObject> {
    return this.stored(await this.inner.update(bucket, key, this.conv.toStorage(obj), expectRv));
  }
  async delete(bucket: string, key: string, expectRv?: number): Promise<StoredObject> {
    return this.stored(await this.inner.delete(bucket, key, expectRv));
  }
  watch(bucket: string, fromRv: number, listener: WatchListener, scope?: WatchScope): () => void {
    return this.inner.watch(
      bucket,
      fromRv,
      (ev) => {
        let e = this.events.get(ev);
        if (!e) {
          e = { ...ev, obj: this.out(ev.obj), prev: ev.prev && this.out(ev.prev) };
          this.events.set(ev, e);
        }
        listener(e);
      },
      scope,
    );
  }
  waitFor(rv: number, timeoutMs: number): Promise<boolean> {
    return this.inner.waitFor(rv, timeoutMs);
  }
  close(): Promise<void> {
    // the storage belongs to the server, not to this view
    return Promise.resolve();
  }
  failure(): Error | undefined {
    return this.inner.failure();
  }
  sync(): Promise<void> {
    return this.inner.sync ? this.inner.sync() : Promise.resolve();
  }
  async listAt(bucket: string, prefix: string, rv: number): Promise<StoredObject[]> {
    if (!this.inner.listAt) return this.list(bucket, prefix, rv);
    return (await this.inner.listAt(bucket, prefix, rv)).map((s) => this.stored(s));
  }
  oldestListable(): number {
    return this.inner.oldestListable ? this.inner.oldestListable() : this.inner.oldestRetained();
  }
}
