// Deployment (apps/v1) with the `status` and `scale` subresources. There is no controller
// here: status is whatever a client writes through the status subresource.
import type { StatusCause } from '../../errors/status.ts';
import { arr, bool, int, intOrString, keyedList, mapOf, obj, str, time } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import type { ResourceDef } from '../types.ts';
import { deepEqual } from '../../util/object.ts';
import {
  AGE_COLUMN,
  ALL_VERBS,
  fieldErr,
  formatLabelSelector,
  keepAllButStatus,
  labelMap,
  type LabelSelectorObj,
  NAME_COLUMN,
  nonNegative,
  normalizeBySchema,
  selectorIsEmpty,
  selectorMatches,
  validateLabelSelector,
} from './common.ts';
import {
  type Container,
  defaultPodSpec,
  type PodSpec,
  podTemplateSpecSchema,
  validatePodSpec,
} from './pod-spec.ts';

const labelSelector = obj(
  {
    matchLabels: mapOf(str()),
    matchExpressions: arr(obj({ key: str(), operator: str(), values: arr(str()) })),
  },
  { 'x-orch-map-type': 'atomic' },
);

const schema = objectSchema({
  spec: obj({
    replicas: int(),
    selector: labelSelector,
    template: podTemplateSpecSchema,
    strategy: obj({
      type: str(),
      rollingUpdate: obj({ maxUnavailable: intOrString(), maxSurge: intOrString() }),
    }),
    minReadySeconds: int(),
    revisionHistoryLimit: int(),
    paused: bool(),
    progressDeadlineSeconds: int(),
  }),
  status: obj({
    observedGeneration: int(),
    replicas: int(),
    updatedReplicas: int(),
    readyReplicas: int(),
    availableReplicas: int(),
    unavailableReplicas: int(),
    conditions: keyedList(
      obj({
        type: str(),
        status: str(),
        lastUpdateTime: time(),
        lastTransitionTime: time(),
        reason: str(),
        message: str(),
      }),
      ['type'],
    ),
    collisionCount: int(),
  }),
});

interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelectorObj;
  template?: { metadata?: { labels?: Record<string, string> }; spec?: PodSpec };
  strategy?: {
    type?: string;
    rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string };
  };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

interface DeploymentStatus {
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  observedGeneration?: number;
  collisionCount?: number;
}

const specOf = (o: KObject) => (o.spec ?? {}) as DeploymentSpec;
const statusOf = (o: KObject) => (o.status ?? {}) as DeploymentStatus;

function prepare(o: KObject): void {
  normalizeBySchema(o, schema, 'Deployment');
  const spec = specOf(o);
  o.spec = spec;
  spec.replicas ??= 1;
  spec.strategy ??= {};
  spec.strategy.type ||= 'RollingUpdate';
  if (spec.strategy.type === 'RollingUpdate') {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
    spec.strategy.rollingUpdate.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  spec.template ??= {};
  spec.template.spec ??= {};
  defaultPodSpec(spec.template.spec);
}

/** An int-or-percent value of a rolling update: an integer, or `N%` with N at most 100. */
function intOrPercent(field: string, v: number | string | undefined): StatusCause[] {
  if (v === undefined) return [];
  if (typeof v === 'number') return nonNegative(field, v);
  const m = /^(\d+)%$/.exec(v);
  if (!m)
    return [
      fieldErr.invalid(
        field,
        v,
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ),
    ];
  return Number(m[1]) > 100 ? [fieldErr.invalid(field, v, 'must not be greater than 100%')] : [];
}

const isZero = (v: number | string | undefined) => v === 0 || v === '0%';

function validateDeployment(o: KObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = specOf(o);
  causes.push(...nonNegative('spec.replicas', spec.replicas));
  if (!spec.selector) causes.push(fieldErr.required('spec.selector'));
  else {
    causes.push(...validateLabelSelector('spec.selector', spec.selector));
    if (selectorIsEmpty(spec.selector))
      causes.push(
        fieldErr.invalid('spec.selector', spec.selector, 'empty selector is invalid for deployment'),
      );
  }
  const labels = spec.template?.metadata?.labels;
  causes.push(...labelMap('spec.template.metadata.labels', labels));
  if (spec.selector && !selectorIsEmpty(spec.selector) && !selectorMatches(spec.selector, labels))
    causes.push(
      fieldErr.invalid(
        'spec.template.metadata.labels',
        labels ?? {},
        '`selector` does not match template `labels`',
      ),
    );
  const podSpec = spec.template?.spec ?? {};
  causes.push(...validatePodSpec(podSpec, 'spec.template.spec', { restartPolicies: ['Always'] }));
  if (podSpec.activeDeadlineSeconds !== undefined)
    causes.push(
      fieldErr.forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in ReplicaSet is not Supported',
      ),
    );
  const st = spec.strategy ?? {};
  if (st.type !== 'Recreate' && st.type !== 'RollingUpdate')
    causes.push(fieldErr.notSupported('spec.strategy.type', st.type ?? '', ['Recreate', 'RollingUpdate']));
  else if (st.type === 'Recreate' && st.rollingUpdate)
    causes.push(
      fieldErr.forbidden(
        'spec.strategy.rollingUpdate',
        "may not be specified when strategy `type` is 'Recreate'",
      ),
    );
  else if (st.type === 'RollingUpdate' && st.rollingUpdate) {
    const ru = st.rollingUpdate;
    causes.push(...intOrPercent('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable));
    causes.push(...intOrPercent('spec.strategy.rollingUpdate.maxSurge', ru.maxSurge));
    if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge))
      causes.push(
        fieldErr.invalid(
          'spec.strategy.rollingUpdate.maxUnavailable',
          ru.maxUnavailable,
          'may not be 0 when `maxSurge` is 0',
        ),
      );
  }
  causes.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  causes.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  if (spec.progressDeadlineSeconds !== undefined) {
    causes.push(...nonNegative('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0))
      causes.push(
        fieldErr.invalid(
          'spec.progressDeadlineSeconds',
          spec.progressDeadlineSeconds,
          'must be greater than minReadySeconds',
        ),
      );
  }
  const status = statusOf(o);
  for (const f of [
    'replicas',
    'updatedReplicas',
    'readyReplicas',
    'availableReplicas',
    'unavailableReplicas',
    'observedGeneration',
    'collisionCount',
  ] as const)
    causes.push(...nonNegative(`status.${f}`, status[f]));
  return causes;
}

/** How a label selector prints in an `Invalid value` (Go syntax of the struct). */
function goSelector(sel: LabelSelectorObj): string {
  const ml = sel.matchLabels
    ? `map[string]string{${Object.keys(sel.matchLabels)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${JSON.stringify(sel.matchLabels![k])}`)
        .join(', ')}}`
    : 'map[string]string(nil)';
  const me = sel.matchExpressions?.length
    ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions
        .map(
          (e) =>
            `v1.LabelSelectorRequirement{Key:${JSON.stringify(e.key ?? '')}, Operator:${JSON.stringify(e.operator ?? '')}, Values:[]string{${(e.values ?? []).map((v) => JSON.stringify(v)).join(', ')}}}`,
        )
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${ml}, MatchExpressions:${me}}`;
}

function containerCells(o: KObject): { names: string; images: string } {
  const cs: Container[] = specOf(o).template?.spec?.containers ?? [];
  return { names: cs.map((c) => c.name ?? '').join(','), images: cs.map((c) => c.image ?? '').join(',') };
}

export const deploymentDef: ResourceDef = {
  group: 'apps',
  versions: ['v1'],
  kind: 'Deployment',
  listKind: 'DeploymentList',
  plural: 'deployments',
  singular: 'deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  verbs: ALL_VERBS,
  subresources: ['scale', 'status'],
  schema,
  strategy: {
    zeroValue: () => ({ spec: { template: { metadata: {}, spec: { containers: null } }, strategy: {} } }),
    scale: {
      toScale: (o) => toScale(o),
      setReplicas: (o, replicas) => {
        o.spec = { ...(o.spec as object), replicas };
      },
      patchTypes: [
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
      ],
    },
    allowUnconditionalUpdate: true,
    table: [
      NAME_COLUMN,
      {
        name: 'Ready',
        type: 'string',
        description: 'Number of the pod with ready state',
        cell: (o) => `${statusOf(o).readyReplicas ?? 0}/${specOf(o).replicas ?? 0}`,
      },
      {
        name: 'Up-to-date',
        type: 'string',
        description:
          'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
        cell: (o) => statusOf(o).updatedReplicas ?? 0,
      },
      {
        name: 'Available',
        type: 'string',
        description:
          'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
        cell: (o) => statusOf(o).availableReplicas ?? 0,
      },
      AGE_COLUMN,
      {
        name: 'Containers',
        type: 'string',
        priority: 1,
        description: 'Names of each container in the template.',
        cell: (o) => containerCells(o).names,
      },
      {
        name: 'Images',
        type: 'string',
        priority: 1,
        description: 'Images referenced by each container in the template.',
        cell: (o) => containerCells(o).images,
      },
      {
        name: 'Selector',
        type: 'string',
        priority: 1,
        description:
          'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
        cell: (o) => formatLabelSelector(specOf(o).selector),
      },
    ],
    prepareForCreate(o: KObject) {
      prepare(o);
      o.status = {};
    },
    prepareForUpdate(o: KObject, old: KObject) {
      prepare(o);
      if (old.status === undefined) delete o.status;
      else o.status = old.status;
      // annotations are copied to replica sets: a change bumps the generation as a spec change does
      if (!deepEqual(o.metadata.annotations ?? {}, old.metadata.annotations ?? {}))
        o.metadata.generation = (old.metadata.generation ?? 0) + 1;
    },
    prepareForStatusUpdate(o: KObject, old: KObject) {
      keepAllButStatus(o, old);
      normalizeBySchema(o, schema, 'Deployment');
    },
    validate: validateDeployment,
    validateUpdate(o: KObject, old: KObject) {
      const causes = validateDeployment(o);
      const sel = specOf(o).selector;
      const before = specOf(old).selector;
      if (sel && before && !deepEqual(sel, before))
        causes.push({
          reason: 'FieldValueInvalid',
          field: 'spec.selector',
          message: `Invalid value: ${goSelector(sel)}: field is immutable`,
        });
      return causes;
    },
  },
};

// ------------------------------------------------------------------ scale subresource

/** The `autoscaling/v1` Scale of a deployment. */
export function toScale(d: KObject): KObject {
  const m = d.metadata;
  const replicas = specOf(d).replicas ?? 0;
  const status: Record<string, unknown> = { replicas: statusOf(d).replicas ?? 0 };
  const selector = formatLabelSelector(specOf(d).selector);
  if (selector) status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: replicas ? { replicas } : {},
    status,
  };
}
