// The generic store's parameter and result types: what the handlers and controllers pass
// to a verb and get back from it.
import type { StatusError } from '../errors/status.ts';
import type { KObject } from '../storage/types.ts';
import type { ActiveWatches } from './active-watches.ts';

export interface StoreOptions {
  /** How long get/list (and a watch with sendInitialEvents) wait for an unknown (future) resource version before 504. */
  futureRvWaitMs: number;
  /** Lifetime of continue tokens. */
  continueTtlMs: number;
  /** Default and maximum watch duration (seconds) when timeoutSeconds is absent. */
  watchTimeoutSeconds: number;
  /** Interval between BOOKMARK events when the client asks for them. */
  bookmarkIntervalMs: number;
  /** Feature gates. */
  gates: { WatchList: boolean; APIListChunking: boolean };
  now?: () => number;
  /** The server's open watches (ended together at shutdown). */
  watches?: ActiveWatches;
}

export interface ListParams {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
  /** A watch parameter; a list that carries it is refused (422), as Kubernetes does. */
  sendInitialEvents?: boolean;
}

export interface ListResult {
  items: KObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchParams extends ListParams {
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  /** Watch of one object (resource path with watch=1). */
  name?: string;
}

export interface WatchSink {
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KObject): void;
  bookmark(rv: string, initialEventsEnd: boolean): void;
  error(err: StatusError): void;
  end(): void;
}

/** The managedFields a server-side apply computed (prepare functions may reset metadata). */
export interface AppliedOwnership {
  managedFields?: unknown[];
}

export interface DeleteParams {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
}

export interface Namespaces {
  /** undefined when missing; the object otherwise. */
  get(name: string): KObject | undefined;
}
