// ReplicationController (core v1) with the `status` and `scale` subresources: ReplicaSet's
// predecessor, with a plain label map for a selector. As in Kubernetes 1.28 the selector and
// the object's labels default to the template's labels, the selector may change, and it must
// not be empty and must select the template. There is no controller here: status is whatever a
// client writes through the status subresource. Schema: the one a 1.28 server publishes.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { Causes, formatLabels, nonNegative } from './common.ts';
import { defineKind, printed } from './define.ts';
import { defaultPodSpec } from './pod-spec.ts';
import { validateReplicaCounters } from './replicaset.ts';
import {
  counterStatusHooks,
  type PodTemplate,
  replicasScale,
  templateCells,
  templateLabelsMismatch,
  validateWorkloadTemplate,
} from './workload-common.ts';

const schema = builtinSchema('v1', 'ReplicationController');

interface ReplicationControllerSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: Record<string, string>;
  template?: PodTemplate;
}

const specOf = (o: KObject) => (o.spec ?? {}) as ReplicationControllerSpec;
const statusOf = (o: KObject) => (o.status ?? {}) as { replicas?: number; readyReplicas?: number };

const STATUS_ZEROES = ['replicas'];

function prepare(o: KObject): void {
  const spec = specOf(o);
  o.spec = spec;
  const labels = spec.template?.metadata?.labels;
  if (labels) {
    if (Object.keys(spec.selector ?? {}).length === 0) spec.selector = { ...labels };
    if (Object.keys(o.metadata.labels ?? {}).length === 0) o.metadata.labels = { ...labels };
  }
  spec.replicas ??= 1;
  if (spec.template) {
    spec.template.metadata ??= {};
    spec.template.spec ??= {};
    defaultPodSpec(spec.template.spec);
  }
}

/** The selector as the label query it stands for (`a=b,c=d`, keys sorted). */
function selectorString(sel: Record<string, string> | undefined): string {
  const keys = Object.keys(sel ?? {}).sort();
  return keys.map((k) => `${k}=${sel![k]}`).join(',');
}

function validateReplicationController(o: KObject): StatusCause[] {
  const spec = specOf(o);
  const causes = new Causes();
  causes.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  const selector = spec.selector ?? {};
  const empty = Object.keys(selector).length === 0;
  if (empty) causes.required('spec.selector');
  causes.push(...nonNegative('spec.replicas', spec.replicas));
  if (!spec.template) causes.required('spec.template');
  else {
    const labels = spec.template.metadata?.labels ?? {};
    if (!empty && Object.entries(selector).some(([k, v]) => labels[k] !== v))
      causes.push(templateLabelsMismatch(spec.template.metadata?.labels));
    causes.push(...validateWorkloadTemplate(spec.template, 'spec.template', 'ReplicationController'));
  }
  causes.push(...validateReplicaCounters(statusOf(o) as Record<string, unknown>));
  return causes;
}

export const replicationControllerDef = defineKind({
  group: '',
  kind: 'ReplicationController',
  namespaced: true,
  shortNames: ['rc'],
  categories: ['all'],
  subresources: ['scale', 'status'],
  schema,
  defaultGarbageCollectionPolicy: () => 'OrphanDependents',
  zeroValue: () => ({ status: { replicas: 0 } }),
  scale: replicasScale((o) => selectorString(specOf(o).selector)),
  table: printed('replicationController', {
    Desired: 'spec.replicas',
    Current: 'status.replicas',
    Ready: 'status.readyReplicas',
    ...templateCells(
      (o) => specOf(o).template,
      (o) => formatLabels(specOf(o).selector),
    ),
  }),
  ...counterStatusHooks(prepare, schema, 'ReplicationController', STATUS_ZEROES),
  validate: validateReplicationController,
  validateUpdate: validateReplicationController,
  tracksGeneration: true,
});
