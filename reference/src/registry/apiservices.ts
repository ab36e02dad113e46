// The APIServices this server keeps, as a Kubernetes 1.28 server does: at start one local
// APIService (`service` unset) per built-in group version it serves, ranked by 1.28's group and
// version priorities (label `kube-aggregator.orch.io/automanaged: onstart`); one per group version
// of each custom resource definition while it is served (priorities 1000 and 100, label
// `"true"`); and the `Available` condition of every APIService: True for local ones, False when
// the named Service is missing or lacks the port, and False otherwise too, as this server does
// not forward requests to other servers.
import { againOnConflict } from '../errors/status.ts';
import type { KObject } from '../storage/types.ts';
import { NameQueue } from '../util/name-queue.ts';
import { rfc3339 } from '../util/time.ts';
import { APIREGISTRATION_GROUP, type APIService, type APIServiceCondition } from './kinds/apiservice.ts';
import { sameSpec } from './kinds/flowcontrol-common.ts';
import type { Registry } from './registry.ts';
import { withCondition } from './status-condition.ts';
import type { GenericStore } from './store.ts';
import type { RequestContext } from './types.ts';

export const AUTOMANAGED_LABEL = 'kube-aggregator.orch.io/automanaged';

/** 1.28's ranks of the built-in group versions (groupPriorityMinimum, versionPriority). */
export const API_VERSION_PRIORITIES: Record<string, [number, number]> = {
  v1: [18000, 1],
  'apps/v1': [17800, 15],
  'events.orch.io/v1': [17750, 15],
  'events.orch.io/v1beta1': [17750, 5],
  'authentication.orch.io/v1': [17700, 15],
  'authentication.orch.io/v1beta1': [17700, 9],
  'authentication.orch.io/v1alpha1': [17700, 1],
  'authorization.orch.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'autoscaling/v2beta1': [17500, 9],
  'autoscaling/v2beta2': [17500, 1],
  'batch/v1': [17400, 15],
  'batch/v1beta1': [17400, 9],
  'batch/v2alpha1': [17400, 9],
  'certificates.orch.io/v1': [17300, 15],
  'certificates.orch.io/v1alpha1': [17300, 1],
  'networking.orch.io/v1': [17200, 15],
  'networking.orch.io/v1alpha1': [17200, 1],
  'policy/v1': [17100, 15],
  'policy/v1beta1': [17100, 9],
  'rbac.authorization.orch.io/v1': [17000, 15],
  'storage.orch.io/v1': [16800, 15],
  'storage.orch.io/v1beta1': [16800, 9],
  'storage.orch.io/v1alpha1': [16800, 1],
  'apiextensions.orch.io/v1': [16700, 15],
  'admissionregistration.orch.io/v1': [16700, 15],
  'admissionregistration.orch.io/v1beta1': [16700, 12],
  'admissionregistration.orch.io/v1alpha1': [16700, 9],
  'scheduling.orch.io/v1': [16600, 15],
  'coordination.orch.io/v1': [16500, 15],
  'node.orch.io/v1': [16300, 15],
  'node.orch.io/v1alpha1': [16300, 1],
  'node.orch.io/v1beta1': [16300, 9],
  'discovery.orch.io/v1': [16200, 15],
  'discovery.orch.io/v1beta1': [16200, 12],
  'flowcontrol.apiserver.orch.io/v1beta3': [16100, 18],
  'flowcontrol.apiserver.orch.io/v1beta2': [16100, 15],
  'flowcontrol.apiserver.orch.io/v1beta1': [16100, 12],
  'flowcontrol.apiserver.orch.io/v1alpha1': [16100, 9],
  'internal.apiserver.orch.io/v1alpha1': [16000, 9],
  'resource.orch.io/v1alpha2': [15900, 9],
};

/** Custom resources' group versions rank after the built-in ones. */
const CUSTOM_PRIORITY: [number, number] = [1000, 100];

const SYSTEM: RequestContext = {
  user: { username: 'system:apiserver', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
  fieldManager: 'kube-apiserver',
};

const apiServiceName = (group: string, version: string) => `${version}.${group}`;

function localAPIService(
  group: string,
  version: string,
  [gpm, vp]: [number, number],
  managed: string,
): KObject {
  return {
    apiVersion: `${APIREGISTRATION_GROUP}/v1`,
    kind: 'APIService',
    metadata: { name: apiServiceName(group, version), labels: { [AUTOMANAGED_LABEL]: managed } },
    spec: { group, version, groupPriorityMinimum: gpm, versionPriority: vp },
  };
}

/** The group versions this server serves itself: built-in (with their ranks) and of custom resources. */
function servedGroupVersions(registry: Registry): {
  builtin: [string, string][];
  custom: [string, string][];
} {
  const builtin = new Map<string, [string, string]>();
  const custom = new Map<string, [string, string]>();
  for (const { def } of registry.all())
    for (const v of def.versions) {
      if (!registry.servesGroupVersion(def.group, v) || def.versionInfo?.[v]?.served === false) continue;
      const gv = def.group ? `${def.group}/${v}` : v;
      if (API_VERSION_PRIORITIES[gv]) builtin.set(gv, [def.group, v]);
      else if (def.custom) custom.set(gv, [def.group, v]);
    }
  return { builtin: [...builtin.values()], custom: [...custom.values()] };
}

export interface APIServices {
  /** Why the APIServices made at start are not all Available yet (1.28's `autoregister-completion`), or undefined. */
  pending(): string | undefined;
  stop(): void;
}

/** The `Available` condition an APIService should have now. */
function availability(registry: Registry, o: KObject): Omit<APIServiceCondition, 'lastTransitionTime'> {
  const svc = (o as APIService).spec?.service;
  if (!svc)
    return {
      type: 'Available',
      status: 'True',
      reason: 'Local',
      message: 'Local APIServices are always available',
    };
  const service = registry.byResource('', 'services')?.store.getStored(svc.namespace ?? '', svc.name ?? '')
    ?.obj as { spec?: { type?: string; ports?: { port?: number }[] } } | undefined;
  if (!service)
    return {
      type: 'Available',
      status: 'False',
      reason: 'ServiceNotFound',
      message: `service/${svc.name} in "${svc.namespace}" is not present`,
    };
  if (
    (service.spec?.type ?? 'ClusterIP') === 'ClusterIP' &&
    !service.spec?.ports?.some((p) => p.port === (svc.port ?? 443))
  )
    return {
      type: 'Available',
      status: 'False',
      reason: 'ServicePortError',
      message: `service/${svc.name} in "${svc.namespace}" is not listening on port ${svc.port ?? 443}`,
    };
  return {
    type: 'Available',
    status: 'False',
    reason: 'FailedDiscoveryCheck',
    message: 'this server does not forward requests to other API servers',
  };
}

/** What the APIService upkeep works with. */
interface Upkeep {
  registry: Registry;
  store: GenericStore;
  now: () => number;
  stopped: boolean;
}

/** Creates the APIServices of the served group versions, then keeps them and their availability. */
export async function startAPIServices(
  registry: Registry,
  now: () => number = Date.now,
): Promise<APIServices> {
  const store = registry.byResource(APIREGISTRATION_GROUP, 'apiservices')?.store;
  if (!store) return { pending: () => undefined, stop() {} };
  const up: Upkeep = { registry, store, now, stopped: false };

  // built-in group versions: once, at start
  const onStart = servedGroupVersions(registry).builtin.map(([g, v]) => apiServiceName(g, v));
  // all at once: a durable store commits them together rather than one sync each
  await Promise.all(
    servedGroupVersions(registry).builtin.map(([g, v]) =>
      put(up, localAPIService(g, v, API_VERSION_PRIORITIES[g ? `${g}/${v}` : v]!, 'onstart')),
    ),
  );
  const pending = pendingCheck(up, onStart);

  // custom resources' group versions: while served
  let syncing = Promise.resolve();
  const queueSync = () => {
    if (up.stopped) return;
    syncing = syncing
      .then(() => syncCustom(up))
      .catch((e) => console.error('apiservices: custom resources:', e));
  };
  queueSync();
  registry.changed(queueSync);

  // the Available condition
  const available = new NameQueue((name) => reconcile(up, name));
  const cancels = watchAvailability(up, available);
  // the APIServices made at start are available before the server listens
  await Promise.all(onStart.map((n) => reconcile(up, n)));
  return {
    pending,
    stop() {
      up.stopped = true;
      available.stop();
      for (const c of cancels) c();
    },
  };
}

/** Creates or updates an APIService (another server on the same store may write the same APIService at the same moment: look again). */
function put(up: Upkeep, want: KObject): Promise<void> {
  const { store } = up;
  return againOnConflict(async () => {
    const cur = store.getStored('', want.metadata.name!)?.obj;
    if (!cur) {
      await store.create('', want, SYSTEM, 'v1');
      return;
    }
    if (cur.metadata.labels?.[AUTOMANAGED_LABEL] && !sameSpec(cur.spec, want.spec))
      await store.update('', want.metadata.name!, { ...cur, spec: want.spec }, SYSTEM, 'v1');
  });
}

/** What holds up readiness: the APIServices made at start not yet seen available (once seen, no longer). */
function pendingCheck(up: Upkeep, onStart: string[]): () => string | undefined {
  const seen = new Set<string>();
  return () => {
    const missing = onStart.filter((n) => {
      if (seen.has(n)) return false;
      const c = (up.store.getStored('', n)?.obj as APIService | undefined)?.status?.conditions?.find(
        (x) => x.type === 'Available',
      );
      if (c?.status === 'True') seen.add(n);
      return !seen.has(n);
    });
    return missing.length ? `missing APIService: [${missing.join(' ')}]` : undefined;
  };
}

/** The APIServices of the custom resources' group versions: those served, and no others. */
async function syncCustom(up: Upkeep): Promise<void> {
  const { registry, store } = up;
  const want = new Map(
    servedGroupVersions(registry).custom.map(([g, v]) => [
      apiServiceName(g, v),
      localAPIService(g, v, CUSTOM_PRIORITY, 'true'),
    ]),
  );
  for (const w of want.values()) await put(up, w);
  for (const s of registry.storage.list(store.bucket, `${store.bucket}/`))
    if (s.obj.metadata.labels?.[AUTOMANAGED_LABEL] === 'true' && !want.has(s.obj.metadata.name!))
      await store.delete('', s.obj.metadata.name!, {}, SYSTEM, 'v1').catch(() => undefined);
}

/** An APIService's Available condition, written when it changes. */
async function reconcile(up: Upkeep, name: string): Promise<void> {
  try {
    const cur = up.store.getStored('', name)?.obj;
    if (!cur || up.stopped) return;
    const a = availability(up.registry, cur);
    const want: APIServiceCondition = {
      type: a.type,
      status: a.status,
      lastTransitionTime: rfc3339(up.now()),
      reason: a.reason,
      message: a.message,
    };
    const next = withCondition(cur, want);
    if (!next) return;
    await up.store.update('', name, next, SYSTEM, 'v1', 'status');
  } catch (e) {
    const code = (e as { code?: number }).code;
    if (code !== 409 && code !== 404) console.error(`apiservice ${name}: status:`, e);
  }
}

/** Queues every APIService, and those changed later or naming a Service that changed; returns the cancels. */
function watchAvailability(up: Upkeep, available: NameQueue): (() => void)[] {
  const { registry, store } = up;
  const storage = registry.storage;
  const rv = storage.revision();
  for (const s of storage.list(store.bucket, `${store.bucket}/`)) available.add(s.obj.metadata.name!);
  const cancels = [
    storage.watch(store.bucket, rv, (ev) => {
      if (!up.stopped && ev.type !== 'DELETED' && ev.obj.metadata.name) available.add(ev.obj.metadata.name);
    }),
  ];
  // a Service made, changed or removed changes the APIServices naming it
  const services = registry.byResource('', 'services')?.store;
  if (services)
    cancels.push(
      storage.watch(services.bucket, rv, (ev) => {
        if (up.stopped) return;
        for (const s of storage.list(store.bucket, `${store.bucket}/`)) {
          const svc = (s.obj as APIService).spec?.service;
          if (svc && svc.name === ev.obj.metadata.name && svc.namespace === ev.obj.metadata.namespace)
            available.add(s.obj.metadata.name!);
        }
      }),
    );
  return cancels;
}
