// The store's watch verb, after doc1's watch table: the initial state, the changes after
// a version, bookmarks, and the watch's end.
import { errors } from '../errors/status.ts';
import {
  type ChangeEvent,
  ExpiredError,
  type KObject,
  type StoredObject,
  type WatchScope,
} from '../storage/types.ts';
import { listOptionsInvalid, parseRv, tooLargeResourceVersion, validateListOptions } from './list-options.ts';
import type { StoreCore } from './store-core.ts';
import type { WatchParams, WatchSink } from './store-types.ts';

/** A watch that asked for bookmarks gets one this long before its end (kube-apiserver 1.28: 2 s). */
const PRE_TIMEOUT_BOOKMARK_MS = 2000;

/** A DELETED event for an object that left a watch's selection: the old object at the event's version. */
const leftSelection = new WeakMap<ChangeEvent, KObject>();
function previousAtEvent(ev: ChangeEvent): KObject {
  let o = leftSelection.get(ev);
  if (!o) {
    const prev = ev.prev!;
    o = { ...prev, metadata: { ...prev.metadata, resourceVersion: String(ev.rv) } };
    leftSelection.set(ev, o);
  }
  return o;
}

/**
 * watch, after doc1's watch table: rv unset = Get State and Start at Most Recent, 0 = Get
 * State and Start at Any (synthetic ADDED events for the current state, then changes);
 * other = Start at Exact (changes after that version only; 200 then an ERROR event with a
 * 410 when it is older than the history). With the WatchList gate, sendInitialEvents=true
 * streams the state at a version not older than rv, then (allowWatchBookmarks) a BOOKMARK
 * annotated `orch.io/initial-events-end`, then changes. Returns the cancel function.
 */
export function startWatch(store: StoreCore, namespace: string, p: WatchParams, sink: WatchSink): () => void {
  const { labels, fields } = store.parseSelectorSyntax(p);
  const causes = validateListOptions(p, true, store.opts.gates.WatchList);
  if (causes.length) throw listOptionsInvalid(causes);
  store.checkFieldLabels(fields);
  const rv = p.resourceVersion ?? '';
  const rvNum = rv === '' ? undefined : parseRv(rv);
  const fieldEq = (f: string) => fields.find((r) => r.field === f && r.op === '=')?.value;
  if (p.name !== undefined && fields.length > 0 && fieldEq('metadata.name') !== p.name)
    throw errors.badRequest("fieldSelector metadata.name doesn't match requested name");
  const selected = store.matcherOf(labels, fields);
  const oneName = p.name;
  const match = oneName === undefined ? selected : (o: KObject) => o.metadata.name === oneName && selected(o);

  // What the storage index can narrow the watch to: one object, one namespace, or all.
  const ns = store.def.namespaced ? namespace || fieldEq('metadata.namespace') : '';
  const name = oneName ?? fieldEq('metadata.name');
  const scope: WatchScope =
    ns !== undefined && name !== undefined
      ? { key: store.key(ns, name) }
      : ns
        ? { prefix: store.prefix(ns) }
        : {};
  return new StoreWatch(store, namespace, p, sink, match, scope).start(rvNum);
}

/** One open watch: what it has been sent, and its timers. */
class StoreWatch {
  private stopped = false;
  private cancel = () => {};
  private live = false;
  /** Changes at or before this version are not sent (a watch from a version not reached yet). */
  private from = 0;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private bookmarkTimer: NodeJS.Timeout | undefined;
  private forget: () => unknown = () => undefined;
  /** When the watch ends (ms since the epoch), once its timeout is set. */
  private end = 0;
  /** Whether the bookmark timer set is the one two seconds before the end. */
  private lastBookmark = false;

  constructor(
    private readonly store: StoreCore,
    private readonly namespace: string,
    private readonly p: WatchParams,
    private readonly sink: WatchSink,
    private readonly match: (o: KObject) => boolean,
    private readonly scope: WatchScope,
  ) {}

  readonly stop = () => {
    if (this.stopped) return;
    this.stopped = true;
    this.cancel();
    this.forget();
    clearTimeout(this.timeoutTimer);
    clearTimeout(this.bookmarkTimer);
  };

  private readonly finish = () => {
    this.stop();
    this.sink.end();
  };

  private readonly deliver = (ev: ChangeEvent) => {
    if (this.stopped || ev.rv <= this.from) return;
    // As Kubernetes' cache watcher: an object entering the selection is ADDED, one
    // leaving it is DELETED (its previous state at the event's version).
    const now = ev.type !== 'DELETED' && this.match(ev.obj);
    const was = ev.prev !== undefined && this.match(ev.prev);
    if (now) this.sink.event(was ? 'MODIFIED' : 'ADDED', ev.obj);
    else if (was) this.sink.event('DELETED', ev.type === 'DELETED' ? ev.obj : previousAtEvent(ev));
  };

  /** Subscribes to the changes after `fromRv`; throws ExpiredError when they are gone. */
  private subscribe(fromRv: number): void {
    const storage = this.store.storage;
    this.from = fromRv;
    this.cancel = storage.watch(
      this.store.bucket,
      Math.min(fromRv, storage.revision()),
      this.deliver,
      this.scope,
    );
    if (this.stopped) this.cancel();
    this.live = true;
  }

  /** Synthetic ADDED events for the current state, then the changes after it; returns its version. */
  private initialState(): number {
    const storage = this.store.storage;
    const at = storage.revision();
    let items: StoredObject[];
    if (this.scope.key !== undefined) {
      const o = storage.get(this.scope.key);
      items = o ? [o] : [];
    } else items = storage.list(this.store.bucket, this.scope.prefix ?? this.store.prefix(this.namespace));
    for (const o of items) {
      if (this.stopped) return at;
      if (this.match(o.obj)) this.sink.event('ADDED', o.obj);
    }
    if (!this.stopped) this.subscribe(at);
    return at;
  }

  private startAt(fromRv: number): void {
    try {
      this.subscribe(fromRv);
    } catch (e) {
      if (!(e instanceof ExpiredError)) throw e;
      this.sink.error(
        errors.gone(`too old resource version: ${fromRv} (${this.store.storage.oldestRetained()})`),
      );
      this.finish();
    }
  }

  /** The initial state and the changes the request asks for, then the watch's timers; returns stop. */
  start(rvNum: number | undefined): () => void {
    const p = this.p;
    if (p.sendInitialEvents === true) this.sendInitialEvents(rvNum ?? 0);
    else if (p.sendInitialEvents === false) {
      // no initial state: unset and 0 start now, X starts exactly at X
      this.startAt(rvNum ? rvNum : this.store.storage.revision());
    } else if (!rvNum) {
      this.initialState();
    } else {
      this.startAt(rvNum);
    }
    if (this.stopped) return this.stop;
    this.armTimers();
    return this.stop;
  }

  /**
   * NotOlderThan (validated before): unset = a consistent read of the current state; 0 = any
   * state; X = once the state is at least X (504 as an ERROR event otherwise).
   */
  private sendInitialEvents(want: number): void {
    const storage = this.store.storage;
    const go = () => {
      const at = this.initialState();
      if (!this.stopped && this.p.allowWatchBookmarks) this.sink.bookmark(String(at), true);
    };
    if (want <= storage.revision()) go();
    else
      void storage.waitFor(want, this.store.opts.futureRvWaitMs).then((ok) => {
        if (this.stopped) return;
        if (ok) go();
        else {
          this.sink.error(tooLargeResourceVersion(want, storage.revision()));
          this.finish();
        }
      });
  }

  /** The watch's end, its end at shutdown, and its bookmarks. */
  private armTimers(): void {
    const { store, p, sink } = this;
    const requested = p.timeoutSeconds ?? 0;
    const max = store.opts.watchTimeoutSeconds;
    const timeout = requested > 0 ? Math.min(requested, max) : max;
    this.timeoutTimer = setTimeout(this.finish, timeout * 1000);
    if (store.opts.watches)
      this.forget = store.opts.watches.add(() => {
        // at shutdown: the revision every change up to which this watcher has been handed
        const r = store.storage.revision();
        if (p.allowWatchBookmarks && this.live && r >= this.from) sink.bookmark(String(r), false);
        this.finish();
      });
    if (p.allowWatchBookmarks) {
      // Every change up to the current revision has been handed to this watcher (writes
      // dispatch synchronously), so the current revision is a safe bookmark. Sent every
      // interval and, as kube-apiserver 1.28 does (the text is silent on when), once more two
      // seconds before the watch's end, so a client resumes from a version as new as can be;
      // none once that moment has passed.
      this.end = Date.now() + timeout * 1000;
      this.schedule();
    }
  }

  private schedule(): void {
    const untilLast = this.end - PRE_TIMEOUT_BOOKMARK_MS - Date.now();
    if (this.stopped || untilLast <= 0) return;
    const interval = this.store.opts.bookmarkIntervalMs;
    // the one before the end is the last: a timer may fire a millisecond before Date.now()
    // reaches its moment, and scheduling again then sent it twice
    this.lastBookmark = untilLast <= interval;
    this.bookmarkTimer = setTimeout(this.tick, Math.min(interval, untilLast));
  }

  private readonly tick = () => {
    if (this.stopped) return;
    const r = this.store.storage.revision();
    if (this.live && r >= this.from) this.sink.bookmark(String(r), false);
    if (!this.lastBookmark) this.schedule();
  };
}
