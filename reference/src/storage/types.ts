// Storage layer contract: get, list, watch and guaranteed update with preconditions,
// behind one interface. Keys look like `<bucket>/<namespace>/<name>` where the bucket is
// `<group>/<resource>`; cluster-scoped objects use an empty namespace segment.

export type { KObject, ObjectMeta } from '../util/kobject.ts';

import type { KObject } from '../util/kobject.ts';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ChangeEvent {
  rv: number;
  type: EventType;
  bucket: string;
  key: string;
  /** The object after the change (for DELETED: the last state, with the deletion's rv). */
  obj: KObject;
  /** The object before the change; undefined for ADDED. */
  prev?: KObject;
  /** Milliseconds since the epoch. */
  time: number;
}

export interface StoredObject {
  key: string;
  rv: number;
  obj: KObject;
}

export type WatchListener = (ev: ChangeEvent) => void;

/** What a watch covers inside its bucket: everything, one namespace, or one object. */
export interface WatchScope {
  /** `<bucket>/<namespace>/`: the changes of one namespace. */
  prefix?: string;
  /** `<bucket>/<namespace>/<name>`: the changes of one object. */
  key?: string;
}

export interface Storage {
  /** Highest revision handed out so far. */
  revision(): number;
  /** Oldest revision R such that every change after R is still in the history. */
  oldestRetained(): number;
  get(key: string): StoredObject | undefined;
  /** The object as it was at revision `rv` (exclusive of later changes); throws ExpiredError when too old. */
  getAt(key: string, rv: number): KObject | undefined;
  /** All objects of a bucket (optionally below a key prefix) at revision `rv` (default now), sorted by key. */
  list(bucket: string, prefix: string, rv?: number): StoredObject[];
  create(bucket: string, key: string, obj: KObject): Promise<StoredObject>;
  /** Replaces the object; `expectRv` (when set) must match the stored revision. */
  update(bucket: string, key: string, obj: KObject, expectRv?: number): Promise<StoredObject>;
  delete(bucket: string, key: string, expectRv?: number): Promise<StoredObject>;
  /**
   * Changes of a bucket after `fromRv`, replayed then live. Returns a cancel function. Throws
   * ExpiredError when too old. `scope` narrows the changes to one namespace or one key (an
   * index: a change costs nothing for watchers of other namespaces or objects).
   */
  watch(bucket: string, fromRv: number, listener: WatchListener, scope?: WatchScope): () => void;
  /** Resolves when the revision reaches `rv`, or false after `timeoutMs`. */
  waitFor(rv: number, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
  /** Why the storage refuses writes (its log failed), or undefined while it works. */
  failure(): Error | undefined;
  /**
   * A health probe: checks now that writes can still be made durable (a storage that finds they
   * cannot fails itself) and answers as failure() does. A storage may answer calls close
   * together with its last probe's result (etcd: one probe a second).
   */
  probe?(): Error | undefined | Promise<Error | undefined>;
  /**
   * A store shared with other servers (etcd): resolves once this view holds every change
   * committed anywhere before the call. Absent when this process is the only writer.
   */
  sync?(): Promise<void>;
  /** The objects as they were at revision `rv`, when `list` has no history that old; ExpiredError when gone. */
  listAt?(bucket: string, prefix: string, rv: number): Promise<StoredObject[]>;
  /** The oldest revision `listAt` can serve (default: oldestRetained). */
  oldestListable?(): number;
}

export class ExpiredError extends Error {}
export class KeyExistsError extends Error {}
export class KeyNotFoundError extends Error {}
export class PreconditionError extends Error {}
