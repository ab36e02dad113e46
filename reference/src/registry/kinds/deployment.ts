// Deployment (apps/v1) with the `status` and `scale` subresources. Status is what the
// deployment controller (controllers/deployment.ts), or any client, writes through the status
// subresource; as in 1.28, a status write keeps the spec and labels stored but takes the
// request's annotations, finalizers and owner references (the controller writes the revision
// annotation that way, without a new generation).
import type { StatusCause } from '../../errors/status.ts';
import { arr, bool, int, intOrString, keyedList, mapOf, obj, str, time } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import {
  Causes,
  formatLabelSelector,
  keepStoredStatus,
  type LabelSelectorObj,
  nonNegative,
  schemaStatusUpdate,
} from './common.ts';
import { defineKind, printed } from './define.ts';
import { defaultPodSpec, type PodSpec, podTemplateSpecSchema } from './pod-spec.ts';
import {
  collisionCountNotDecremented,
  immutableSelector,
  intOrPercentValue,
  labelSelectorOfSpec,
  nonNegativeCounters,
  notAboveReplicas,
  notMoreThan100Percent,
  positiveIntOrPercent,
  replicasScale,
  templateCells,
  validateSelectorForTemplate,
  validateWorkloadTemplate,
} from './workload-common.ts';

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

function validateDeployment(o: KObject): StatusCause[] {
  const causes = new Causes();
  const spec = specOf(o);
  causes.push(...nonNegative('spec.replicas', spec.replicas));
  causes.push(...validateSelectorForTemplate(spec, 'deployment'));
  // a deployment's template is checked as a replica set's (the same message names ReplicaSet)
  causes.push(...validateWorkloadTemplate(spec.template, 'spec.template', 'ReplicaSet'));
  const st = spec.strategy ?? {};
  if (st.type !== 'Recreate' && st.type !== 'RollingUpdate')
    causes.notSupported('spec.strategy', st, ['Recreate', 'RollingUpdate']);
  else if (st.type === 'Recreate' && st.rollingUpdate)
    causes.forbidden(
      'spec.strategy.rollingUpdate',
      "may not be specified when strategy `type` is 'Recreate'",
    );
  else if (st.type === 'RollingUpdate') {
    if (!st.rollingUpdate)
      causes.required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil');
    else {
      const ru = st.rollingUpdate;
      const at = 'spec.strategy.rollingUpdate';
      causes.push(...positiveIntOrPercent(`${at}.maxUnavailable`, ru.maxUnavailable));
      causes.push(...positiveIntOrPercent(`${at}.maxSurge`, ru.maxSurge));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0)
        causes.invalid(`${at}.maxUnavailable`, ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0');
      // only maxUnavailable is bounded: a surge may exceed the replica count
      causes.push(...notMoreThan100Percent(`${at}.maxUnavailable`, ru.maxUnavailable));
    }
  }
  causes.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  causes.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  if (spec.progressDeadlineSeconds !== undefined) {
    causes.push(...nonNegative('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0))
      causes.invalid(
        'spec.progressDeadlineSeconds',
        spec.progressDeadlineSeconds,
        'must be greater than minReadySeconds',
      );
  }
  const status = statusOf(o) as Record<string, unknown>;
  causes.push(
    ...nonNegativeCounters(status, [
      'observedGeneration',
      'replicas',
      'updatedReplicas',
      'readyReplicas',
      'availableReplicas',
      'unavailableReplicas',
      'collisionCount',
    ]),
  );
  causes.push(...notAboveReplicas(status, ['updatedReplicas', 'readyReplicas', 'availableReplicas']));
  if ((statusOf(o).availableReplicas ?? 0) > (statusOf(o).readyReplicas ?? 0))
    causes.invalid(
      'status.availableReplicas',
      statusOf(o).availableReplicas,
      'cannot be greater than readyReplicas',
    );
  return causes;
}

export const deploymentDef = defineKind({
  group: 'apps',
  kind: 'Deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: ['scale', 'status'],
  schema,
  zeroValue: () => ({ spec: { template: { metadata: {}, spec: { containers: null } }, strategy: {} } }),
  scale: replicasScale(labelSelectorOfSpec),
  table: printed('deployment', {
    Ready: (o) => `${statusOf(o).readyReplicas ?? 0}/${specOf(o).replicas ?? 0}`,
    'Up-to-date': (o) => statusOf(o).updatedReplicas ?? 0,
    Available: (o) => statusOf(o).availableReplicas ?? 0,
    ...templateCells(
      (o) => specOf(o).template,
      (o) => formatLabelSelector(specOf(o).selector),
    ),
  }),
  prepareForCreate(o: KObject) {
    prepare(o);
    o.status = {};
  },
  prepareForUpdate(o: KObject, old: KObject) {
    prepare(o);
    keepStoredStatus(o, old);
    // annotations are copied to replica sets: a change bumps the generation as a spec change does
    if (!deepEqual(o.metadata.annotations ?? {}, old.metadata.annotations ?? {}))
      o.metadata.generation = (old.metadata.generation ?? 0) + 1;
  },
  prepareForStatusUpdate(o: KObject, old: KObject) {
    const asked = o.metadata;
    schemaStatusUpdate(schema, 'Deployment')(o, old);
    for (const k of ['annotations', 'finalizers', 'ownerReferences'] as const) {
      if (asked[k] === undefined) delete o.metadata[k];
      else o.metadata[k] = asked[k] as never;
    }
  },
  validate: validateDeployment,
  validateUpdate: (o: KObject, old: KObject) => [
    ...validateDeployment(o),
    ...immutableSelector(specOf(o).selector, specOf(old).selector),
    ...collisionCountNotDecremented(
      statusOf(o) as Record<string, unknown>,
      statusOf(old) as Record<string, unknown>,
    ),
  ],
  tracksGeneration: true,
});
