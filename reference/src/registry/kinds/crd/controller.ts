// The CRD controller: startCrdController and the serving of the custom resources of stored definitions.
import { StatusError } from '../../../errors/status.ts';
import type { KObject } from '../../../storage/types.ts';
import { NameQueue } from '../../../util/name-queue.ts';
import { clone, deepEqual } from '../../../util/object.ts';
import {
  type AcceptedNames,
  buildCustomResource,
  type CustomResource,
  installCustomResource,
  uninstallCustomResource,
} from '../../custom.ts';
import type { Registry } from '../../registry.ts';
import type { GenericStore } from '../../store.ts';
import type { RequestContext } from '../../types.ts';
import {
  CLEANUP_FINALIZER,
  type Condition,
  CRD_GROUP,
  CRD_PLURAL,
  type CrdStatus,
  findCondition,
  isConditionTrue,
  setCondition,
  specOf,
  statusOf,
} from './shared.ts';

const SYSTEM: RequestContext = {
  user: { username: 'system:apiextensions-controller', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
  // the manager of its writes in managedFields (Kubernetes: kube-apiserver)
  fieldManager: 'orch-apiserver',
};

interface ServedEntry {
  fingerprint: string;
  cr: CustomResource;
}

/** Names of a definition are accepted unless another definition of the group already uses them. */
function acceptNames(crd: KObject, peers: KObject[]): { accepted: AcceptedNames; cond: Condition } {
  const requested = (specOf(crd).names ?? {}) as AcceptedNames;
  const current = statusOf(crd).acceptedNames ?? ({ plural: '', kind: '' } as AcceptedNames);
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const p of peers) {
    const a = statusOf(p).acceptedNames;
    if (!a) continue;
    for (const n of [a.plural, a.singular, ...(a.shortNames ?? [])]) if (n) resources.add(n);
    for (const n of [a.kind, a.listKind]) if (n) kinds.add(n);
  }
  const next: AcceptedNames = { ...clone(current) };
  const cond: Condition = { type: 'NamesAccepted', status: 'Unknown' };
  const fail = (reason: string, name: string) => {
    cond.status = 'False';
    cond.reason = reason;
    cond.message = `"${name}" is already in use`;
  };
  const fresh = (req: string | undefined, acc: string | undefined, used: Set<string>) =>
    !req || req === acc || !used.has(req);
  if (fresh(requested.plural, current.plural, resources)) next.plural = requested.plural;
  else fail('PluralConflict', requested.plural);
  if (fresh(requested.singular, current.singular, resources)) next.singular = requested.singular;
  else fail('SingularConflict', requested.singular!);
  if (!deepEqual(requested.shortNames ?? [], current.shortNames ?? [])) {
    const bad = (requested.shortNames ?? []).filter(
      (s) => !(current.shortNames ?? []).includes(s) && resources.has(s),
    );
    if (bad.length) {
      cond.status = 'False';
      cond.reason = 'ShortNamesConflict';
      cond.message = bad.map((s) => `"${s}" is already in use`).join(', ');
      if (bad.length > 1) cond.message = `[${cond.message}]`;
    } else next.shortNames = requested.shortNames;
  }
  if (fresh(requested.kind, current.kind, kinds)) next.kind = requested.kind;
  else fail('KindConflict', requested.kind);
  if (fresh(requested.listKind, current.listKind, kinds)) next.listKind = requested.listKind;
  else fail('ListKindConflict', requested.listKind!);
  next.categories = requested.categories;
  if (next.shortNames === undefined || next.shortNames.length === 0) delete next.shortNames;
  if (next.categories === undefined || next.categories.length === 0) delete next.categories;
  if (!next.singular) delete next.singular;
  if (!next.listKind) delete next.listKind;
  if (cond.status === 'Unknown')
    Object.assign(cond, { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
  // in the field order of the Go type (plural and kind always present)
  const ordered: Record<string, unknown> = { plural: next.plural ?? '' };
  if (next.singular) ordered.singular = next.singular;
  if (next.shortNames) ordered.shortNames = next.shortNames;
  ordered.kind = next.kind ?? '';
  if (next.listKind) ordered.listKind = next.listKind;
  if (next.categories) ordered.categories = next.categories;
  return { accepted: ordered as unknown as AcceptedNames, cond };
}

export class CrdController {
  private readonly served = new Map<string, ServedEntry>();
  private readonly queue = new NameQueue(
    (name) => this.reconcileOrRetry(name),
    () => {
      this.synced = true;
    },
  );
  private readonly finalizing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private stopped = false;
  private cancel: () => void = () => {};
  /** Set once the definitions stored at start have all been reconciled (the crd-informer-synced check). */
  synced = false;

  constructor(private readonly registry: Registry) {}

  private get store(): GenericStore {
    return this.registry.byResource(CRD_GROUP, CRD_PLURAL)!.store;
  }

  private all(): KObject[] {
    const bucket = this.store.bucket;
    return this.registry.storage.list(bucket, `${bucket}/`).map((s) => s.obj);
  }

  /** Serves what stored definitions say is accepted (synchronously), then reconciles and watches. */
  start(): void {
    const storage = this.registry.storage;
    const rv = storage.revision();
    for (const crd of this.all()) {
      const accepted = statusOf(crd).acceptedNames;
      if (
        (isConditionTrue(crd, 'NamesAccepted') || isConditionTrue(crd, 'Established')) &&
        accepted?.plural &&
        accepted.kind
      ) {
        try {
          this.serve(crd, accepted);
        } catch (e) {
          console.error(`customresourcedefinition ${crd.metadata.name}: cannot serve:`, e);
        }
      }
      this.queue.add(crd.metadata.name!);
    }
    if (this.queue.size === 0) this.synced = true;
    this.cancel = storage.watch(this.store.bucket, rv, (ev) => {
      if (this.stopped) return;
      const name = ev.obj.metadata.name;
      if (name) this.queue.add(name);
      // names freed or taken: the other definitions of the group are looked at again
      const group = specOf(ev.obj).group;
      for (const other of this.all())
        if (specOf(other).group === group && other.metadata.name !== name)
          this.queue.add(other.metadata.name!);
    });
  }

  stop(): void {
    this.stopped = true;
    this.queue.stop();
    this.cancel();
  }

  private async reconcileOrRetry(name: string): Promise<void> {
    try {
      await this.reconcile(name);
      this.failures.delete(name);
    } catch (e) {
      if (this.stopped) return;
      if (!(e instanceof StatusError)) console.error(`customresourcedefinition ${name}:`, e);
      // retried with a growing delay, a few times; the next change of the definition retries anew
      const n = (this.failures.get(name) ?? 0) + 1;
      this.failures.set(name, n);
      if (n <= 8) {
        const t = setTimeout(() => this.queue.add(name), 50 * 2 ** n);
        t.unref?.();
      } else this.failures.delete(name);
    }
  }

  private async reconcile(name: string): Promise<void> {
    const cur = this.store.getStored('', name);
    if (!cur) {
      this.unserve(name);
      return;
    }
    const crd = cur.obj;
    if (crd.metadata.deletionTimestamp) {
      const entry = this.served.get(name);
      if (entry) entry.cr.state.terminating = true;
      this.finalize(name);
      return;
    }
    const group = specOf(crd).group;
    const peers = this.all().filter((o) => o.metadata.name !== name && specOf(o).group === group);
    const { accepted, cond } = acceptNames(crd, peers);
    const wasEstablished = isConditionTrue(crd, 'Established');
    const serving = (cond.status === 'True' || wasEstablished) && !!accepted.plural && !!accepted.kind;
    if (serving) this.serve(crd, accepted);
    else this.unserve(name);
    const status = clone(statusOf(crd));
    status.acceptedNames = accepted;
    setCondition(status, cond);
    if (cond.status === 'True' && this.served.has(name)) {
      setCondition(status, {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      });
    } else if (!wasEstablished) {
      setCondition(status, {
        type: 'Established',
        status: 'False',
        reason: 'NotAccepted',
        message: 'not all names are accepted',
      });
    }
    await this.writeStatus(cur.obj, status);
  }

  /** Writes a status computed from `base`; a conflict means a newer object, which is reconciled again. */
  private async writeStatus(base: KObject, status: CrdStatus): Promise<void> {
    if (deepEqual(status, base.status)) return;
    const next = clone(base);
    next.status = status;
    try {
      await this.store.update('', base.metadata.name!, next, SYSTEM, 'v1', 'status');
    } catch (e) {
      if (e instanceof StatusError && (e.code === 409 || e.code === 404)) {
        this.queue.add(base.metadata.name!);
        return;
      }
      throw e;
    }
  }

  private serve(crd: KObject, accepted: AcceptedNames): void {
    const name = crd.metadata.name!;
    const fingerprint = JSON.stringify([crd.spec, accepted]);
    const entry = this.served.get(name);
    const terminating = !!crd.metadata.deletionTimestamp;
    if (entry && entry.fingerprint === fingerprint) {
      entry.cr.state.terminating = terminating;
      return;
    }
    const group = specOf(crd).group;
    const existing = this.registry.byResource(group, accepted.plural);
    if (existing && !existing.def.custom) return; // never shadow a built-in resource
    if (entry && entry.cr.def.plural !== accepted.plural)
      uninstallCustomResource(this.registry, entry.cr.def);
    const cr = buildCustomResource(crd, accepted, entry?.cr.state ?? { terminating });
    cr.state.terminating = terminating;
    installCustomResource(this.registry, cr);
    this.served.set(name, { fingerprint, cr });
  }

  private unserve(name: string): void {
    const entry = this.served.get(name);
    if (!entry) return;
    this.served.delete(name);
    uninstallCustomResource(this.registry, entry.cr.def);
  }

  /** Deletes every custom resource of a definition being deleted, then removes the cleanup finalizer. */
  private finalize(name: string): void {
    if (this.finalizing.has(name)) return;
    this.finalizing.add(name);
    setImmediate(() => void this.finalizeStep(name).catch((e) => this.finalizeRetry(name, e)));
  }

  private finalizeDone(name: string): void {
    this.finalizing.delete(name);
  }

  private finalizeAgain(name: string, ms: number): void {
    const t = setTimeout(() => void this.finalizeStep(name).catch((e) => this.finalizeRetry(name, e)), ms);
    t.unref?.();
  }

  private finalizeRetry(name: string, e: unknown): void {
    if (this.stopped) {
      this.finalizeDone(name);
      return;
    }
    if (!(e instanceof StatusError)) console.error(`customresourcedefinition ${name}: finalizing:`, e);
    this.finalizeAgain(name, 100);
  }

  /** One step of the finalization: a condition written, instances deleted, or the finalizer removed. */
  private async finalizeStep(name: string): Promise<void> {
    if (this.stopped) return this.finalizeDone(name);
    const cur = this.store.getStored('', name);
    if (
      !cur?.obj.metadata.deletionTimestamp ||
      !(cur.obj.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)
    )
      return this.finalizeDone(name);
    const crd = cur.obj;
    const entry = this.served.get(name);
    const status = clone(statusOf(crd));
    if (isConditionTrue(crd, 'Established') && entry) {
      if (findCondition(crd, 'Terminating')?.reason === 'InstanceDeletionPending') {
        setCondition(status, {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionInProgress',
          message: 'CustomResource deletion is in progress',
        });
        await this.writeStatus(crd, status);
        return this.finalizeAgain(name, 0);
      }
      if ((await this.deleteInstances(entry.cr)) > 0) return this.finalizeAgain(name, 50);
      setCondition(status, {
        type: 'Terminating',
        status: 'False',
        reason: 'InstanceDeletionCompleted',
        message: 'removed all instances',
      });
    } else {
      setCondition(status, {
        type: 'Terminating',
        status: 'False',
        reason: 'NeverEstablished',
        message: 'resource was never established',
      });
    }
    if (!deepEqual(status, crd.status)) {
      await this.writeStatus(crd, status);
      return this.finalizeAgain(name, 0);
    }
    // the last step: without the finalizer (and no other) the definition is removed
    const next = clone(crd);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
    try {
      await this.store.update('', name, next, SYSTEM, 'v1');
    } catch (e) {
      if (e instanceof StatusError && e.code === 409) return this.finalizeAgain(name, 0);
      if (e instanceof StatusError && e.code === 404) return this.finalizeDone(name);
      throw e;
    }
    this.finalizeDone(name);
    this.queue.add(name);
  }

  /** Deletes the custom resources of a definition; how many there were (those being deleted included). */
  private async deleteInstances(cr: CustomResource): Promise<number> {
    const served = this.registry.byResource(cr.def.group, cr.def.plural);
    let remaining = 0;
    if (served) {
      const version = served.def.versions[0] ?? cr.storageVersion;
      const { items } = await served.store.list('', {});
      for (const it of items) {
        remaining++;
        if (it.metadata.deletionTimestamp) continue;
        try {
          await served.store.delete(it.metadata.namespace ?? '', it.metadata.name!, {}, SYSTEM, version);
        } catch {
          // gone meanwhile, or refused: looked at again on the next round
        }
      }
    }
    return remaining;
  }
}

const controllers = new WeakMap<Registry, CrdController>();

/** Starts the controller of custom resource definitions: resumes serving stored ones, then watches. */
export function startCrdController(registry: Registry): CrdController {
  controllers.get(registry)?.stop();
  const c = new CrdController(registry);
  controllers.set(registry, c);
  c.start();
  return c;
}
