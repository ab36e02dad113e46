// The generic store: every verb of every kind, on top of the storage layer, with the
// kind's strategy for what differs. Resource-version semantics (doc1's three tables),
// chunked lists, watch filtering and two-phase deletion live here.
import { randomBytes, randomUUID } from 'node:crypto';
import { errors, type Status, StatusError, type StatusCause } from '../errors/status.ts';
import { type FieldSelector, matchFields, parseFieldSelector } from '../selectors/fields.ts';
import { type LabelSelector, matchLabels, parseLabelSelector } from '../selectors/labels.ts';
import {
  type ChangeEvent,
  ExpiredError,
  type KObject,
  KeyExistsError,
  KeyNotFoundError,
  PreconditionError,
  type Storage,
  type StoredObject,
  type WatchScope,
} from '../storage/types.ts';
import {
  type RequestContext,
  type ResourceDef,
  type WriteAdmissionRequest,
  apiVersionOf,
  bucketName,
  storageVersionOf,
} from './types.ts';
import { missingRequired } from '../schema/decode.ts';
import { recordWrite } from './field-manager.ts';
import { checkPreconditions } from './preconditions.ts';
import { gcFinalizers } from './gc-finalizers.ts';
import { clone, deepEqual } from '../util/object.ts';
import { rfc3339 } from '../util/time.ts';
import type { ActiveWatches } from './active-watches.ts';
import { type NameRule, validateMeta } from './validation.ts';

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

// ---------------------------------------------------------------- continue tokens

/**
 * What a continue token remembers: the revision of the snapshot (-1: the latest, handed
 * out with a 410 for an expired token, as Kubernetes does), the last key returned relative
 * to the list's key prefix, and when the token was issued (its lifetime runs from there).
 */
export interface Continue {
  rv: number;
  start: string;
  ts: number;
}

/** A watch that asked for bookmarks gets one this long before its end (kube-apiserver 1.28: 2 s). */
const PRE_TIMEOUT_BOOKMARK_MS = 2000;
const CONTINUE_VERSION = 'meta.orch.io/v1';

export function encodeContinue(c: Continue): string {
  return Buffer.from(JSON.stringify({ v: CONTINUE_VERSION, rv: c.rv, start: c.start, ts: c.ts })).toString(
    'base64url',
  );
}

/** Decodes a continue token; a malformed one is a 400 with Kubernetes' wording. */
export function decodeContinue(token: string): Continue {
  const invalid = (why: string) =>
    errors.badRequest(`invalid continue token: continue key is not valid${why}`);
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(token)) throw invalid(': illegal base64 data');
  let j: unknown;
  try {
    j = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid(': not a JSON document');
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j)) throw invalid(': not a JSON object');
  const o = j as Record<string, unknown>;
  if (o.v !== CONTINUE_VERSION)
    throw invalid(`: server does not recognize this encoded version ${typeof o.v === 'string' ? o.v : ''}`);
  if (typeof o.rv !== 'number' || !Number.isSafeInteger(o.rv) || o.rv === 0 || o.rv < -1)
    throw invalid(`: incorrect encoded start resourceVersion (version ${CONTINUE_VERSION})`);
  if (typeof o.start !== 'string' || o.start === '')
    throw invalid(`: encoded start key empty (version ${CONTINUE_VERSION})`);
  if (o.start.split('/').some((seg) => seg === '.' || seg === '..')) throw invalid(`: ${o.start}`);
  if (typeof o.ts !== 'number' || !Number.isFinite(o.ts))
    throw invalid(`: issue time missing (version ${CONTINUE_VERSION})`);
  return { rv: o.rv, start: o.start, ts: o.ts };
}

const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter, or use the continue token in this response to retrieve the remainder of the ' +
  'results. Continuing with the provided token results in an inconsistent list - objects that were created, ' +
  'modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** 410 for an expired continue token; its `metadata.continue` goes on from the same key at the latest version. */
class ContinueExpiredError extends StatusError {
  constructor(readonly inconsistentContinue: string) {
    super(410, 'Expired', CONTINUE_EXPIRED);
  }
  override toStatus(): Status {
    const s = super.toStatus();
    s.metadata = { continue: this.inconsistentContinue };
    return s;
  }
}

// ---------------------------------------------------------------- errors of the read paths

export function parseRv(rv: string): number {
  if (!/^\d+$/.test(rv)) throw errors.badRequest(`invalid resource version: "${rv}"`);
  return Number(rv);
}

/** Kubernetes' storage.NewTooLargeResourceVersionError: 504 Timeout, retry after 1 s. */
function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError(
    504,
    'Timeout',
    `Timeout: Too large resource version: ${requested}, current: ${current}`,
    {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    },
    { 'Retry-After': '1' },
  );
}

const LIST_TOO_OLD = 'The resourceVersion for the provided list is too old.';

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

function notSupported(field: string, value: string, supported: string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
  };
}

/** What Kubernetes answers for invalid ListOptions: 422 Invalid on `ListOptions.meta.orch.io ""`. */
function listOptionsInvalid(causes: StatusCause[]): StatusError {
  const msgs = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const list = msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
  return new StatusError(422, 'Invalid', `ListOptions.meta.orch.io "" is invalid: ${list}`, {
    group: 'meta.orch.io',
    kind: 'ListOptions',
    causes,
  });
}

/**
 * Kubernetes' ValidateListOptions (1.28): the resourceVersionMatch combinations the list
 * table marks invalid, and the watch-list (sendInitialEvents) rules of a watch.
 */
export function validateListOptions(p: ListParams, watch: boolean, watchListGate: boolean): StatusCause[] {
  const errs: StatusCause[] = [];
  const match = p.resourceVersionMatch ?? '';
  if (watch) {
    if (p.sendInitialEvents !== undefined) {
      if (match !== 'NotOlderThan')
        errs.push(
          forbidden(
            'resourceVersionMatch',
            'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
          ),
        );
      if (!watchListGate)
        errs.push(
          forbidden(
            'sendInitialEvents',
            'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
          ),
        );
    }
    if (match) {
      if (p.sendInitialEvents === undefined)
        errs.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          ),
        );
      if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (p.continue)
        errs.push(
          forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
        );
    }
    return errs;
  }
  if (match) {
    if (!p.resourceVersion)
      errs.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        ),
      );
    if (p.continue)
      errs.push(
        forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
      );
    if (match !== 'Exact' && match !== 'NotOlderThan')
      errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && p.resourceVersion === '0')
      errs.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
      );
  }
  if (p.sendInitialEvents !== undefined)
    errs.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

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

export class GenericStore {
  readonly bucket: string;
  private readonly now: () => number;
  private readonly nameRule: NameRule;

  constructor(
    readonly def: ResourceDef,
    private readonly storage: Storage,
    private readonly namespaces: Namespaces,
    readonly opts: StoreOptions,
    nameRule: NameRule = 'subdomain',
  ) {
    this.bucket = bucketName(def);
    this.now = opts.now ?? Date.now;
    this.nameRule = nameRule;
  }

  key(namespace: string, name: string): string {
    return `${this.bucket}/${this.def.namespaced ? namespace : ''}/${name}`;
  }

  prefix(namespace: string): string {
    return namespace && this.def.namespaced ? `${this.bucket}/${namespace}/` : `${this.bucket}/`;
  }

  /** The presentations of a stored object in other versions (watchers share them, and their bytes). */
  private readonly presented = new WeakMap<KObject, Map<string, KObject>>();

  /**
   * A stored object as the client's version shows it: converted by the version's descriptor
   * when it has a conversion, else with that version's apiVersion and the kind.
   */
  present(obj: KObject, version: string): KObject {
    const apiVersion = apiVersionOf(this.def.group, version);
    if (obj.apiVersion === apiVersion && obj.kind === this.def.kind) return obj;
    let byVersion = this.presented.get(obj);
    const hit = byVersion?.get(version);
    if (hit) return hit;
    const convert = this.def.versionInfo?.[version]?.fromStorage;
    const { apiVersion: _a, kind: _k, ...rest } = convert ? convert(obj) : obj;
    const out = { apiVersion, kind: this.def.kind, ...rest } as KObject;
    if (!byVersion) this.presented.set(obj, (byVersion = new Map()));
    byVersion.set(version, out);
    return out;
  }

  /** A request's object in the storage version's shape, and the version it is now in. */
  private toStorage(obj: KObject, version: string): { obj: KObject; version: string } {
    const convert = this.def.versionInfo?.[version]?.toStorage;
    if (!convert) return { obj, version };
    return { obj: convert(obj), version: storageVersionOf(this.def) ?? version };
  }

  // ---------------------------------------------------------------- reads

  /** Not older than `rv`: waits briefly for a version not reached yet, then 504. */
  private async waitForRv(rv: number): Promise<void> {
    if (rv <= this.storage.revision()) return;
    const ok = await this.storage.waitFor(rv, this.opts.futureRvWaitMs);
    if (!ok) throw tooLargeResourceVersion(rv, this.storage.revision());
  }

  async get(namespace: string, name: string, resourceVersion?: string): Promise<KObject> {
    // get: unset = Most Recent; 0 = Any; other = Not older than. One store: the first two
    // are the current state; the third waits for the version when it is not reached yet.
    if (resourceVersion !== undefined && resourceVersion !== '') {
      const n = parseRv(resourceVersion);
      if (n !== 0) await this.waitForRv(n);
    }
    const live = this.def.strategy.live;
    const o = live ? await live.get(name) : this.storage.get(this.key(namespace, name))?.obj;
    if (!o) throw errors.notFound(this.def.group, this.def.plural, name);
    return o;
  }

  getStored(namespace: string, name: string): StoredObject | undefined {
    return this.storage.get(this.key(namespace, name));
  }

  parseSelectors(p: ListParams): { labels: LabelSelector; fields: FieldSelector } {
    const parsed = this.parseSelectorSyntax(p);
    this.checkFieldLabels(parsed.fields);
    return parsed;
  }

  /** Selector syntax (Kubernetes decodes the query first: a syntax error is a 400 before anything else). */
  private parseSelectorSyntax(p: ListParams): { labels: LabelSelector; fields: FieldSelector } {
    return {
      labels: parseLabelSelector(p.labelSelector ?? ''),
      fields: parseFieldSelector(p.fieldSelector ?? '', () => true),
    };
  }

  /** Field labels the kind does not know: 400 (after the ListOptions validation, as Kubernetes). */
  private checkFieldLabels(fields: FieldSelector): void {
    for (const { field: f } of fields) {
      if (this.supportsField(f)) continue;
      // Kubernetes' default field label conversion (kinds without their own field labels)
      if (!this.def.strategy.fieldLabels)
        throw errors.badRequest(
          `"${f}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
        );
      throw errors.badRequest(`field label not supported: ${f}`);
    }
  }

  supportsField(f: string): boolean {
    if (f === 'metadata.name' || f === 'metadata.namespace') return true;
    return !!this.def.strategy.fieldLabels?.[f];
  }

  fieldValue(obj: KObject, f: string): string | undefined {
    if (f === 'metadata.name') return obj.metadata.name;
    if (f === 'metadata.namespace') return obj.metadata.namespace ?? '';
    return this.def.strategy.fieldLabels?.[f]?.(obj);
  }

  matcher(p: ListParams): (obj: KObject) => boolean {
    const { labels, fields } = this.parseSelectors(p);
    return this.matcherOf(labels, fields);
  }

  private matcherOf(labels: LabelSelector, fields: FieldSelector): (obj: KObject) => boolean {
    if (labels.length === 0 && fields.length === 0) return () => true;
    return (obj) =>
      matchLabels(labels, obj.metadata.labels) && matchFields(fields, (f) => this.fieldValue(obj, f));
  }

  /**
   * list, after doc1's list table:
   * - continue token: Continue Token, Exact (rv unset or 0; any other rv is a 400);
   * - rv unset: Most Recent; rv=0: Any (both: the current state here);
   * - rv=X with Exact, or with a limit and no resourceVersionMatch: Exact (the collection as
   *   it was at X, 410 when X is older than the history);
   * - rv=X otherwise (NotOlderThan, or no limit): Not older than (waits for X, then current).
   * The invalid rows answer what Kubernetes answers: 422 Invalid on ListOptions.
   */
  async list(namespace: string, p: ListParams): Promise<ListResult> {
    const { labels, fields } = this.parseSelectorSyntax(p);
    const causes = validateListOptions(p, false, this.opts.gates.WatchList);
    if (causes.length) throw listOptionsInvalid(causes);
    this.checkFieldLabels(fields);
    if (p.limit !== undefined && !Number.isSafeInteger(p.limit))
      throw errors.badRequest(`invalid limit: ${p.limit}`);
    // APIListChunking off: limit and continue are ignored (complete lists)
    const chunking = this.opts.gates.APIListChunking;
    const limit = chunking && p.limit !== undefined && p.limit > 0 ? p.limit : 0;
    const token = chunking && p.continue ? p.continue : '';
    const rv = p.resourceVersion ?? '';
    const rvm = p.resourceVersionMatch ?? '';
    const rvNum = rv === '' ? undefined : parseRv(rv);
    const match = this.matcherOf(labels, fields);
    const live = this.def.strategy.live;
    if (live) return { items: (await live.list()).filter(match), resourceVersion: '' };
    const hasSelectors = labels.length > 0 || fields.length > 0;
    const prefix = this.prefix(namespace);

    let atRv: number | undefined; // undefined: the current state
    let startKey = '';
    if (token) {
      const c = decodeContinue(token);
      if (rvNum !== undefined && rvNum !== 0)
        throw errors.badRequest('specifying resource version is not allowed when using continue');
      startKey = prefix + c.start;
      if (c.rv > 0) {
        if (this.now() - c.ts > this.opts.continueTtlMs || c.rv < this.oldestListable())
          throw new ContinueExpiredError(encodeContinue({ rv: -1, start: c.start, ts: this.now() }));
        atRv = c.rv;
      }
    } else if (rvNum !== undefined && rvNum !== 0) {
      const exact = rvm === 'Exact' || (rvm === '' && limit > 0);
      await this.waitForRv(rvNum);
      if (exact) {
        if (rvNum < this.oldestListable()) throw errors.gone(LIST_TOO_OLD);
        atRv = rvNum;
      }
    }

    const snapRv = atRv ?? this.storage.revision();
    let all: StoredObject[];
    try {
      all = await this.listStored(prefix, atRv);
    } catch (e) {
      if (!(e instanceof ExpiredError)) throw e;
      if (token)
        throw new ContinueExpiredError(
          encodeContinue({ rv: -1, start: startKey.slice(prefix.length), ts: this.now() }),
        );
      throw errors.gone(LIST_TOO_OLD);
    }
    let i = 0;
    if (startKey) {
      // the first key after the token's last key
      let lo = 0;
      let hi = all.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (all[mid]!.key <= startKey) lo = mid + 1;
        else hi = mid;
      }
      i = lo;
    }
    const items: KObject[] = [];
    let last = '';
    for (; i < all.length; i++) {
      if (limit && items.length >= limit) break;
      const o = all[i]!;
      if (match(o.obj)) items.push(o.obj);
      last = o.key;
    }
    const res: ListResult = { items, resourceVersion: String(snapRv) };
    if (limit && i < all.length) {
      // More keys remain. With selectors some may not match: look for one, so that the
      // last chunk is never an empty one with a continue token that leads nowhere.
      let more = !hasSelectors;
      for (let j = i; !more && j < all.length; j++) more = match(all[j]!.obj);
      if (more) {
        res.continue = encodeContinue({ rv: snapRv, start: last.slice(prefix.length), ts: this.now() });
        // the count is only exact without selectors (Kubernetes omits it otherwise)
        if (!hasSelectors) res.remainingItemCount = all.length - i;
      }
    }
    return res;
  }

  /** The oldest version a list can be served at (a shared store keeps more than its cache's history). */
  private oldestListable(): number {
    return this.storage.oldestListable ? this.storage.oldestListable() : this.storage.oldestRetained();
  }

  /** The stored objects below `prefix` at `atRv` (undefined: now); older than the cache's history, from the backing store. */
  private async listStored(prefix: string, atRv: number | undefined): Promise<StoredObject[]> {
    if (atRv === undefined || !this.storage.listAt || atRv >= this.storage.oldestRetained())
      return this.storage.list(this.bucket, prefix, atRv);
    return this.storage.listAt(this.bucket, prefix, atRv);
  }

  // ---------------------------------------------------------------- watch

  /**
   * watch, after doc1's watch table: rv unset = Get State and Start at Most Recent, 0 = Get
   * State and Start at Any (synthetic ADDED events for the current state, then changes);
   * other = Start at Exact (changes after that version only; 200 then an ERROR event with a
   * 410 when it is older than the history). With the WatchList gate, sendInitialEvents=true
   * streams the state at a version not older than rv, then (allowWatchBookmarks) a BOOKMARK
   * annotated `orch.io/initial-events-end`, then changes. Returns the cancel function.
   */
  watch(namespace: string, p: WatchParams, sink: WatchSink): () => void {
    const { labels, fields } = this.parseSelectorSyntax(p);
    const causes = validateListOptions(p, true, this.opts.gates.WatchList);
    if (causes.length) throw listOptionsInvalid(causes);
    this.checkFieldLabels(fields);
    const rv = p.resourceVersion ?? '';
    const rvNum = rv === '' ? undefined : parseRv(rv);
    const fieldEq = (f: string) => fields.find((r) => r.field === f && r.op === '=')?.value;
    if (p.name !== undefined && fields.length > 0 && fieldEq('metadata.name') !== p.name)
      throw errors.badRequest("fieldSelector metadata.name doesn't match requested name");
    const selected = this.matcherOf(labels, fields);
    const oneName = p.name;
    const match =
      oneName === undefined ? selected : (o: KObject) => o.metadata.name === oneName && selected(o);

    // What the storage index can narrow the watch to: one object, one namespace, or all.
    const ns = this.def.namespaced ? namespace || fieldEq('metadata.namespace') : '';
    const name = oneName ?? fieldEq('metadata.name');
    const scope: WatchScope =
      ns !== undefined && name !== undefined
        ? { key: this.key(ns, name) }
        : ns
          ? { prefix: this.prefix(ns) }
          : {};

    let stopped = false;
    let cancel = () => {};
    let live = false;
    /** Changes at or before this version are not sent (a watch from a version not reached yet). */
    let from = 0;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let bookmarkTimer: NodeJS.Timeout | undefined;
    let forget: () => unknown = () => undefined;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      cancel();
      forget();
      clearTimeout(timeoutTimer);
      clearTimeout(bookmarkTimer);
    };
    const finish = () => {
      stop();
      sink.end();
    };

    const deliver = (ev: ChangeEvent) => {
      if (stopped || ev.rv <= from) return;
      // As Kubernetes' cache watcher: an object entering the selection is ADDED, one
      // leaving it is DELETED (its previous state at the event's version).
      const now = ev.type !== 'DELETED' && match(ev.obj);
      const was = ev.prev !== undefined && match(ev.prev);
      if (now) sink.event(was ? 'MODIFIED' : 'ADDED', ev.obj);
      else if (was) sink.event('DELETED', ev.type === 'DELETED' ? ev.obj : previousAtEvent(ev));
    };

    /** Subscribes to the changes after `fromRv`; throws ExpiredError when they are gone. */
    const subscribe = (fromRv: number) => {
      from = fromRv;
      cancel = this.storage.watch(this.bucket, Math.min(fromRv, this.storage.revision()), deliver, scope);
      if (stopped) cancel();
      live = true;
    };

    /** Synthetic ADDED events for the current state, then the changes after it; returns its version. */
    const initialState = (): number => {
      const at = this.storage.revision();
      let items: StoredObject[];
      if (scope.key !== undefined) {
        const o = this.storage.get(scope.key);
        items = o ? [o] : [];
      } else items = this.storage.list(this.bucket, scope.prefix ?? this.prefix(namespace));
      for (const o of items) {
        if (stopped) return at;
        if (match(o.obj)) sink.event('ADDED', o.obj);
      }
      if (!stopped) subscribe(at);
      return at;
    };

    const startAt = (fromRv: number) => {
      try {
        subscribe(fromRv);
      } catch (e) {
        if (!(e instanceof ExpiredError)) throw e;
        sink.error(errors.gone(`too old resource version: ${fromRv} (${this.storage.oldestRetained()})`));
        finish();
      }
    };

    if (p.sendInitialEvents === true) {
      // NotOlderThan (validated above): unset = a consistent read of the current state;
      // 0 = any state; X = once the state is at least X (504 as an ERROR event otherwise).
      const go = () => {
        const at = initialState();
        if (!stopped && p.allowWatchBookmarks) sink.bookmark(String(at), true);
      };
      const want = rvNum ?? 0;
      if (want <= this.storage.revision()) go();
      else
        void this.storage.waitFor(want, this.opts.futureRvWaitMs).then((ok) => {
          if (stopped) return;
          if (ok) go();
          else {
            sink.error(tooLargeResourceVersion(want, this.storage.revision()));
            finish();
          }
        });
    } else if (p.sendInitialEvents === false) {
      // no initial state: unset and 0 start now, X starts exactly at X
      startAt(rvNum ? rvNum : this.storage.revision());
    } else if (!rvNum) {
      initialState();
    } else {
      startAt(rvNum);
    }
    if (stopped) return stop;

    const requested = p.timeoutSeconds ?? 0;
    const timeout =
      requested > 0 ? Math.min(requested, this.opts.watchTimeoutSeconds) : this.opts.watchTimeoutSeconds;
    timeoutTimer = setTimeout(finish, timeout * 1000);
    if (this.opts.watches)
      forget = this.opts.watches.add(() => {
        // at shutdown: the revision every change up to which this watcher has been handed
        const r = this.storage.revision();
        if (p.allowWatchBookmarks && live && r >= from) sink.bookmark(String(r), false);
        finish();
      });
    if (p.allowWatchBookmarks) {
      // Every change up to the current revision has been handed to this watcher (writes
      // dispatch synchronously), so the current revision is a safe bookmark. Sent every
      // interval and, as kube-apiserver 1.28 does (the text is silent on when), once more two
      // seconds before the watch's end, so a client resumes from a version as new as can be;
      // none once that moment has passed.
      const end = Date.now() + timeout * 1000;
      const schedule = () => {
        const ms = Math.min(this.opts.bookmarkIntervalMs, end - PRE_TIMEOUT_BOOKMARK_MS - Date.now());
        if (!stopped && ms > 0) bookmarkTimer = setTimeout(tick, ms);
      };
      const tick = () => {
        if (stopped) return;
        const r = this.storage.revision();
        if (live && r >= from) sink.bookmark(String(r), false);
        schedule();
      };
      schedule();
    }
    return stop;
  }

  // ---------------------------------------------------------------- writes

  /** The request's admission, mutating phase: the object may come back replaced. */
  private async admitMutate(ctx: RequestContext, w: WriteAdmissionRequest): Promise<KObject | undefined> {
    if (!ctx.admission) return w.object;
    return (await ctx.admission.mutate(w)) ?? w.object;
  }

  private validateAll(obj: KObject, ctx: RequestContext, old?: KObject, subresource = ''): void {
    const causes = [...validateMeta(obj, this.nameRule, this.def.namespaced)];
    const s = this.def.strategy;
    const sub = subresource ? s.validateSubresource?.[subresource] : undefined;
    if (old && sub) causes.push(...sub(obj, old, ctx));
    else if (old) causes.push(...(s.validateUpdate?.(obj, old, ctx) ?? s.validate?.(obj, ctx) ?? []));
    else causes.push(...(s.validate?.(obj, ctx) ?? []));
    if (this.def.schema && !this.def.custom) {
      // fields a built-in schema requires (e.g. an owner reference's uid), unless the kind said so
      const said = new Set(causes.map((c) => c.field));
      for (const f of missingRequired(obj, this.def.schema))
        if (!said.has(f)) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: f });
    }
    if (causes.length)
      throw errors.invalid(
        { group: this.def.group, kind: this.def.kind },
        obj.metadata.name ?? obj.metadata.generateName ?? '',
        causes,
      );
  }

  /** A missing namespace answers 404 (unless `mayBeMissing`: admission may yet create it); a terminating one refuses creations. */
  private ensureNamespace(namespace: string, creating: boolean, mayBeMissing = false): void {
    if (!this.def.namespaced) return;
    const ns = this.namespaces.get(namespace);
    if (!ns) {
      if (mayBeMissing) return;
      throw errors.notFound('', 'namespaces', namespace);
    }
    if (creating && ns.metadata.deletionTimestamp)
      throw new StatusError(
        403,
        'Forbidden',
        `${this.def.plural} "${''}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        {
          kind: this.def.plural,
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${namespace} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
  }

  /** metadata.managedFields of a write: an Update by the request's manager, or what an apply computed. */
  private recordOwnership(
    obj: KObject,
    ctx: RequestContext,
    version: string,
    subresource: string,
    old: KObject | undefined,
    applied: AppliedOwnership | undefined,
    asked = version,
  ): void {
    if (applied) {
      if (applied.managedFields) obj.metadata.managedFields = applied.managedFields;
      else delete obj.metadata.managedFields;
    }
    // a write through a converted version is owned in that version's terms (its apiVersion, its field names)
    const convert = asked !== version && !applied ? this.def.versionInfo?.[asked]?.fromStorage : undefined;
    if (convert) {
      const view = (o: KObject) => ({
        ...convert(structuredClone(o)),
        apiVersion: apiVersionOf(this.def.group, asked),
      });
      const seen = view(obj);
      recordWrite({
        def: this.def,
        version: asked,
        subresource,
        ctx,
        old: old && view(old),
        obj: seen,
        applied: false,
        now: this.now(),
      });
      if (seen.metadata.managedFields) obj.metadata.managedFields = seen.metadata.managedFields;
      else delete obj.metadata.managedFields;
      return;
    }
    recordWrite({ def: this.def, version, subresource, ctx, old, obj, applied: !!applied, now: this.now() });
  }

  async create(
    namespace: string,
    obj: KObject,
    ctx: RequestContext,
    version: string,
    opts: { applied?: AppliedOwnership } = {},
  ): Promise<KObject> {
    const asked = version;
    ({ obj, version } = this.toStorage(obj, version));
    const m = (obj.metadata ??= {});
    if (this.def.namespaced) {
      if (m.namespace && namespace && m.namespace !== namespace)
        throw errors.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      m.namespace = namespace || m.namespace;
    } else if (m.namespace) {
      delete m.namespace;
    }
    if (m.resourceVersion)
      throw errors.badRequest('resourceVersion should not be set on objects to be created');
    const ns = m.namespace ?? '';
    // a missing namespace is looked for again after the mutating admission (NamespaceAutoProvision)
    this.ensureNamespace(ns, true, !!ctx.admission);
    // generateName applies only when no name is given; only a generated name is retried on a clash
    const generated = !m.name && !!m.generateName;
    if (generated) m.name = m.generateName + randomSuffix();
    m.uid = randomUUID();
    m.creationTimestamp = rfc3339(this.now());
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    if (this.def.strategy.tracksGeneration !== false) m.generation = 1;
    else delete m.generation;
    obj.apiVersion = apiVersionOf(this.def.group, version);
    obj.kind = this.def.kind;
    this.def.strategy.prepareForCreate?.(obj, ctx);
    const w: WriteAdmissionRequest = { operation: 'CREATE', namespace: ns, name: m.name ?? '', object: obj };
    obj = (await this.admitMutate(ctx, w))!;
    this.ensureNamespace(ns, true);
    this.recordOwnership(obj, ctx, version, '', undefined, opts.applied, asked);
    this.validateAll(obj, ctx);
    await ctx.admission?.validate({ ...w, object: obj });
    if (ctx.dryRun) {
      if (this.storage.get(this.key(ns, obj.metadata.name!)))
        throw errors.alreadyExists(this.def.group, this.def.plural, obj.metadata.name!);
      return obj;
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const s = await this.storage.create(this.bucket, this.key(ns, obj.metadata.name!), obj);
        this.def.strategy.afterCreate?.(s.obj);
        return s.obj;
      } catch (e) {
        if (e instanceof KeyExistsError) {
          if (generated && attempt < 5) {
            obj.metadata.name = m.generateName + randomSuffix();
            continue;
          }
          throw errors.alreadyExists(this.def.group, this.def.plural, obj.metadata.name!);
        }
        throw e;
      }
    }
  }

  /**
   * Replaces an object (PUT, and the last step of PATCH). `subresource` is '' or 'status'.
   * Returns the object and whether it was created.
   */
  async update(
    namespace: string,
    name: string,
    obj: KObject,
    ctx: RequestContext,
    version: string,
    subresource = '',
    opts: { forceAllowCreate?: boolean; expectRv?: number; applied?: AppliedOwnership } = {},
  ): Promise<{ obj: KObject; created: boolean }> {
    const asked = version;
    ({ obj, version } = this.toStorage(obj, version));
    const m = (obj.metadata ??= {});
    if (m.name !== undefined && m.name !== name)
      throw errors.badRequest(
        `the name of the object (${m.name}) does not match the name on the URL (${name})`,
      );
    m.name = name;
    if (this.def.namespaced) {
      if (m.namespace && m.namespace !== namespace)
        throw errors.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      m.namespace = namespace;
    } else delete m.namespace;
    const cur = this.storage.get(this.key(namespace, name));
    if (!cur) {
      if (!subresource && (this.def.strategy.allowCreateOnUpdate || opts.forceAllowCreate)) {
        delete m.resourceVersion;
        return {
          obj: await this.create(namespace, obj, ctx, version, { applied: opts.applied }),
          created: true,
        };
      }
      throw errors.notFound(this.def.group, this.def.plural, name);
    }
    const old = cur.obj;
    if (m.resourceVersion) {
      const want = parseRv(m.resourceVersion);
      if (want !== cur.rv) throw errors.staleUpdate(this.def.group, this.def.plural, name);
    } else if (!this.def.strategy.allowUnconditionalUpdate && opts.expectRv === undefined) {
      throw errors.invalid({ group: this.def.group, kind: this.def.kind }, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.resourceVersion',
          message: 'Invalid value: 0x0: must be specified for an update',
        },
      ]);
    }
    if (m.uid && m.uid !== old.metadata.uid)
      throw errors.conflict(
        this.def.group,
        this.def.plural,
        name,
        `Precondition failed: UID in precondition: ${m.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    // server-owned metadata is carried over
    m.uid = old.metadata.uid;
    m.creationTimestamp = old.metadata.creationTimestamp;
    if (old.metadata.deletionTimestamp) {
      m.deletionTimestamp = old.metadata.deletionTimestamp;
      if (old.metadata.deletionGracePeriodSeconds !== undefined)
        m.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
    } else {
      delete m.deletionTimestamp;
      delete m.deletionGracePeriodSeconds;
    }
    if (old.metadata.generation !== undefined) m.generation = old.metadata.generation;
    obj.apiVersion = apiVersionOf(this.def.group, version);
    obj.kind = this.def.kind;
    const s = this.def.strategy;
    const subPrepare = subresource ? s.prepareForSubresource?.[subresource] : undefined;
    if (subPrepare) {
      subPrepare(obj, old, ctx);
    } else if (subresource === 'status') {
      if (s.prepareForStatusUpdate) s.prepareForStatusUpdate(obj, old, ctx);
      else {
        // only status changes through the status subresource
        const status = obj.status;
        for (const k of Object.keys(obj)) if (k !== 'status' && k !== 'metadata') delete obj[k];
        for (const [k, v] of Object.entries(old)) if (k !== 'status' && k !== 'metadata') obj[k] = v;
        obj.metadata = { ...old.metadata, resourceVersion: m.resourceVersion };
        if (status === undefined) delete obj.status;
        else obj.status = status;
      }
    } else {
      s.prepareForUpdate?.(obj, old, ctx);
      if (s.tracksGeneration !== false && m.generation !== undefined) {
        const specOf = (o: KObject) => {
          const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
          return rest;
        };
        if (!deepEqual(specOf(obj), specOf(old)))
          obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
      }
    }
    const w: WriteAdmissionRequest = { operation: 'UPDATE', namespace, name, object: obj, oldObject: old };
    obj = (await this.admitMutate(ctx, w))!;
    this.recordOwnership(obj, ctx, version, subresource, old, opts.applied, asked);
    this.validateAll(obj, ctx, old, subresource);
    await ctx.admission?.validate({ ...w, object: obj });
    // A write that changes nothing is not a write: same object, same resourceVersion.
    const { resourceVersion: _r1, ...mNew } = obj.metadata;
    const { resourceVersion: _r2, ...mOld } = old.metadata;
    if (deepEqual({ ...obj, metadata: mNew }, { ...old, apiVersion: obj.apiVersion, metadata: mOld }))
      return { obj: old, created: false };
    if (ctx.dryRun)
      return {
        obj: { ...obj, metadata: { ...obj.metadata, resourceVersion: old.metadata.resourceVersion } },
        created: false,
      };
    // Finalization: once the last finalizer is gone from an object being deleted, it is removed.
    if (
      obj.metadata.deletionTimestamp &&
      !obj.metadata.finalizers?.length &&
      !this.def.strategy.gracefulDelete?.(obj)
    ) {
      try {
        await this.storage.update(this.bucket, cur.key, obj, cur.rv);
        const d = await this.storage.delete(this.bucket, cur.key);
        this.def.strategy.afterDelete?.(d.obj);
        return { obj: d.obj, created: false };
      } catch (e) {
        throw this.mapStorageError(e, name);
      }
    }
    try {
      const u = await this.storage.update(this.bucket, cur.key, obj, opts.expectRv ?? cur.rv);
      return { obj: u.obj, created: false };
    } catch (e) {
      throw this.mapStorageError(e, name);
    }
  }

  private mapStorageError(e: unknown, name: string): unknown {
    if (e instanceof PreconditionError) return errors.staleUpdate(this.def.group, this.def.plural, name);
    if (e instanceof KeyNotFoundError) return errors.notFound(this.def.group, this.def.plural, name);
    return e;
  }

  /**
   * Deletes one object. Returns the object (still present while finalizers remain) and
   * whether it is gone from storage.
   */
  async delete(
    namespace: string,
    name: string,
    p: DeleteParams,
    ctx: RequestContext,
    version: string,
  ): Promise<{ obj: KObject; deleted: boolean }> {
    this.warnOnDelete(p, ctx, version);
    const cur = this.storage.get(this.key(namespace, name));
    if (!cur) throw errors.notFound(this.def.group, this.def.plural, name);
    const old = cur.obj;
    checkPreconditions(this.def.group, this.def.plural, name, p.preconditions, old);
    const refused = this.def.strategy.refuseDelete?.(old);
    if (refused) throw refused;
    const w: WriteAdmissionRequest = { operation: 'DELETE', namespace, name, oldObject: old };
    await this.admitMutate(ctx, w);
    await ctx.admission?.validate(w);
    const graceful = !!this.def.strategy.gracefulDelete?.(old);
    // the garbage collector's finalizers follow the request (a repeated delete may still change them)
    const gc = graceful && old.metadata.deletionTimestamp ? undefined : this.gcFinalizers(old, p, version);
    const pending = ((gc ?? old.metadata.finalizers)?.length ?? 0) > 0 || graceful;
    if (pending) {
      if (old.metadata.deletionTimestamp && !gc) return { obj: old, deleted: false };
      const marked = clone(old);
      if (gc) marked.metadata.finalizers = gc;
      if (!old.metadata.deletionTimestamp) {
        // Kubernetes' markAsDeleting: a kind that tracks generation counts the deletion as a change
        if (marked.metadata.generation) marked.metadata.generation++;
        marked.metadata.deletionTimestamp = rfc3339(this.now());
      }
      marked.metadata.deletionGracePeriodSeconds = 0;
      this.def.strategy.prepareForDelete?.(marked);
      if (ctx.dryRun) return { obj: marked, deleted: false };
      try {
        const u = await this.storage.update(this.bucket, cur.key, marked, cur.rv);
        this.def.strategy.onDeleteRequested?.(u.obj);
        return { obj: u.obj, deleted: false };
      } catch (e) {
        throw this.mapStorageError(e, name);
      }
    }
    if (ctx.dryRun) return { obj: old, deleted: true };
    try {
      const d = await this.storage.delete(this.bucket, cur.key, cur.rv);
      this.def.strategy.afterDelete?.(d.obj);
      return { obj: d.obj, deleted: true };
    } catch (e) {
      throw this.mapStorageError(e, name);
    }
  }

  /** The kind's warning about a delete request's options (once per request). */
  private warnOnDelete(p: DeleteParams, ctx: RequestContext, version: string): void {
    const w = this.def.strategy.deleteWarning?.(p.propagationPolicy, version);
    if (w && !ctx.warnings.includes(w)) ctx.warnings.push(w);
  }

  /** The finalizers a delete leaves for the garbage collector, or undefined when they stay (gc-finalizers.ts). */
  private gcFinalizers(obj: KObject, p: DeleteParams, version: string): string[] | undefined {
    const policy = this.def.strategy.defaultGarbageCollectionPolicy?.(version) ?? 'DeleteDependents';
    return gcFinalizers(obj, p.propagationPolicy, policy);
  }

  async deleteCollection(
    namespace: string,
    lp: ListParams,
    p: DeleteParams,
    ctx: RequestContext,
    version: string,
  ): Promise<KObject[]> {
    this.warnOnDelete(p, ctx, version);
    const { items } = await this.list(namespace, {
      labelSelector: lp.labelSelector,
      fieldSelector: lp.fieldSelector,
    });
    const out: KObject[] = [];
    for (const it of items) {
      // objects that may not be deleted (the system priority classes) stay
      if (this.def.strategy.refuseDelete?.(it)) continue;
      try {
        const r = await this.delete(it.metadata.namespace ?? '', it.metadata.name!, p, ctx, version);
        out.push(r.obj);
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) continue;
        throw e;
      }
    }
    return out;
  }
}

function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  const b = randomBytes(5);
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[b[i]! % alphabet.length];
  return s;
}
