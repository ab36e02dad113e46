// Pod (core/v1) with the `status` and `eviction` subresources. The pod spec schema, defaults
// and validation are shared with workload templates (Deployment). There is no node agent:
// a pod stays Pending until someone writes its status, and deletion is immediate unless
// finalizers hold it.
import type { StatusCause } from '../../errors/status.ts';
import { arr, bool, int, keyedList, mapOf, obj, str, time } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { Schema } from '../../schema/types.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import type { RequestContext } from '../types.ts';
import { fieldErr, keepAllButStatus, normalizeBySchema, quantity, quantityValue, since } from './common.ts';
import { defineKind, printed } from './define.ts';
import { type Container, defaultPodSpec, type PodSpec, podSpecSchema } from './pod-spec.ts';
import { validateEphemeralContainers, validatePodSpec } from './pod-spec-validation.ts';

// ------------------------------------------------------------------ schema

const containerState = obj({
  waiting: obj({ reason: str(), message: str() }),
  running: obj({ startedAt: time() }),
  terminated: obj({
    exitCode: int(),
    signal: int(),
    reason: str(),
    message: str(),
    startedAt: time(),
    finishedAt: time(),
    containerID: str(),
  }),
});
const containerStatus = obj({
  name: str(),
  state: containerState,
  lastState: containerState,
  ready: bool(),
  restartCount: int(),
  image: str(),
  imageID: str(),
  containerID: str(),
  started: bool(),
  allocatedResources: mapOf(quantity()),
  resources: obj({
    limits: mapOf(quantity()),
    requests: mapOf(quantity()),
    claims: arr(obj({ name: str() })),
  }),
});

export const podStatusSchema: Schema = obj({
  phase: str(),
  conditions: keyedList(
    obj({
      type: str(),
      status: str(),
      lastProbeTime: time({ nullable: true }),
      lastTransitionTime: time(),
      reason: str(),
      message: str(),
    }),
    ['type'],
  ),
  message: str(),
  reason: str(),
  nominatedNodeName: str(),
  hostIP: str(),
  hostIPs: keyedList(obj({ ip: str() }), ['ip']),
  podIP: str(),
  podIPs: keyedList(obj({ ip: str() }), ['ip']),
  startTime: time(),
  initContainerStatuses: arr(containerStatus),
  containerStatuses: arr(containerStatus),
  qosClass: str(),
  ephemeralContainerStatuses: arr(containerStatus),
  resize: str(),
  resourceClaimStatuses: keyedList(obj({ name: str(), resourceClaimName: str() }), ['name']),
});

const podSchema = objectSchema({ spec: podSpecSchema, status: podStatusSchema });

// ------------------------------------------------------------------ types

interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  started?: boolean;
  state?: {
    waiting?: { reason?: string };
    running?: unknown;
    terminated?: { reason?: string; exitCode?: number; signal?: number; finishedAt?: string };
  };
  lastState?: { terminated?: { finishedAt?: string } };
}
export interface PodStatus {
  phase?: string;
  reason?: string;
  qosClass?: string;
  podIP?: string;
  podIPs?: { ip?: string }[];
  hostIP?: string;
  hostIPs?: { ip?: string }[];
  nominatedNodeName?: string;
  conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
}

// ------------------------------------------------------------------ QoS

function resourcesOf(c: Container, which: 'limits' | 'requests'): Record<string, string> {
  return (c.resources?.[which] ?? {}) as Record<string, string>;
}

/** Guaranteed, Burstable or BestEffort, from CPU and memory requests and limits of every container. */
export function qosClass(spec: PodSpec): string {
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  const compute = ['cpu', 'memory'];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const req = resourcesOf(c, 'requests');
    const lim = resourcesOf(c, 'limits');
    for (const r of compute) {
      if (req[r] !== undefined && quantityValue(req[r]) !== 0) any = true;
      if (lim[r] !== undefined && quantityValue(lim[r]) !== 0) any = true;
    }
    for (const r of compute) {
      if (lim[r] === undefined || quantityValue(lim[r]) === 0) guaranteed = false;
      else if (req[r] !== undefined && quantityValue(req[r]) !== quantityValue(lim[r])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

// ------------------------------------------------------------------ update rules

const UPDATABLE =
  '`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

function validatePodUpdate(o: KObject, old: KObject): StatusCause[] {
  const spec = (o.spec ?? {}) as PodSpec;
  const before = (old.spec ?? {}) as PodSpec;
  const causes = validatePodSpec(spec, 'spec');
  if (before.activeDeadlineSeconds !== undefined) {
    if (spec.activeDeadlineSeconds === undefined)
      causes.invalid(
        'spec.activeDeadlineSeconds',
        null,
        'must not update from a positive integer to nil value',
      );
    else if (spec.activeDeadlineSeconds > before.activeDeadlineSeconds)
      causes.invalid(
        'spec.activeDeadlineSeconds',
        spec.activeDeadlineSeconds,
        'must be less than or equal to previous value',
      );
  }
  // existing tolerations stay (only their tolerationSeconds may change); new ones may be added
  const newTols = spec.tolerations ?? [];
  for (const t of before.tolerations ?? []) {
    const same = newTols.some(
      (n) =>
        n.key === t.key &&
        (n.operator ?? 'Equal') === (t.operator ?? 'Equal') &&
        n.value === t.value &&
        n.effect === t.effect,
    );
    if (!same) {
      causes.forbidden(
        'spec.tolerations',
        'existing toleration can not be modified except its tolerationSeconds',
      );
      break;
    }
  }
  // everything else is fixed: compare with the mutable parts taken from the old spec
  const munged = structuredClone(spec);
  const copyImages = (a: Container[] | undefined, b: Container[] | undefined) => {
    if (!a || !b || a.length !== b.length) return;
    a.forEach((c, i) => {
      if (c && b[i]) c.image = b[i]!.image;
    });
  };
  copyImages(munged.containers, before.containers);
  copyImages(munged.initContainers, before.initContainers);
  if (before.activeDeadlineSeconds === undefined) delete munged.activeDeadlineSeconds;
  else munged.activeDeadlineSeconds = before.activeDeadlineSeconds;
  if (before.tolerations === undefined) delete munged.tolerations;
  else munged.tolerations = before.tolerations;
  if ((before.terminationGracePeriodSeconds ?? 0) < 0 && spec.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = before.terminationGracePeriodSeconds;
  // scheduling gates may only be removed
  if (
    before.schedulingGates &&
    (spec.schedulingGates ?? []).every((g) => before.schedulingGates!.some((b) => b.name === g.name))
  )
    munged.schedulingGates = before.schedulingGates;
  if (!deepEqual(munged, before))
    causes.forbidden('spec', `pod updates may not change fields other than ${UPDATABLE}`);
  return causes;
}

// ------------------------------------------------------------------ status helpers

function normalizeStatus(st: PodStatus): void {
  if (st.podIP && !st.podIPs?.length) st.podIPs = [{ ip: st.podIP }];
  if (st.podIPs?.length) st.podIP = st.podIPs[0]!.ip;
  if (st.hostIP && !st.hostIPs?.length) st.hostIPs = [{ ip: st.hostIP }];
  if (st.hostIPs?.length) st.hostIP = st.hostIPs[0]!.ip;
}

function podIP(o: KObject): string {
  const st = (o.status ?? {}) as PodStatus;
  return st.podIPs?.[0]?.ip ?? st.podIP ?? '';
}

/** The `Status` column: the phase, or the reason a container gives, as kubectl shows it. */
export function podStatusText(o: KObject): string {
  const st = (o.status ?? {}) as PodStatus;
  const spec = (o.spec ?? {}) as PodSpec;
  let reason = st.reason || st.phase || '';
  for (const c of st.conditions ?? [])
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  let initializing = false;
  const inits = st.initContainerStatuses ?? [];
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i]!;
    const t = c.state?.terminated;
    const w = c.state?.waiting;
    const restartable =
      (spec.initContainers ?? []).find((x) => x.name === c.name)?.restartPolicy === 'Always';
    if (t && t.exitCode === 0) continue;
    if (restartable && c.started) continue;
    if (t)
      reason = t.reason
        ? `Init:${t.reason}`
        : t.signal
          ? `Init:Signal:${t.signal}`
          : `Init:ExitCode:${t.exitCode ?? 0}`;
    else if (w?.reason && w.reason !== 'PodInitializing') reason = `Init:${w.reason}`;
    else reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    initializing = true;
    break;
  }
  const initialized = (st.conditions ?? []).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    let hasRunning = false;
    const cs = st.containerStatuses ?? [];
    for (let i = cs.length - 1; i >= 0; i--) {
      const c = cs[i]!;
      const w = c.state?.waiting;
      const t = c.state?.terminated;
      if (w?.reason) reason = w.reason;
      else if (t?.reason) reason = t.reason;
      else if (t) reason = t.signal ? `Signal:${t.signal}` : `ExitCode:${t.exitCode ?? 0}`;
      else if (c.ready && c.state?.running) hasRunning = true;
    }
    if (reason === 'Completed' && hasRunning)
      reason = (st.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
        ? 'Running'
        : 'NotReady';
  }
  if (o.metadata.deletionTimestamp && st.reason === 'NodeLost') reason = 'Unknown';
  else if (o.metadata.deletionTimestamp && st.phase !== 'Succeeded' && st.phase !== 'Failed')
    reason = 'Terminating';
  return reason;
}

function readyText(o: KObject): string {
  const st = (o.status ?? {}) as PodStatus;
  const spec = (o.spec ?? {}) as PodSpec;
  let total = (spec.containers ?? []).length;
  total += (spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').length;
  let ready = 0;
  for (const c of st.containerStatuses ?? []) if (c.ready && c.state?.running) ready++;
  for (const c of st.initContainerStatuses ?? []) {
    const restartable =
      (spec.initContainers ?? []).find((x) => x.name === c.name)?.restartPolicy === 'Always';
    if (restartable && c.started && c.ready) ready++;
  }
  return `${ready}/${total}`;
}

function restartsText(o: KObject): string {
  const st = (o.status ?? {}) as PodStatus;
  let restarts = 0;
  let last = '';
  for (const c of [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])]) {
    restarts += c.restartCount ?? 0;
    const f = c.lastState?.terminated?.finishedAt;
    if (f && f > last) last = f;
  }
  return restarts && last ? `${restarts} (${since(last)} ago)` : String(restarts);
}

function readinessGatesText(o: KObject): string {
  const gates = ((o.spec ?? {}) as PodSpec).readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const conds = ((o.status ?? {}) as PodStatus).conditions ?? [];
  const ok = gates.filter((g) => conds.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${ok}/${gates.length}`;
}

// ------------------------------------------------------------------ strategy

function prepare(o: KObject): void {
  const spec = (o.spec ?? {}) as PodSpec;
  o.spec = spec;
  defaultPodSpec(spec);
}

const specOf = (o: KObject) => (o.spec ?? {}) as PodSpec;

export const podDef = defineKind({
  group: '',
  kind: 'Pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  subresources: [
    'attach',
    'binding',
    'ephemeralcontainers',
    'eviction',
    'exec',
    'log',
    'portforward',
    'proxy',
    'status',
  ],
  schema: podSchema,
  zeroValue: () => ({
    spec: { containers: null, serviceAccountName: 'default', serviceAccount: 'default' },
  }),
  returnDeletedObject: true,
  fieldLabels: {
    'spec.nodeName': (o) => specOf(o).nodeName ?? '',
    'spec.restartPolicy': (o) => specOf(o).restartPolicy ?? '',
    'spec.schedulerName': (o) => specOf(o).schedulerName ?? '',
    'spec.serviceAccountName': (o) => specOf(o).serviceAccountName ?? '',
    'spec.hostNetwork': (o) => String(!!specOf(o).hostNetwork),
    'status.phase': (o) => ((o.status ?? {}) as PodStatus).phase ?? '',
    'status.podIP': podIP,
    'status.nominatedNodeName': (o) => ((o.status ?? {}) as PodStatus).nominatedNodeName ?? '',
  },
  table: printed('pod', {
    Ready: readyText,
    Status: podStatusText,
    Restarts: restartsText,
    IP: (o) => podIP(o) || '<none>',
    Node: (o) => specOf(o).nodeName || '<none>',
    'Nominated Node': (o) => ((o.status ?? {}) as PodStatus).nominatedNodeName || '<none>',
    'Readiness Gates': readinessGatesText,
  }),
  prepareForCreate(o: KObject, _ctx: RequestContext) {
    prepare(o);
    const spec = o.spec as PodSpec;
    if (!spec.serviceAccountName) {
      spec.serviceAccountName = 'default';
      spec.serviceAccount = 'default';
    }
    const status: PodStatus = { phase: 'Pending', qosClass: qosClass(spec) };
    if (spec.schedulingGates?.length)
      status.conditions = [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'SchedulingGated',
          message: 'Scheduling is blocked due to non-empty scheduling gates',
        },
      ];
    o.status = status;
  },
  prepareForUpdate(o: KObject, old: KObject) {
    prepare(o);
    const spec = o.spec as PodSpec;
    const before = old.spec as PodSpec;
    // the service account is set once at creation (admission); an update that omits it keeps it
    if (!spec.serviceAccountName && before.serviceAccountName) {
      spec.serviceAccountName = before.serviceAccountName;
      spec.serviceAccount = before.serviceAccount;
    }
    if (old.status === undefined) delete o.status;
    else o.status = old.status;
  },
  prepareForStatusUpdate(o: KObject, old: KObject) {
    keepAllButStatus(o, old);
    normalizeBySchema(o, podSchema, 'Pod');
    const st = (o.status ?? {}) as PodStatus;
    normalizeStatus(st);
    st.qosClass ||= ((old.status ?? {}) as PodStatus).qosClass;
    o.status = st;
  },
  validate(o) {
    const causes = validatePodSpec(specOf(o), 'spec');
    if (specOf(o).ephemeralContainers?.length)
      causes.forbidden('spec.ephemeralContainers', 'cannot be set on create');
    return causes;
  },
  validateUpdate: (o, old) => validatePodUpdate(o, old),
  prepareForSubresource: {
    // the binding handler writes the stored pod with its node (and condition) set: kept whole
    binding: () => {},
    // only the ephemeral containers change through their subresource
    ephemeralcontainers(o: KObject, old: KObject) {
      const ephemeral = (o.spec as PodSpec | undefined)?.ephemeralContainers;
      for (const k of Object.keys(o)) if (k !== 'metadata') delete o[k];
      for (const [k, v] of Object.entries(old)) if (k !== 'metadata') o[k] = structuredClone(v);
      o.metadata = { ...structuredClone(old.metadata), resourceVersion: o.metadata.resourceVersion };
      const spec = o.spec as PodSpec;
      if (ephemeral === undefined) delete spec.ephemeralContainers;
      else spec.ephemeralContainers = ephemeral;
      normalizeBySchema(o, podSchema, 'Pod');
      defaultPodSpec(o.spec as PodSpec);
    },
  },
  validateSubresource: {
    binding: () => [],
    ephemeralcontainers: (o, old) => validateEphemeralUpdate(o, old),
  },
});

type Ephemeral = Container & { name?: string };

/**
 * An update of a pod's ephemeral containers, as 1.28 validates it: the new ones valid, the
 * existing ones neither removed nor changed, none on a static (mirror) pod.
 */
function validateEphemeralUpdate(o: KObject, old: KObject): StatusCause[] {
  if (old.metadata.annotations?.['orch.io/config.mirror'] !== undefined)
    return [fieldErr.forbidden('', 'static pods do not support ephemeral containers')];
  const causes = validateEphemeralContainers(specOf(o), 'spec');
  const now = new Map<string, Ephemeral>();
  for (const c of (specOf(o).ephemeralContainers ?? []) as Ephemeral[]) if (c?.name) now.set(c.name, c);
  for (const c of (specOf(old).ephemeralContainers ?? []) as Ephemeral[]) {
    const cur = now.get(c.name ?? '');
    if (!cur)
      causes.forbidden(
        'spec.ephemeralContainers',
        `existing ephemeral containers ${JSON.stringify(c.name)} may not be removed\n`,
      );
    else if (!deepEqual(cur, c))
      causes.forbidden(
        `spec.ephemeralContainers[${c.name}]`,
        `existing ephemeral containers ${JSON.stringify(c.name)} may not be changed\n`,
      );
  }
  return causes;
}
