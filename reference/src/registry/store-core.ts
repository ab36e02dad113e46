// What every verb of the generic store shares: keys, the presentation of stored objects in
// other versions, selectors, and the steps of a write (admission, validation, ownership).
// The verbs themselves (store.ts) live in files of their own and take the store as a
// StoreCore.
import { errors, StatusError } from '../errors/status.ts';
import { missingRequired } from '../schema/decode.ts';
import { type FieldSelector, matchFields, parseFieldSelector } from '../selectors/fields.ts';
import { type LabelSelector, matchLabels, parseLabelSelector } from '../selectors/labels.ts';
import {
  KeyNotFoundError,
  type KObject,
  PreconditionError,
  type Storage,
  type StoredObject,
} from '../storage/types.ts';
import { isPromise, type MaybePromise } from '../util/maybe-async.ts';
import { recordWrite } from './field-manager.ts';
import { gcFinalizers } from './gc-finalizers.ts';
import { tooLargeResourceVersion } from './list-options.ts';
import type { AppliedOwnership, DeleteParams, ListParams, Namespaces, StoreOptions } from './store-types.ts';
import {
  apiVersionOf,
  bucketName,
  type RequestContext,
  type ResourceDef,
  storageVersionOf,
  type WriteAdmissionRequest,
} from './types.ts';
import { type NameRule, validateMeta } from './validation.ts';

export class StoreCore {
  readonly bucket: string;
  readonly now: () => number;
  readonly nameRule: NameRule;

  constructor(
    readonly def: ResourceDef,
    readonly storage: Storage,
    readonly namespaces: Namespaces,
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
   * when it has a conversion, else with that version's apiVersion and the kind; then through
   * the version's `onRead` when it has one (a custom resource's defaults).
   */
  present(obj: KObject, version: string): KObject {
    const apiVersion = apiVersionOf(this.def.group, version);
    const onRead = this.def.versionInfo?.[version]?.onRead;
    if (obj.apiVersion === apiVersion && obj.kind === this.def.kind && !onRead) return obj;
    let byVersion = this.presented.get(obj);
    const hit = byVersion?.get(version);
    if (hit) return hit;
    const convert = this.def.versionInfo?.[version]?.fromStorage;
    let out = obj;
    if (obj.apiVersion !== apiVersion || obj.kind !== this.def.kind) {
      const { apiVersion: _a, kind: _k, ...rest } = convert ? convert(obj) : obj;
      out = { apiVersion, kind: this.def.kind, ...rest } as KObject;
    }
    if (onRead) out = onRead(out);
    if (!byVersion) this.presented.set(obj, (byVersion = new Map()));
    byVersion.set(version, out);
    return out;
  }

  /** A request's object in the storage version's shape, and the version it is now in. */
  toStorage(obj: KObject, version: string): { obj: KObject; version: string } {
    const convert = this.def.versionInfo?.[version]?.toStorage;
    if (!convert) return { obj, version };
    return { obj: convert(obj), version: storageVersionOf(this.def) ?? version };
  }

  /** Not older than `rv`: waits briefly for a version not reached yet, then 504. */
  async waitForRv(rv: number): Promise<void> {
    if (rv <= this.storage.revision()) return;
    const ok = await this.storage.waitFor(rv, this.opts.futureRvWaitMs);
    if (!ok) throw tooLargeResourceVersion(rv, this.storage.revision());
  }

  getStored(namespace: string, name: string): StoredObject | undefined {
    return this.storage.get(this.key(namespace, name));
  }

  /**
   * The stored objects of a namespace (every namespace when ''), as this server holds them now:
   * what an informer's lister gives the server's own parts, without a list request's options,
   * versions and chunks. Undefined for a kind computed on reads.
   */
  current(namespace: string): KObject[] | undefined {
    if (this.def.strategy.live) return undefined;
    return this.storage.list(this.bucket, this.prefix(namespace)).map((s) => s.obj);
  }

  parseSelectors(p: ListParams): { labels: LabelSelector; fields: FieldSelector } {
    const parsed = this.parseSelectorSyntax(p);
    this.checkFieldLabels(parsed.fields);
    return parsed;
  }

  /** Selector syntax (Kubernetes decodes the query first: a syntax error is a 400 before anything else). */
  parseSelectorSyntax(p: ListParams): { labels: LabelSelector; fields: FieldSelector } {
    return {
      labels: parseLabelSelector(p.labelSelector ?? ''),
      fields: parseFieldSelector(p.fieldSelector ?? '', () => true),
    };
  }

  /** Field labels the kind does not know: 400 (after the ListOptions validation, as Kubernetes). */
  checkFieldLabels(fields: FieldSelector): void {
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

  matcherOf(labels: LabelSelector, fields: FieldSelector): (obj: KObject) => boolean {
    if (labels.length === 0 && fields.length === 0) return () => true;
    return (obj) =>
      matchLabels(labels, obj.metadata.labels) && matchFields(fields, (f) => this.fieldValue(obj, f));
  }

  /** The oldest version a list can be served at (a shared store keeps more than its cache's history). */
  oldestListable(): number {
    return this.storage.oldestListable ? this.storage.oldestListable() : this.storage.oldestRetained();
  }

  /** The stored objects below `prefix` at `atRv` (undefined: now); older than the cache's history, from the backing store. */
  async listStored(prefix: string, atRv: number | undefined): Promise<StoredObject[]> {
    if (atRv === undefined || !this.storage.listAt || atRv >= this.storage.oldestRetained())
      return this.storage.list(this.bucket, prefix, atRv);
    return this.storage.listAt(this.bucket, prefix, atRv);
  }

  /** The request's admission, mutating phase: the object may come back replaced. */
  admitMutate(ctx: RequestContext, w: WriteAdmissionRequest): MaybePromise<KObject | undefined> {
    if (!ctx.admission) return w.object;
    const m = ctx.admission.mutate(w);
    return isPromise(m) ? m.then((o) => o ?? w.object) : (m ?? w.object);
  }

  validateAll(obj: KObject, ctx: RequestContext, old?: KObject, subresource = ''): void {
    // (validateMeta's array is new: the kind's causes join it)
    const causes = validateMeta(obj, this.nameRule, this.def.namespaced);
    const s = this.def.strategy;
    const sub = subresource ? s.validateSubresource?.[subresource] : undefined;
    if (old && sub) causes.push(...sub(obj, old, ctx));
    else if (old) causes.push(...(s.validateUpdate?.(obj, old, ctx) ?? s.validate?.(obj, ctx) ?? []));
    else causes.push(...(s.validate?.(obj, ctx) ?? []));
    if (this.def.schema && !this.def.custom) {
      // fields a built-in schema requires (e.g. an owner reference's uid), unless the kind said so
      const missing = missingRequired(obj, this.def.schema);
      if (missing.length) {
        const said = new Set(causes.map((c) => c.field));
        for (const f of missing)
          if (!said.has(f))
            causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: f });
      }
    }
    if (causes.length)
      throw errors.invalid(
        { group: this.def.group, kind: this.def.kind },
        obj.metadata.name ?? obj.metadata.generateName ?? '',
        causes,
      );
  }

  /** A missing namespace answers 404 (unless `mayBeMissing`: admission may yet create it); a terminating one refuses creations. */
  ensureNamespace(namespace: string, creating: boolean, mayBeMissing = false): void {
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
  recordOwnership(
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

  mapStorageError(e: unknown, name: string): unknown {
    if (e instanceof PreconditionError) return errors.staleUpdate(this.def.group, this.def.plural, name);
    if (e instanceof KeyNotFoundError) return errors.notFound(this.def.group, this.def.plural, name);
    return e;
  }

  /** The kind's warning about a delete request's options (once per request). */
  warnOnDelete(p: DeleteParams, ctx: RequestContext, version: string): void {
    const w = this.def.strategy.deleteWarning?.(p.propagationPolicy, version);
    if (w && !ctx.warnings.includes(w)) ctx.warnings.push(w);
  }

  /** The finalizers a delete leaves for the garbage collector, or undefined when they stay (gc-finalizers.ts). */
  gcFinalizers(obj: KObject, p: DeleteParams, version: string): string[] | undefined {
    const policy = this.def.strategy.defaultGarbageCollectionPolicy?.(version) ?? 'DeleteDependents';
    return gcFinalizers(obj, p.propagationPolicy, policy);
  }
}
