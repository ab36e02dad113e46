// ReplicaSet (apps/v1) with the `status` and `scale` subresources: a number of copies of a pod
// template, the pods picked by a selector that must select the template and never changes.
// There is no controller here: status is whatever a client writes through the status
// subresource. Schema: the one a 1.28 server publishes.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { causesOf, type LabelSelectorObj, nonNegative } from './common.ts';
import { defineKind, printed } from './define.ts';
import { defaultPodSpec } from './pod-spec.ts';
import {
  counterStatusHooks,
  immutableSelector,
  labelSelectorOfSpec,
  nonNegativeCounters,
  notAboveReplicas,
  type PodTemplate,
  printSelector,
  replicasScale,
  templateCells,
  validateSelectorForTemplate,
  validateWorkloadTemplate,
} from './workload-common.ts';

const schema = builtinSchema('apps/v1', 'ReplicaSet');

interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelectorObj;
  template?: PodTemplate;
}

interface ReplicaSetStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
}

const specOf = (o: KObject) => (o.spec ?? {}) as ReplicaSetSpec;
const statusOf = (o: KObject) => (o.status ?? {}) as ReplicaSetStatus;

/** `replicas` has no `omitempty` in Go: a status always shows it. */
const STATUS_ZEROES = ['replicas'];

function prepare(o: KObject): void {
  const spec = specOf(o);
  o.spec = spec;
  spec.replicas ??= 1;
  spec.template ??= {};
  spec.template.metadata ??= {};
  spec.template.spec ??= {};
  defaultPodSpec(spec.template.spec);
}

/** Status counters, as Kubernetes' ValidateReplicaSetStatus checks them (shared with ReplicationController). */
export function validateReplicaCounters(status: Record<string, unknown>): StatusCause[] {
  const causes = causesOf(
    nonNegativeCounters(status, [
      'replicas',
      'fullyLabeledReplicas',
      'readyReplicas',
      'availableReplicas',
      'observedGeneration',
    ]),
  );
  causes.push(...notAboveReplicas(status, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']));
  const available = (status.availableReplicas as number | undefined) ?? 0;
  if (available > ((status.readyReplicas as number | undefined) ?? 0))
    causes.invalid('status.availableReplicas', available, 'cannot be greater than readyReplicas');
  return causes;
}

function validateReplicaSet(o: KObject): StatusCause[] {
  const spec = specOf(o);
  return [
    ...nonNegative('spec.replicas', spec.replicas),
    ...nonNegative('spec.minReadySeconds', spec.minReadySeconds),
    // a replica set's empty selector is refused with the deployment wording, as in 1.28
    ...validateSelectorForTemplate(spec, 'deployment'),
    ...validateWorkloadTemplate(spec.template, 'spec.template', 'ReplicaSet'),
    ...validateReplicaCounters(statusOf(o) as Record<string, unknown>),
  ];
}

export const replicaSetDef = defineKind({
  group: 'apps',
  kind: 'ReplicaSet',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  subresources: ['scale', 'status'],
  schema,
  zeroValue: () => ({
    spec: { template: { metadata: {}, spec: { containers: null } } },
    status: { replicas: 0 },
  }),
  scale: replicasScale(labelSelectorOfSpec),
  table: printed('replicaSet', {
    Desired: 'spec.replicas',
    Current: 'status.replicas',
    Ready: 'status.readyReplicas',
    ...templateCells(
      (o) => specOf(o).template,
      (o) => printSelector(specOf(o).selector),
    ),
  }),
  ...counterStatusHooks(prepare, schema, 'ReplicaSet', STATUS_ZEROES),
  validate: validateReplicaSet,
  validateUpdate: (o: KObject, old: KObject) => [
    ...validateReplicaSet(o),
    ...immutableSelector(specOf(o).selector, specOf(old).selector),
  ],
  tracksGeneration: true,
});
