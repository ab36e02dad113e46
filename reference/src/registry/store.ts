// The generic store: every verb of every kind, on top of the storage layer, with the
// kind's strategy for what differs. Resource-version semantics (doc1's three tables),
// chunked lists, watch filtering and two-phase deletion live here.
import { randomBytes, randomUUID } from 'node:crypto';
import type { AdmissionChain, AdmissionAttributes, Operation } from '../auth/admission.ts';
import { errors, StatusError, type StatusCause } from '../errors/status.ts';
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
} from '../storage/types.ts';
import { type RequestContext, type ResourceDef, apiVersionOf, bucketName } from './types.ts';
import { clone, deepEqual, type NameRule, validateMeta } from './validation.ts';

export interface StoreOptions {
  /** How long get/list wait for an unknown (future) resource version before 504. */
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
}

export interface ListParams {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  items: KObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchParams extends ListParams {
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
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

export interface DeleteParams {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
}

export interface Namespaces {
  /** undefined when missing; the object otherwise. */
  get(name: string): KObject | undefined;
}

export interface Continue {
  rv: number;
  start: string;
  ts: number;
}

export function encodeContinue(c: Continue): string {
  return Buffer.from(JSON.stringify({ v: 'meta.orch.io/v1', rv: c.rv, start: c.start, ts: c.ts })).toString('base64url');
}

export function decodeContinue(token: string): Continue {
  try {
    const j = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (j.v !== 'meta.orch.io/v1' || typeof j.rv !== 'number' || typeof j.start !== 'string' || typeof j.ts !== 'number')
      throw new Error('bad token');
    return { rv: j.rv, start: j.start, ts: j.ts };
  } catch {
    throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.orch.io/v1)');
  }
}

const RFC3339 = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export function parseRv(rv: string): number {
  if (!/^\d+$/.test(rv)) throw errors.badRequest(`invalid resource version: "${rv}"`);
  return Number(rv);
}

function listOptionsInvalid(causes: StatusCause[]): StatusError {
  return errors.invalid({ group: 'meta.orch.io', kind: 'ListOptions' }, '', causes);
}

export class GenericStore {
  readonly bucket: string;
  private readonly now: () => number;
  private readonly nameRule: NameRule;

  constructor(
    readonly def: ResourceDef,
    private readonly storage: Storage,
    private readonly admission: AdmissionChain,
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

  /** Sets apiVersion/kind for the version the client asked for. */
  present(obj: KObject, version: string): KObject {
    const apiVersion = apiVersionOf(this.def.group, version);
    if (obj.apiVersion === apiVersion && obj.kind === this.def.kind) return obj;
    const { apiVersion: _a, kind: _k, ...rest } = obj;
    return { apiVersion, kind: this.def.kind, ...rest } as KObject;
  }

  // ---------------------------------------------------------------- reads

  private async waitForRv(rv: number): Promise<void> {
    if (rv <= this.storage.revision()) return;
    const ok = await this.storage.waitFor(rv, this.opts.futureRvWaitMs);
    if (!ok) throw errors.tooLargeResourceVersion(String(rv), String(this.storage.revision()));
  }

  async get(namespace: string, name: string, resourceVersion?: string): Promise<KObject> {
    // get: unset = Most Recent; 0 = Any; other = Not older than.
    if (resourceVersion && resourceVersion !== '0') await this.waitForRv(parseRv(resourceVersion));
    const o = this.storage.get(this.key(namespace, name));
    if (!o) throw errors.notFound(this.def.group, this.def.plural, name);
    return o.obj;
  }

  getStored(namespace: string, name: string): StoredObject | undefined {
    return this.storage.get(this.key(namespace, name));
  }

  parseSelectors(p: ListParams): { labels: LabelSelector; fields: FieldSelector } {
    const labels = parseLabelSelector(p.labelSelector ?? '');
    const fields = parseFieldSelector(p.fieldSelector ?? '', (f) => this.supportsField(f));
    return { labels, fields };
  }

  supportsField(f: string): boolean {
    if (f === 'metadata.name') return true;
    if (f === 'metadata.namespace') return this.def.namespaced || true;
    return !!this.def.strategy.fieldLabels?.[f];
  }

  fieldValue(obj: KObject, f: string): string | undefined {
    if (f === 'metadata.name') return obj.metadata.name;
    if (f === 'metadata.namespace') return obj.metadata.namespace ?? '';
    return this.def.strategy.fieldLabels?.[f]?.(obj);
  }

  matcher(p: ListParams): (obj: KObject) => boolean {
    const { labels, fields } = this.parseSelectors(p);
    if (labels.length === 0 && fields.length === 0) return () => true;
    return (obj) => matchLabels(labels, obj.metadata.labels) && matchFields(fields, (f) => this.fieldValue(obj, f));
  }

  async list(namespace: string, p: ListParams): Promise<ListResult> {
    const match = this.matcher(p);
    const hasSelectors = !!(p.labelSelector?.trim() || p.fieldSelector?.trim());
    const rv = p.resourceVersion;
    const rvm = p.resourceVersionMatch;
    const limit = this.opts.gates.APIListChunking && p.limit && p.limit > 0 ? p.limit : 0;
    if (p.limit !== undefined && (!Number.isInteger(p.limit) || p.limit < 0))
      throw errors.badRequest(`invalid limit: ${p.limit}`);
    if (rvm !== undefined && rvm !== '') {
      if (rvm !== 'Exact' && rvm !== 'NotOlderThan')
        throw listOptionsInvalid([
          {
            reason: 'FieldValueNotSupported',
            field: 'resourceVersionMatch',
            message: `Unsupported value: "${rvm}": supported values: "Exact", "NotOlderThan"`,
          },
        ]);
      if (p.continue)
        throw listOptionsInvalid([
          { reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden: resourceVersionMatch is forbidden when continue is provided' },
        ]);
      if (!rv)
        throw listOptionsInvalid([
          { reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' },
        ]);
      if (rvm === 'Exact' && rv === '0')
        throw listOptionsInvalid([
          { reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"' },
        ]);
    }

    let atRv: number | undefined; // undefined: current state
    let start = '';
    if (p.continue) {
      // limit=n, continue=token: rv unset or 0 -> Continue Token, Exact; other -> 400.
      if (rv && rv !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
      const c = decodeContinue(p.continue);
      if (this.now() - c.ts > this.opts.continueTtlMs || c.rv < this.storage.oldestRetained())
        throw new StatusError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      atRv = c.rv;
      start = c.start;
    } else if (rv !== undefined && rv !== '' && rv !== '0') {
      const n = parseRv(rv);
      const exact = rvm === 'Exact' || (!rvm && limit > 0);
      if (exact) {
        await this.waitForRv(n);
        if (n < this.storage.oldestRetained())
          throw new StatusError(410, 'Expired', `The resourceVersion for the provided list is too old.`);
        atRv = n;
      } else {
        await this.waitForRv(n); // Not older than: current state is at least as new.
      }
    } else if (rv !== undefined && rv !== '' && parseRv(rv) !== 0) {
      // unreachable: kept for clarity of the table (rv=0 -> Any -> current state).
    }

    const snapRv = atRv ?? this.storage.revision();
    let all: StoredObject[];
    try {
      all = this.storage.list(this.bucket, this.prefix(namespace), atRv);
    } catch (e) {
      if (e instanceof ExpiredError) throw new StatusError(410, 'Expired', 'The resourceVersion for the provided list is too old.');
      throw e;
    }
    let i = 0;
    if (start) {
      // first key strictly after the token's start key
      let lo = 0;
      let hi = all.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (all[mid]!.key <= start) lo = mid + 1;
        else hi = mid;
      }
      i = lo;
    }
    const items: KObject[] = [];
    let last = '';
    for (; i < all.length; i++) {
      const o = all[i]!;
      if (limit && items.length >= limit) break;
      if (match(o.obj)) {
        items.push(o.obj);
        last = o.key;
      } else last = o.key;
    }
    const res: ListResult = { items, resourceVersion: String(snapRv) };
    if (limit && i < all.length) {
      // more remain (some may be filtered out: the client then gets a short or empty chunk)
      let anyLeft = false;
      for (let j = i; j < all.length; j++)
        if (match(all[j]!.obj)) {
          anyLeft = true;
          break;
        }
      if (anyLeft) {
        res.continue = encodeContinue({ rv: snapRv, start: last, ts: this.now() });
        if (!hasSelectors) res.remainingItemCount = all.length - i;
      }
    }
    return res;
  }

  // ---------------------------------------------------------------- watch

  watch(namespace: string, p: WatchParams, sink: WatchSink): () => void {
    const match = this.matcher(p);
    const nameMatch = p.name;
    const prefix = nameMatch ? this.key(namespace, nameMatch) : this.prefix(namespace);
    const inScope = (key: string) => (nameMatch ? key === prefix : key.startsWith(prefix));
    const rv = p.resourceVersion;
    const rvm = p.resourceVersionMatch;
    if (p.sendInitialEvents !== undefined) {
      if (!this.opts.gates.WatchList)
        throw listOptionsInvalid([
          { reason: 'FieldValueForbidden', field: 'sendInitialEvents', message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' },
        ]);
      if (rvm !== 'NotOlderThan')
        throw listOptionsInvalid([
          { reason: 'FieldValueInvalid', field: 'resourceVersionMatch', message: `Invalid value: "${rvm ?? ''}": sendInitialEvents requires setting resourceVersionMatch to NotOlderThan` },
        ]);
      if (p.sendInitialEvents && !p.allowWatchBookmarks)
        throw listOptionsInvalid([
          { reason: 'FieldValueForbidden', field: 'allowWatchBookmarks', message: 'Forbidden: allowWatchBookmarks must be set to true when sendInitialEvents is true' },
        ]);
    } else if (rvm) {
      throw listOptionsInvalid([
        { reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' },
      ]);
    }

    let stopped = false;
    let cancel = () => {};
    let lastRv = 0;
    const timers: NodeJS.Timeout[] = [];
    const stop = () => {
      if (stopped) return;
      stopped = true;
      cancel();
      for (const t of timers) clearTimeout(t);
    };

    const deliver = (ev: ChangeEvent) => {
      if (stopped || !inScope(ev.key)) return;
      lastRv = ev.rv;
      const nowIn = ev.type !== 'DELETED' && match(ev.obj);
      const wasIn = ev.type !== 'ADDED' && ev.prev !== undefined && match(ev.prev);
      if (ev.type === 'ADDED') {
        if (nowIn) sink.event('ADDED', ev.obj);
      } else if (ev.type === 'MODIFIED') {
        if (nowIn && wasIn) sink.event('MODIFIED', ev.obj);
        else if (nowIn) sink.event('ADDED', ev.obj);
        else if (wasIn) sink.event('DELETED', ev.obj);
      } else if (wasIn || match(ev.obj)) sink.event('DELETED', ev.obj);
    };

    const initial = (atRv: number, bookmarkEnd: boolean) => {
      const items = this.storage.list(this.bucket, nameMatch ? prefix : this.prefix(namespace));
      for (const o of items) if (inScope(o.key) && match(o.obj)) sink.event('ADDED', o.obj);
      lastRv = atRv;
      if (bookmarkEnd) sink.bookmark(String(atRv), true);
      cancel = this.storage.watch(this.bucket, atRv, deliver);
    };

    const startAt = (from: number) => {
      try {
        cancel = this.storage.watch(this.bucket, from, deliver);
        lastRv = Math.max(lastRv, from);
      } catch (e) {
        if (e instanceof ExpiredError) {
          sink.error(new StatusError(410, 'Expired', `too old resource version: ${from} (${this.storage.oldestRetained() + 1})`));
          stop();
          sink.end();
          return;
        }
        throw e;
      }
    };

    if (p.sendInitialEvents === true) {
      const want = rv && rv !== '0' ? parseRv(rv) : this.storage.revision();
      const go = () => {
        if (!stopped) initial(this.storage.revision(), true);
      };
      if (want <= this.storage.revision()) go();
      else void this.storage.waitFor(want, this.opts.watchTimeoutSeconds * 1000).then((ok) => (ok ? go() : undefined));
    } else if (p.sendInitialEvents === false) {
      startAt(rv && rv !== '0' ? parseRv(rv) : this.storage.revision());
    } else if (!rv || rv === '0') {
      // Get State and Start at Most Recent / Any: synthetic ADDED events, then changes.
      initial(this.storage.revision(), false);
    } else {
      // Start at Exact: changes after the given version only.
      startAt(parseRv(rv));
    }

    const timeout = Math.min(p.timeoutSeconds ?? this.opts.watchTimeoutSeconds, this.opts.watchTimeoutSeconds);
    timers.push(
      setTimeout(() => {
        stop();
        sink.end();
      }, timeout * 1000),
    );
    if (p.allowWatchBookmarks) {
      const tick = () => {
        if (stopped) return;
        const r = Math.max(lastRv, 0);
        if (r > 0) sink.bookmark(String(this.storage.revision() >= r ? lastRv : r), false);
        timers.push(setTimeout(tick, this.opts.bookmarkIntervalMs));
      };
      timers.push(setTimeout(tick, this.opts.bookmarkIntervalMs));
    }
    return stop;
  }

  // ---------------------------------------------------------------- writes

  private admissionAttrs(
    operation: Operation,
    namespace: string,
    name: string,
    subresource: string,
    ctx: RequestContext,
    version: string,
    object?: KObject,
    oldObject?: KObject,
  ): AdmissionAttributes {
    return { operation, def: this.def, version, namespace, name, subresource, object, oldObject, ctx };
  }

  private validateAll(obj: KObject, ctx: RequestContext, old?: KObject): void {
    const causes = [...validateMeta(obj, this.nameRule, this.def.namespaced)];
    const s = this.def.strategy;
    if (old) causes.push(...(s.validateUpdate?.(obj, old, ctx) ?? s.validate?.(obj, ctx) ?? []));
    else causes.push(...(s.validate?.(obj, ctx) ?? []));
    if (causes.length)
      throw errors.invalid({ group: this.def.group, kind: this.def.kind }, obj.metadata.name ?? obj.metadata.generateName ?? '', causes);
  }

  private ensureNamespace(namespace: string, creating: boolean): void {
    if (!this.def.namespaced) return;
    const ns = this.namespaces.get(namespace);
    if (!ns) throw errors.notFound('', 'namespaces', namespace);
    if (creating && ns.metadata.deletionTimestamp)
      throw new StatusError(
        403,
        'Forbidden',
        `${this.def.plural} "${''}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        { kind: this.def.plural, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] },
      );
  }

  async create(namespace: string, obj: KObject, ctx: RequestContext, version: string): Promise<KObject> {
    const m = (obj.metadata ??= {});
    if (this.def.namespaced) {
      if (m.namespace && namespace && m.namespace !== namespace)
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      m.namespace = namespace || m.namespace;
    } else if (m.namespace) {
      delete m.namespace;
    }
    if (m.resourceVersion) throw errors.badRequest('resourceVersion should not be set on objects to be created');
    const ns = m.namespace ?? '';
    this.ensureNamespace(ns, true);
    if (!m.name && m.generateName) m.name = m.generateName + randomSuffix();
    m.uid = randomUUID();
    m.creationTimestamp = RFC3339(this.now());
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    if (this.def.strategy.tracksGeneration !== false) m.generation = 1;
    else delete m.generation;
    obj.apiVersion = apiVersionOf(this.def.group, version);
    obj.kind = this.def.kind;
    this.def.strategy.prepareForCreate?.(obj, ctx);
    const attrs = this.admissionAttrs('CREATE', ns, m.name ?? '', '', ctx, version, obj);
    await this.admission.mutate(attrs);
    obj = attrs.object!;
    this.validateAll(obj, ctx);
    await this.admission.validate(attrs);
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
          if (m.generateName && attempt < 5 && obj.metadata.name!.startsWith(m.generateName)) {
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
    opts: { forceAllowCreate?: boolean; expectRv?: number } = {},
  ): Promise<{ obj: KObject; created: boolean }> {
    const m = (obj.metadata ??= {});
    if (m.name !== undefined && m.name !== name)
      throw errors.badRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
    m.name = name;
    if (this.def.namespaced) {
      if (m.namespace && m.namespace !== namespace)
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      m.namespace = namespace;
    } else delete m.namespace;
    const cur = this.storage.get(this.key(namespace, name));
    if (!cur) {
      if (!subresource && (this.def.strategy.allowCreateOnUpdate || opts.forceAllowCreate)) {
        delete m.resourceVersion;
        return { obj: await this.create(namespace, obj, ctx, version), created: true };
      }
      throw errors.notFound(this.def.group, this.def.plural, name);
    }
    const old = cur.obj;
    if (m.resourceVersion) {
      const want = parseRv(m.resourceVersion);
      if (want !== cur.rv) throw errors.staleUpdate(this.def.group, this.def.plural, name);
    } else if (!this.def.strategy.allowUnconditionalUpdate && opts.expectRv === undefined) {
      throw errors.invalid({ group: this.def.group, kind: this.def.kind }, name, [
        { reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' },
      ]);
    }
    if (m.uid && m.uid !== old.metadata.uid)
      throw errors.conflict(this.def.group, this.def.plural, name, `Precondition failed: UID in precondition: ${m.uid}, UID in object meta: ${old.metadata.uid}`);
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
        if (!deepEqual(specOf(obj), specOf(old))) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
      }
    }
    const attrs = this.admissionAttrs('UPDATE', namespace, name, subresource, ctx, version, obj, old);
    await this.admission.mutate(attrs);
    obj = attrs.object!;
    this.validateAll(obj, ctx, old);
    await this.admission.validate(attrs);
    // A write that changes nothing is not a write: same object, same resourceVersion.
    const { resourceVersion: _r1, ...mNew } = obj.metadata;
    const { resourceVersion: _r2, ...mOld } = old.metadata;
    if (deepEqual({ ...obj, metadata: mNew }, { ...old, apiVersion: obj.apiVersion, metadata: mOld })) return { obj: old, created: false };
    if (ctx.dryRun) return { obj: { ...obj, metadata: { ...obj.metadata, resourceVersion: old.metadata.resourceVersion } }, created: false };
    // Finalization: once the last finalizer is gone from an object being deleted, it is removed.
    if (obj.metadata.deletionTimestamp && !(obj.metadata.finalizers?.length) && !this.def.strategy.gracefulDelete?.(obj)) {
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
    const cur = this.storage.get(this.key(namespace, name));
    if (!cur) throw errors.notFound(this.def.group, this.def.plural, name);
    const old = cur.obj;
    if (p.preconditions?.uid && p.preconditions.uid !== old.metadata.uid)
      throw errors.conflict(this.def.group, this.def.plural, name, `Precondition failed: UID in precondition: ${p.preconditions.uid}, UID in object meta: ${old.metadata.uid}`);
    if (p.preconditions?.resourceVersion && p.preconditions.resourceVersion !== old.metadata.resourceVersion)
      throw errors.conflict(this.def.group, this.def.plural, name, `Precondition failed: ResourceVersion in precondition: ${p.preconditions.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`);
    const attrs = this.admissionAttrs('DELETE', namespace, name, '', ctx, version, undefined, old);
    await this.admission.mutate(attrs);
    await this.admission.validate(attrs);
    const pending = (old.metadata.finalizers?.length ?? 0) > 0 || !!this.def.strategy.gracefulDelete?.(old);
    if (pending) {
      if (old.metadata.deletionTimestamp) return { obj: old, deleted: false };
      const marked = clone(old);
      marked.metadata.deletionTimestamp = RFC3339(this.now());
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

  async deleteCollection(
    namespace: string,
    lp: ListParams,
    p: DeleteParams,
    ctx: RequestContext,
    version: string,
  ): Promise<KObject[]> {
    const { items } = await this.list(namespace, { labelSelector: lp.labelSelector, fieldSelector: lp.fieldSelector });
    const out: KObject[] = [];
    for (const it of items) {
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
