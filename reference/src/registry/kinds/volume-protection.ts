// Release of the volume protection finalizers (what Kubernetes' pvc-protection and
// pv-protection controllers do): once a claim marked for deletion is used by no running pod of
// its namespace, or a volume marked for deletion is no longer bound, its finalizer is removed
// and the object goes. Checked again until then.
import type { KObject } from '../../storage/types.ts';
import type { Registry } from '../registry.ts';
import type { RequestContext } from '../types.ts';

const SERVER: RequestContext = {
  user: { username: 'system:apiserver', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
};
const RETRY_MS = 100;

interface PodVolumes {
  spec?: { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] };
  status?: { phase?: string };
}

/** Whether a running pod of the claim's namespace mounts it. */
export async function claimInUse(registry: Registry, claim: KObject): Promise<boolean> {
  const pods = registry.byResource('', 'pods');
  if (!pods) return false;
  const { items } = await pods.store.list(claim.metadata.namespace ?? '', {});
  return items.some((p) => {
    const pod = p as PodVolumes;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
    return (pod.spec?.volumes ?? []).some((v) => v?.persistentVolumeClaim?.claimName === claim.metadata.name);
  });
}

/** Whether a volume is bound to a claim. */
export async function volumeInUse(_registry: Registry, pv: KObject): Promise<boolean> {
  return (pv.status as { phase?: string } | undefined)?.phase === 'Bound';
}

/**
 * Removes `finalizer` from an object marked for deletion once `inUse` says no (re-checked
 * until then, or until the object or its finalizer is gone).
 */
export function releaseWhenUnused(
  registry: () => Registry,
  plural: string,
  finalizer: string,
  inUse: (r: Registry, o: KObject) => Promise<boolean>,
  marked: KObject,
): void {
  const ns = marked.metadata.namespace ?? '';
  const name = marked.metadata.name ?? '';
  const step = async (): Promise<void> => {
    const served = registry().byResource('', plural);
    const cur = served?.store.getStored(ns, name)?.obj;
    if (!served || !cur?.metadata.deletionTimestamp || !cur.metadata.finalizers?.includes(finalizer)) return;
    if (await inUse(registry(), cur)) {
      setTimeout(() => void step().catch(() => undefined), RETRY_MS).unref();
      return;
    }
    const next = {
      ...cur,
      metadata: { ...cur.metadata, finalizers: cur.metadata.finalizers.filter((f) => f !== finalizer) },
    };
    try {
      await served.store.update(ns, name, next, SERVER, 'v1');
    } catch {
      setTimeout(() => void step().catch(() => undefined), RETRY_MS).unref();
    }
  };
  setImmediate(() => void step().catch(() => undefined));
}
