// The policy status controller (Kubernetes 1.28 runs it with the ValidatingAdmissionPolicy gate
// on): each policy whose generation is newer than its status.observedGeneration is type checked
// (type-checking.ts) and gets `status.observedGeneration` and `status.typeChecking` (its
// expression warnings, none when all check) written through the status subresource.
import type { Registry } from '../../registry/registry.ts';
import type { RequestContext } from '../../registry/types.ts';
import type { KObject } from '../../storage/types.ts';
import { NameQueue } from '../../util/name-queue.ts';
import { typeCheck } from './type-checking.ts';

const GROUP = 'admissionregistration.orch.io';
const PLURAL = 'validatingadmissionpolicies';

const SYSTEM: RequestContext = {
  user: {
    username: 'system:serviceaccount:kube-system:validatingadmissionpolicy-status-controller',
    groups: ['system:masters'],
  },
  warnings: [],
  dryRun: false,
  fieldManager: 'validatingadmissionpolicy-status-controller',
};

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

export class PolicyStatusController {
  private readonly queue = new NameQueue(async (name) => {
    try {
      await this.reconcile(name);
    } catch (e) {
      // a conflict: the newer version is queued by the watch; anything else is logged
      if ((e as { code?: number }).code !== 409)
        console.error(`validatingadmissionpolicy ${name}: status:`, e);
    }
  });
  private stopped = false;
  private cancel: () => void = () => {};

  constructor(private readonly registry: Registry) {}

  private get store() {
    return this.registry.byResource(GROUP, PLURAL)?.store;
  }

  start(): void {
    const store = this.store;
    if (!store) return;
    const storage = this.registry.storage;
    const rv = storage.revision();
    for (const s of storage.list(store.bucket, `${store.bucket}/`)) this.queue.add(s.obj.metadata.name!);
    this.cancel = storage.watch(store.bucket, rv, (ev) => {
      if (!this.stopped && ev.obj.metadata.name) this.queue.add(ev.obj.metadata.name);
    });
  }

  stop(): void {
    this.stopped = true;
    this.queue.stop();
    this.cancel();
  }

  private async reconcile(name: string): Promise<void> {
    const store = this.store;
    const cur = store?.getStored('', name)?.obj;
    if (!store || !cur || cur.metadata.deletionTimestamp) return;
    const generation = cur.metadata.generation ?? 0;
    if (rec(cur.status).observedGeneration === generation) return;
    const warnings = typeCheck(this.registry, cur);
    const next: KObject = {
      ...cur,
      status: {
        ...rec(cur.status),
        observedGeneration: generation,
        typeChecking: warnings.length ? { expressionWarnings: warnings } : {},
      },
    };
    await store.update('', name, next, SYSTEM, 'v1beta1', 'status');
  }
}
