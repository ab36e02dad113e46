// Conversion of HorizontalPodAutoscaler between autoscaling/v2 (the storage version) and
// autoscaling/v1, as Kubernetes 1.28 converts it. v1 knows one metric, the CPU utilization
// target; what else v2 holds travels in annotations of the v1 object so that a v1 client that
// reads, changes and writes back an object loses nothing (doc2 "Versioning", rule 2):
//   autoscaling.alpha.orch.io/metrics          the v2 metrics other than a CPU utilization target (v1 metric shape)
//   autoscaling.alpha.orch.io/current-metrics  every current metric of the status (v1 metric shape)
//   autoscaling.alpha.orch.io/conditions       the status conditions
//   autoscaling.alpha.orch.io/behavior         the scaling behavior (as 1.28 writes it: Go field names)
// Written back through v1, the annotations become fields again (malformed ones are ignored,
// as 1.28 does) and are dropped; the CPU target comes after the other metrics; with no metric
// at all, the 80% CPU utilization target v1 always implied is written out.
import type { KObject } from '../../storage/types.ts';

export const METRICS_ANNOTATION = 'autoscaling.alpha.orch.io/metrics';
export const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.orch.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.orch.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.orch.io/behavior';
const ROUND_TRIP = [
  METRICS_ANNOTATION,
  CURRENT_METRICS_ANNOTATION,
  CONDITIONS_ANNOTATION,
  BEHAVIOR_ANNOTATION,
];

/** The CPU utilization a v1 object without a target always meant. */
export const DEFAULT_CPU_UTILIZATION = 80;

type Obj = Record<string, any>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Drops undefined members (JSON.stringify would anyway; kept out of stored objects too). */
function clean<T extends Obj>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}
const ref = (r: Obj | undefined) =>
  clean({ kind: r?.kind ?? '', name: r?.name ?? '', apiVersion: r?.apiVersion });
const isCpuUtilization = (m: Obj) =>
  m?.type === 'Resource' &&
  isObj(m.resource) &&
  m.resource.name === 'cpu' &&
  m.resource.target?.averageUtilization != null;

// ---------------------------------------------------------------- metric specs

/**
 * A v2 metric in v1's shape: a spec's (`target`) or a status's (`current`). The v1 fields are
 * named after the side (`targetValue`, `currentValue`); `zero` is the "0" a status gets for some left out.
 */
function metricToV1(m: Obj, side: 'target' | 'current'): Obj {
  const at = (x: Obj): Obj => x[side] ?? {};
  const f = (name: string) => `${side}${name}`;
  const zero = (v: unknown) => (side === 'current' ? (v ?? '0') : v);
  const out: Obj = { type: m.type };
  if (isObj(m.object))
    out.object = clean({
      target: ref(m.object.describedObject),
      metricName: m.object.metric?.name ?? '',
      [f('Value')]: at(m.object).value ?? '0',
      selector: m.object.metric?.selector,
      averageValue: at(m.object).averageValue,
    });
  if (isObj(m.pods))
    out.pods = clean({
      metricName: m.pods.metric?.name ?? '',
      [f('AverageValue')]: at(m.pods).averageValue ?? '0',
      selector: m.pods.metric?.selector,
    });
  for (const k of ['resource', 'containerResource'] as const)
    if (isObj(m[k]))
      out[k] = clean({
        name: m[k].name ?? '',
        [f('AverageUtilization')]: at(m[k]).averageUtilization,
        [f('AverageValue')]: zero(at(m[k]).averageValue),
        container: k === 'containerResource' ? (m[k].container ?? '') : undefined,
      });
  if (isObj(m.external))
    out.external = clean({
      metricName: m.external.metric?.name ?? '',
      metricSelector: m.external.metric?.selector,
      [f('Value')]: zero(at(m.external).value),
      [f('AverageValue')]: at(m.external).averageValue,
    });
  return out;
}

function specFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  if (isObj(m.object))
    out.object = {
      describedObject: ref(m.object.target),
      target: clean({
        type: m.object.averageValue == null ? 'Value' : 'AverageValue',
        value: m.object.targetValue ?? '0',
        averageValue: m.object.averageValue ?? undefined,
      }),
      metric: clean({ name: m.object.metricName ?? '', selector: m.object.selector ?? undefined }),
    };
  if (isObj(m.pods))
    out.pods = {
      metric: clean({ name: m.pods.metricName ?? '', selector: m.pods.selector ?? undefined }),
      target: { type: 'AverageValue', averageValue: m.pods.targetAverageValue ?? '0' },
    };
  for (const k of ['resource', 'containerResource'] as const)
    if (isObj(m[k])) {
      const util = m[k].targetAverageUtilization ?? undefined;
      out[k] = clean({
        name: m[k].name ?? '',
        target: clean({
          type: util === undefined ? 'AverageValue' : 'Utilization',
          averageUtilization: util,
          averageValue: m[k].targetAverageValue ?? undefined,
        }),
        container: k === 'containerResource' ? (m[k].container ?? '') : undefined,
      });
    }
  if (isObj(m.external))
    out.external = {
      metric: clean({ name: m.external.metricName ?? '', selector: m.external.metricSelector ?? undefined }),
      target: clean({
        type: m.external.targetValue == null ? 'AverageValue' : 'Value',
        value: m.external.targetValue ?? undefined,
        averageValue: m.external.targetAverageValue ?? undefined,
      }),
    };
  return out;
}

// ---------------------------------------------------------------- metric statuses

function statusFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  if (isObj(m.object))
    out.object = {
      metric: clean({ name: m.object.metricName ?? '', selector: m.object.selector ?? undefined }),
      current: clean({
        value: m.object.currentValue ?? '0',
        averageValue: m.object.averageValue ?? undefined,
      }),
      describedObject: ref(m.object.target),
    };
  if (isObj(m.pods))
    out.pods = {
      metric: clean({ name: m.pods.metricName ?? '', selector: m.pods.selector ?? undefined }),
      current: { averageValue: m.pods.currentAverageValue ?? '0' },
    };
  for (const k of ['resource', 'containerResource'] as const)
    if (isObj(m[k]))
      out[k] = clean({
        name: m[k].name ?? '',
        current: clean({
          averageValue: m[k].currentAverageValue ?? '0',
          averageUtilization: m[k].currentAverageUtilization ?? undefined,
        }),
        container: k === 'containerResource' ? (m[k].container ?? '') : undefined,
      });
  if (isObj(m.external))
    out.external = {
      metric: clean({ name: m.external.metricName ?? '', selector: m.external.metricSelector ?? undefined }),
      current: clean({
        value: m.external.currentValue ?? '0',
        averageValue: m.external.currentAverageValue ?? undefined,
      }),
    };
  return out;
}

// ---------------------------------------------------------------- behavior (1.28 writes its internal type)

function rulesToInternal(r: Obj | undefined): Obj | null {
  if (!isObj(r)) return null;
  return {
    StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null,
    SelectPolicy: r.selectPolicy ?? null,
    Policies: Array.isArray(r.policies)
      ? r.policies.map((p: Obj) => ({
          Type: p?.type ?? '',
          Value: p?.value ?? 0,
          PeriodSeconds: p?.periodSeconds ?? 0,
        }))
      : null,
  };
}

/** A member of a decoded Go struct: JSON names match field names without regard to case. */
function member(o: Obj, name: string): unknown {
  const k = Object.keys(o).find((x) => x.toLowerCase() === name.toLowerCase());
  return k === undefined ? undefined : o[k];
}

const int32 = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 31;

function rulesFromInternal(r: unknown): Obj | undefined {
  if (r === null || r === undefined) return undefined;
  if (!isObj(r)) throw new Error('not an object');
  const out: Obj = {};
  const sws = member(r, 'StabilizationWindowSeconds');
  if (sws !== null && sws !== undefined) {
    if (!int32(sws)) throw new Error('not an int32');
    out.stabilizationWindowSeconds = sws;
  }
  const sp = member(r, 'SelectPolicy');
  if (sp !== null && sp !== undefined) {
    if (typeof sp !== 'string') throw new Error('not a string');
    out.selectPolicy = sp;
  }
  const ps = member(r, 'Policies');
  if (ps !== null && ps !== undefined) {
    if (!Array.isArray(ps)) throw new Error('not a list');
    out.policies = ps.map((p) => {
      if (!isObj(p)) throw new Error('not an object');
      const type = member(p, 'Type') ?? '';
      const value = member(p, 'Value') ?? 0;
      const period = member(p, 'PeriodSeconds') ?? 0;
      if (typeof type !== 'string' || !int32(value) || !int32(period)) throw new Error('bad policy');
      return { type, value, periodSeconds: period };
    });
  }
  return out;
}

function behaviorFromAnnotation(text: string): Obj | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    if (!isObj(v)) return undefined;
    const up = rulesFromInternal(member(v, 'ScaleUp'));
    const down = rulesFromInternal(member(v, 'ScaleDown'));
    // an empty behavior is no behavior
    if (!up && !down) return undefined;
    return clean({ scaleUp: up, scaleDown: down });
  } catch {
    return undefined;
  }
}

/** A JSON list from an annotation, or undefined when it is not one (1.28 then ignores it). */
function listFrom(text: string | undefined): Obj[] | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    if (v === null) return [];
    return Array.isArray(v) && v.every((x) => isObj(x)) ? (v as Obj[]) : undefined;
  } catch {
    return undefined;
  }
}

function dropRoundTrip(annotations: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!annotations) return annotations;
  const out = { ...annotations };
  for (const k of ROUND_TRIP) delete out[k];
  return out;
}

// ---------------------------------------------------------------- whole objects

/** A status condition's fields, in the order both versions write them. */
const conditionOf = (c: Obj) =>
  clean({
    type: c.type,
    status: c.status,
    lastTransitionTime: c.lastTransitionTime,
    reason: c.reason,
    message: c.message,
  });

/** A stored (autoscaling/v2) object as autoscaling/v1 shows it. */
export function hpaToV1(o: KObject): KObject {
  const spec: Obj = (o.spec ?? {}) as Obj;
  const status: Obj = (o.status ?? {}) as Obj;
  const metrics: Obj[] = Array.isArray(spec.metrics) ? spec.metrics : [];
  const annotations: Record<string, string> = { ...(dropRoundTrip(o.metadata.annotations) ?? {}) };
  const other = metrics.filter((m) => !isCpuUtilization(m)).map((m) => metricToV1(m, 'target'));
  if (other.length) annotations[METRICS_ANNOTATION] = JSON.stringify(other);
  const current: Obj[] = Array.isArray(status.currentMetrics) ? status.currentMetrics : [];
  if (current.length)
    annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(current.map((m) => metricToV1(m, 'current')));
  if (isObj(spec.behavior))
    annotations[BEHAVIOR_ANNOTATION] = JSON.stringify({
      ScaleUp: rulesToInternal(spec.behavior.scaleUp),
      ScaleDown: rulesToInternal(spec.behavior.scaleDown),
    });
  const conditions: Obj[] = Array.isArray(status.conditions) ? status.conditions : [];
  if (conditions.length) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(conditions.map(conditionOf));
  // the first CPU metric gives the target (when it is a utilization)
  const cpu = metrics.find((m) => m?.type === 'Resource' && isObj(m.resource) && m.resource.name === 'cpu');
  const cpuCurrent = current
    .filter(
      (m) =>
        m?.type === 'Resource' &&
        m.resource?.name === 'cpu' &&
        m.resource.current?.averageUtilization != null,
    )
    .at(-1);
  const v1: KObject = {
    ...o,
    metadata: clean({
      ...o.metadata,
      annotations: Object.keys(annotations).length ? annotations : undefined,
    }),
    spec: clean({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas,
      targetCPUUtilizationPercentage: cpu?.resource?.target?.averageUtilization ?? undefined,
    }),
  };
  if (o.status !== undefined)
    v1.status = clean({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas ?? 0,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentCPUUtilizationPercentage: cpuCurrent?.resource?.current?.averageUtilization,
    });
  return v1;
}

/** An autoscaling/v1 object in the storage version's (autoscaling/v2) shape. */
export function hpaFromV1(o: KObject): KObject {
  const spec: Obj = isObj(o.spec) ? o.spec : {};
  const status: Obj | undefined = isObj(o.status) ? o.status : undefined;
  const ann = o.metadata?.annotations ?? {};
  const metrics = metricsFromV1(spec, ann);
  const behavior =
    ann[BEHAVIOR_ANNOTATION] === undefined ? undefined : behaviorFromAnnotation(ann[BEHAVIOR_ANNOTATION]);
  const v2: KObject = {
    ...o,
    metadata: clean({ ...(o.metadata ?? {}), annotations: dropRoundTrip(o.metadata?.annotations) }),
    spec: clean({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas ?? undefined,
      maxReplicas: spec.maxReplicas,
      metrics,
      behavior,
    }),
  };
  if (v2.metadata.annotations && Object.keys(v2.metadata.annotations).length === 0)
    delete v2.metadata.annotations;
  const v2Status = statusFromV1Object(status, ann);
  if (v2Status) v2.status = v2Status;
  return v2;
}

/** The v2 metrics of a v1 object: its CPU target, and the other metrics kept in an annotation. */
function metricsFromV1(spec: Obj, ann: Record<string, string>): Obj[] {
  const cpu = (averageUtilization: number) => ({
    type: 'Resource',
    resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } },
  });
  let metrics: Obj[] = [];
  if (spec.targetCPUUtilizationPercentage != null) metrics = [cpu(spec.targetCPUUtilizationPercentage)];
  const other = listFrom(ann[METRICS_ANNOTATION]);
  if (other) metrics = [...other.map(specFromV1), ...metrics.slice(0, 1)];
  if (metrics.length === 0) metrics = [cpu(DEFAULT_CPU_UTILIZATION)];
  return metrics;
}

/** The v2 status of a v1 object (and of the annotations that carry what v1 cannot say). */
function statusFromV1Object(status: Obj | undefined, ann: Record<string, string>): Obj | undefined {
  if (status) {
    let currentMetrics: Obj[] | undefined;
    if (status.currentCPUUtilizationPercentage != null)
      currentMetrics = [
        {
          type: 'Resource',
          resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } },
        },
      ];
    const current = listFrom(ann[CURRENT_METRICS_ANNOTATION]);
    if (current) currentMetrics = current.map(statusFromV1);
    const conditions = listFrom(ann[CONDITIONS_ANNOTATION]);
    return clean({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas || undefined,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentMetrics: currentMetrics?.length ? currentMetrics : undefined,
      conditions: conditions?.length ? conditions.map(conditionOf) : undefined,
    });
  } else {
    // the status of a v1 write is carried by the annotations alone (e.g. a spec update)
    const current = listFrom(ann[CURRENT_METRICS_ANNOTATION]);
    const conditions = listFrom(ann[CONDITIONS_ANNOTATION]);
    if (current?.length || conditions?.length)
      return clean({
        desiredReplicas: 0,
        currentMetrics: current?.length ? current.map(statusFromV1) : undefined,
        conditions: conditions?.length ? conditions : undefined,
      });
  }
  return undefined;
}
