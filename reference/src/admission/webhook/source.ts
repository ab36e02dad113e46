// The webhooks admission calls: every webhook of the stored configurations of one kind, in the
// order Kubernetes 1.28 calls them (configurations sorted by name, then each configuration's
// webhooks in order). Read per request, so a configuration takes effect as soon as it is
// stored; the webhooks of an unchanged object are read once.
import { ADMISSION_GROUP } from '../../registry/kinds/webhook-common.ts';
import type { Registry } from '../../registry/registry.ts';
import type { KObject } from '../../storage/types.ts';
import { accessorsOf, type WebhookAccessor } from './accessor.ts';

export class WebhookSource {
  private readonly bucket: string;
  private readonly cache = new WeakMap<KObject, WebhookAccessor[]>();

  constructor(
    private readonly registry: Registry,
    readonly mutating: boolean,
  ) {
    this.bucket = `${ADMISSION_GROUP}/${mutating ? 'mutating' : 'validating'}webhookconfigurations`;
  }

  webhooks(): WebhookAccessor[] {
    const out: WebhookAccessor[] = [];
    // storage lists by key, and a cluster-scoped key ends with the name: sorted by name
    for (const s of this.registry.storage.list(this.bucket, `${this.bucket}/`)) {
      let hooks = this.cache.get(s.obj);
      if (!hooks) {
        hooks = accessorsOf(s.obj as unknown as Record<string, unknown>, this.mutating);
        this.cache.set(s.obj, hooks);
      }
      out.push(...hooks);
    }
    return out;
  }
}
