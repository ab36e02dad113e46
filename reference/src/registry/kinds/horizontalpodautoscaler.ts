// HorizontalPodAutoscaler with the `status` subresource, served at autoscaling/v2 (the storage
// and preferred version) and autoscaling/v1 from one storage: v1 objects are converted by
// horizontalpodautoscaler-v1.ts. Defaults and validation are 1.28's, on the v2 shape: one
// replica at least, an 80% CPU utilization target when no metric is given, and a behavior
// given in part completed with 1.28's scale-up and scale-down rules.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import {
  Causes,
  causesOf,
  fieldErr,
  nonNegative,
  parseQuantity,
  schemaStatusUpdate,
  specStatusHooks,
  validateLabelSelector,
} from './common.ts';
import { defineKind, printed } from './define.ts';
import { DEFAULT_CPU_UTILIZATION, hpaFromV1, hpaToV1 } from './horizontalpodautoscaler-v1.ts';

const schemaV2 = builtinSchema('autoscaling/v2', 'HorizontalPodAutoscaler');
const schemaV1 = builtinSchema('autoscaling/v1', 'HorizontalPodAutoscaler');

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SOURCE_FIELDS: Record<string, string> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  External: 'external',
  ContainerResource: 'containerResource',
};
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];

type Obj = Record<string, any>;

interface Rules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: string;
  policies?: { type?: string; value?: number; periodSeconds?: number }[];
}

const specOf = (o: KObject) => (o.spec ?? {}) as Obj;
const statusOf = (o: KObject) => (o.status ?? {}) as Obj;

/** 1.28's scale-up rules: the larger of 4 pods or 100% each 15 seconds, no stabilization. */
const scaleUpDefaults = (): Rules => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});
/** 1.28's scale-down rules: 100% each 15 seconds; the window is left to the controller's flag. */
const scaleDownDefaults = (): Rules => ({
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

function fillRules(given: Rules | undefined, defaults: Rules): Rules {
  if (!given) return defaults;
  return {
    ...(given.stabilizationWindowSeconds !== undefined || defaults.stabilizationWindowSeconds !== undefined
      ? {
          stabilizationWindowSeconds: given.stabilizationWindowSeconds ?? defaults.stabilizationWindowSeconds,
        }
      : {}),
    selectPolicy: given.selectPolicy ?? defaults.selectPolicy,
    policies: given.policies ?? defaults.policies,
  };
}

function prepare(o: KObject): void {
  const spec = specOf(o);
  o.spec = spec;
  spec.minReplicas ??= 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0)
    spec.metrics = [
      {
        type: 'Resource',
        resource: {
          name: 'cpu',
          target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION },
        },
      },
    ];
  if (spec.behavior && typeof spec.behavior === 'object') {
    spec.behavior.scaleUp = fillRules(spec.behavior.scaleUp, scaleUpDefaults());
    spec.behavior.scaleDown = fillRules(spec.behavior.scaleDown, scaleDownDefaults());
  }
}

// ---------------------------------------------------------------- validation (1.28's)

/** A path segment name: not `.` or `..`, no `/` or `%`. */
function pathSegment(field: string, v: string): StatusCause[] {
  if (v === '.' || v === '..') return [fieldErr.invalid(field, v, `may not be '${v}'`)];
  return ['/', '%']
    .filter((c) => v.includes(c))
    .map((c) => fieldErr.invalid(field, v, `may not contain '${c}'`));
}

function crossVersionRef(field: string, r: Obj | undefined): StatusCause[] {
  const causes = new Causes();
  if (!r?.kind) causes.required(`${field}.kind`);
  else causes.push(...pathSegment(`${field}.kind`, r.kind));
  if (!r?.name) causes.required(`${field}.name`);
  else causes.push(...pathSegment(`${field}.name`, r.name));
  return causes;
}

const positive = (q: unknown) => (parseQuantity(String(q))?.nanos ?? 0n) > 0n;

function metricTarget(field: string, t: Obj | undefined): StatusCause[] {
  const mt = t ?? {};
  const causes = new Causes();
  if (!mt.type) causes.required(`${field}.type`, 'must specify a metric target type');
  if (!['Utilization', 'Value', 'AverageValue'].includes(mt.type))
    causes.invalid(`${field}.type`, mt.type ?? '', 'must be either Utilization, Value, or AverageValue');
  if (mt.value != null && !positive(mt.value)) causes.invalid(`${field}.value`, mt.value, 'must be positive');
  if (mt.averageValue != null && !positive(mt.averageValue))
    causes.invalid(`${field}.averageValue`, mt.averageValue, 'must be positive');
  if (mt.averageUtilization != null && mt.averageUtilization < 1)
    causes.invalid(`${field}.averageUtilization`, mt.averageUtilization, 'must be greater than 0');
  return causes;
}

function metricIdentifier(field: string, id: Obj | undefined): StatusCause[] {
  if (!id?.name) return [fieldErr.required(`${field}.name`, 'must specify a metric name')];
  const causes = pathSegment(`${field}.name`, id.name);
  if (id.selector) causes.push(...validateLabelSelector(`${field}.selector`, id.selector));
  return causes;
}

function resourceSource(field: string, src: Obj, container: boolean): StatusCause[] {
  const causes = new Causes();
  if (!src.name) causes.required(`${field}.name`, 'must specify a resource name');
  if (container && !src.container) causes.required(`${field}.container`, 'must specify a container');
  causes.push(...metricTarget(`${field}.target`, src.target));
  const t = src.target ?? {};
  if (t.averageUtilization == null && t.averageValue == null)
    causes.required(
      `${field}.target.averageUtilization`,
      'must set either a target raw value or a target utilization',
    );
  if (t.averageUtilization != null && t.averageValue != null)
    causes.forbidden(
      `${field}.target.averageValue`,
      'may not set both a target raw value and a target utilization',
    );
  return causes;
}

function sourceErrors(kind: string, field: string, src: Obj): StatusCause[] {
  const t = src.target ?? {};
  switch (kind) {
    case 'object': {
      const c = causesOf(
        crossVersionRef(`${field}.describedObject`, src.describedObject),
        metricIdentifier(`${field}.metric`, src.metric),
        metricTarget(`${field}.target`, src.target),
      );
      if (t.value == null && t.averageValue == null)
        c.required(`${field}.target.averageValue`, 'must set either a target value or averageValue');
      return c;
    }
    case 'external': {
      const c = causesOf(
        metricIdentifier(`${field}.metric`, src.metric),
        metricTarget(`${field}.target`, src.target),
      );
      if (t.value == null && t.averageValue == null)
        c.required(
          `${field}.target.averageValue`,
          'must set either a target value for metric or a per-pod target',
        );
      if (t.value != null && t.averageValue != null)
        c.forbidden(
          `${field}.target.value`,
          'may not set both a target value for metric and a per-pod target',
        );
      return c;
    }
    case 'pods': {
      const c = causesOf(
        metricIdentifier(`${field}.metric`, src.metric),
        metricTarget(`${field}.target`, src.target),
      );
      if (t.averageValue == null)
        c.required(`${field}.target.averageValue`, 'must specify a positive target averageValue');
      return c;
    }
    case 'resource':
      return resourceSource(field, src, false);
    default:
      return resourceSource(field, src, true);
  }
}

function metricSpec(field: string, m: Obj): StatusCause[] {
  const causes = new Causes();
  if (!m.type) causes.required(`${field}.type`, 'must specify a metric source type');
  causes.oneOf(`${field}.type`, m.type ?? '', METRIC_SOURCE_TYPES);
  // the sources given, in 1.28's order; only the first is validated
  const present = ['object', 'external', 'pods', 'resource', 'containerResource'].filter((k) => m[k] != null);
  if (present.length === 1)
    causes.push(...sourceErrors(present[0]!, `${field}.${present[0]}`, m[present[0]!]));
  const expected = SOURCE_FIELDS[m.type];
  if (expected && m[expected] == null)
    causes.required(`${field}.${expected}`, 'must populate information for the given metric source');
  if (present.length !== 1)
    for (const k of present.filter((x) => x !== expected))
      causes.forbidden(`${field}.${k}`, 'must populate the given metric source only');
  return causes;
}

function scalingRules(field: string, r: Rules | undefined): StatusCause[] {
  if (!r) return [];
  const causes = new Causes();
  const sws = r.stabilizationWindowSeconds;
  if (sws !== undefined && sws < 0)
    causes.invalid(`${field}.stabilizationWindowSeconds`, sws, 'must be greater than or equal to zero');
  if (sws !== undefined && sws > MAX_STABILIZATION_WINDOW_SECONDS)
    causes.invalid(
      `${field}.stabilizationWindowSeconds`,
      sws,
      `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
    );
  if (r.selectPolicy !== undefined) causes.oneOf(`${field}.selectPolicy`, r.selectPolicy, SELECT_POLICIES);
  if (!r.policies?.length) causes.required(`${field}.policies`, 'must specify at least one Policy');
  (r.policies ?? []).forEach((p, i) => {
    const pp = `${field}.policies[${i}]`;
    if (p.type !== 'Pods' && p.type !== 'Percent')
      causes.notSupported(`${pp}.type`, p.type ?? '', POLICY_TYPES);
    if ((p.value ?? 0) <= 0) causes.invalid(`${pp}.value`, p.value ?? 0, 'must be greater than zero');
    if ((p.periodSeconds ?? 0) <= 0)
      causes.invalid(`${pp}.periodSeconds`, p.periodSeconds ?? 0, 'must be greater than zero');
    if ((p.periodSeconds ?? 0) > MAX_PERIOD_SECONDS)
      causes.invalid(
        `${pp}.periodSeconds`,
        p.periodSeconds,
        `must be less than or equal to ${MAX_PERIOD_SECONDS}`,
      );
  });
  return causes;
}

function validateHpa(o: KObject): StatusCause[] {
  const spec = specOf(o);
  const causes = new Causes();
  if (spec.minReplicas != null && spec.minReplicas < 1)
    causes.invalid('spec.minReplicas', spec.minReplicas, 'must be greater than or equal to 1');
  const max = spec.maxReplicas ?? 0;
  if (max < 1) causes.invalid('spec.maxReplicas', max, 'must be greater than 0');
  if (spec.minReplicas != null && max < spec.minReplicas)
    causes.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`');
  causes.push(...crossVersionRef('spec.scaleTargetRef', spec.scaleTargetRef));
  const metrics: Obj[] = Array.isArray(spec.metrics) ? spec.metrics : [];
  for (const [i, m] of metrics.entries()) causes.push(...metricSpec(`spec.metrics[${i}]`, m ?? {}));
  if (spec.behavior) {
    causes.push(...scalingRules('spec.behavior.scaleUp', spec.behavior.scaleUp));
    causes.push(...scalingRules('spec.behavior.scaleDown', spec.behavior.scaleDown));
  }
  const st = statusOf(o);
  causes.push(...nonNegative('status.currentReplicas', st.currentReplicas));
  causes.push(...nonNegative('status.desiredReplicas', st.desiredReplicas));
  return causes;
}

// ---------------------------------------------------------------- table

/** A v2 object whatever version the row was read at (v1 rows carry their metrics in annotations). */
const asV2 = (o: KObject) => (o.apiVersion === 'autoscaling/v1' ? hpaFromV1(o) : o);
const pct = (n: unknown) => `${String(n)}%`;

/** The Targets column as 1.28's printer writes it: `<current>/<target>` per metric, two at most. */
export function formatTargets(o: KObject): string {
  const specs: Obj[] = specOf(o).metrics ?? [];
  const statuses: Obj[] = statusOf(o).currentMetrics ?? [];
  if (specs.length === 0) return '<none>';
  const list = specs.map((s, i) => {
    const st = statuses[i] ?? {};
    const unknown = '<unknown>';
    switch (s.type) {
      case 'External':
      case 'Object': {
        const k = s.type === 'External' ? 'external' : 'object';
        const t = s[k]?.target ?? {};
        if (t.averageValue != null)
          return `${st[k]?.current?.averageValue ?? unknown}/${t.averageValue} (avg)`;
        return `${st[k] ? (st[k].current?.value ?? '0') : unknown}/${t.value ?? '0'}`;
      }
      case 'Pods':
        return `${st.pods ? (st.pods.current?.averageValue ?? '0') : unknown}/${s.pods?.target?.averageValue ?? '0'}`;
      case 'Resource':
      case 'ContainerResource': {
        const k = s.type === 'Resource' ? 'resource' : 'containerResource';
        const t = s[k]?.target ?? {};
        if (t.averageValue != null)
          return `${st[k] ? (st[k].current?.averageValue ?? '0') : unknown}/${t.averageValue}`;
        const cur = st[k]?.current?.averageUtilization;
        return `${cur != null ? pct(cur) : unknown}/${t.averageUtilization != null ? pct(t.averageUtilization) : '<auto>'}`;
      }
      default:
        return '<unknown type>';
    }
  });
  const shown = list.slice(0, 2).join(', ');
  return list.length > 2 ? `${shown} + ${list.length - 2} more...` : shown;
}

export const horizontalPodAutoscalerDef = defineKind({
  group: 'autoscaling',
  versions: ['v2', 'v1'],
  kind: 'HorizontalPodAutoscaler',
  namespaced: true,
  shortNames: ['hpa'],
  categories: ['all'],
  subresources: ['status'],
  schema: schemaV2,
  versionInfo: {
    v2: { served: true, storage: true, schema: schemaV2 },
    v1: { served: true, storage: false, schema: schemaV1, toStorage: hpaFromV1, fromStorage: hpaToV1 },
  },
  ...specStatusHooks(prepare, () => ({ desiredReplicas: 0 })),
  prepareForStatusUpdate: schemaStatusUpdate(schemaV2, 'HorizontalPodAutoscaler'),
  validate: validateHpa,
  table: printed('horizontalPodAutoscaler', {
    Reference: (o) => {
      const r = specOf(asV2(o)).scaleTargetRef ?? {};
      return `${r.kind ?? ''}/${r.name ?? ''}`;
    },
    Targets: (o) => formatTargets(asV2(o)),
    MinPods: (o) => specOf(o).minReplicas ?? '<unset>',
    MaxPods: (o) => specOf(o).maxReplicas ?? 0,
    Replicas: (o) => statusOf(o).currentReplicas ?? 0,
  }),
  tracksGeneration: true,
});
