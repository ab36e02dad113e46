// StatefulSet (apps/v1) with the `status` and `scale` subresources: pods with stable names and
// their own claims. Its name is a DNS label (it becomes the pods' host names). After creation
// only replicas, ordinals, template, updateStrategy, persistentVolumeClaimRetentionPolicy and
// minReadySeconds may change; the selector among the rest. As in Kubernetes 1.28, the pod
// template is checked for its labels, annotations, restart policy and deadline only (not as a
// whole pod spec). There is no controller here: status is whatever a client writes through
// the status subresource. Schema: the one a 1.28 server publishes.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import {
  canonical,
  Causes,
  causesOf,
  fieldErr,
  labelMap,
  type LabelSelectorObj,
  nonNegative,
} from './common.ts';
import { defineKind, printed } from './define.ts';
import { defaultPodSpec } from './pod-spec.ts';
import {
  collisionCountNotDecremented,
  counterStatusHooks,
  intOrPercentValue,
  labelSelectorOfSpec,
  nonNegativeCounters,
  notAboveReplicas,
  notMoreThan100Percent,
  type PodTemplate,
  positiveIntOrPercent,
  replicasScale,
  templateAnnotations,
  templateCells,
  validateSelectorForTemplate,
  zeroCounters,
} from './workload-common.ts';

const schema = builtinSchema('apps/v1', 'StatefulSet');

const RETENTION_POLICIES = ['Retain', 'Delete'];

interface StatefulSetSpec {
  replicas?: number;
  selector?: LabelSelectorObj;
  template?: PodTemplate;
  volumeClaimTemplates?: { spec?: { volumeMode?: string }; status?: { phase?: string } }[];
  serviceName?: string;
  podManagementPolicy?: string;
  updateStrategy?: {
    type?: string;
    rollingUpdate?: { partition?: number; maxUnavailable?: number | string } | null;
  };
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
  ordinals?: { start?: number };
}

interface StatefulSetStatus {
  replicas?: number;
  readyReplicas?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  collisionCount?: number;
}

const specOf = (o: KObject) => (o.spec ?? {}) as StatefulSetSpec;
const statusOf = (o: KObject) => (o.status ?? {}) as StatefulSetStatus;

const STATUS_ZEROES = ['replicas', 'availableReplicas'];

/** The spec fields an update may change (Kubernetes 1.28's list, in its message's order). */
const MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
] as const;

function prepare(o: KObject, old?: KObject): void {
  const spec = specOf(o);
  o.spec = spec;
  spec.podManagementPolicy ||= 'OrderedReady';
  const us = (spec.updateStrategy ??= {});
  if (!us.type) {
    us.type = 'RollingUpdate';
    us.rollingUpdate ??= {};
  }
  if (us.type === 'RollingUpdate' && us.rollingUpdate) {
    us.rollingUpdate.partition ??= 0;
    // maxUnavailable belongs to the MaxUnavailableStatefulSet gate, off in 1.28: dropped unless already in use
    const inUse = specOf(old ?? ({} as KObject)).updateStrategy?.rollingUpdate?.maxUnavailable !== undefined;
    if (!inUse) delete us.rollingUpdate.maxUnavailable;
  }
  const retention = (spec.persistentVolumeClaimRetentionPolicy ??= {});
  retention.whenDeleted ||= 'Retain';
  retention.whenScaled ||= 'Retain';
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  // a Go string without omitempty: absent reads as empty
  spec.serviceName ??= '';
  spec.template ??= {};
  spec.template.metadata ??= {};
  spec.template.spec ??= {};
  defaultPodSpec(spec.template.spec);
  for (const claim of spec.volumeClaimTemplates ?? []) {
    if (!claim || typeof claim !== 'object') continue;
    claim.spec ??= {};
    claim.spec.volumeMode ||= 'Filesystem';
    claim.status ??= {};
    claim.status.phase ||= 'Pending';
  }
}

function validateUpdateStrategy(us: StatefulSetSpec['updateStrategy']): StatusCause[] {
  const at = 'spec.updateStrategy';
  switch (us?.type) {
    case undefined:
    case '':
      return [fieldErr.required(at)];
    case 'OnDelete':
      return us.rollingUpdate
        ? [
            fieldErr.invalid(
              `${at}.rollingUpdate`,
              us.rollingUpdate,
              "only allowed for updateStrategy 'RollingUpdate'",
            ),
          ]
        : [];
    case 'RollingUpdate': {
      const ru = us.rollingUpdate;
      if (!ru) return [];
      const causes = causesOf(nonNegative(`${at}.rollingUpdate.partition`, ru.partition));
      if (ru.maxUnavailable !== undefined && ru.maxUnavailable !== null) {
        const f = `${at}.rollingUpdate.maxUnavailable`;
        causes.push(...positiveIntOrPercent(f, ru.maxUnavailable));
        if (intOrPercentValue(ru.maxUnavailable) === 0) causes.invalid(f, ru.maxUnavailable, 'cannot be 0');
        causes.push(...notMoreThan100Percent(f, ru.maxUnavailable));
      }
      return causes;
    }
    default:
      return [fieldErr.invalid(at, us, "must be 'RollingUpdate' or 'OnDelete'")];
  }
}

function validateStatefulSet(o: KObject): StatusCause[] {
  const spec = specOf(o);
  const causes = new Causes();
  const pmp = spec.podManagementPolicy;
  if (!pmp) causes.required('spec.podManagementPolicy');
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel')
    causes.invalid('spec.podManagementPolicy', pmp, "must be 'OrderedReady' or 'Parallel'");
  causes.push(...validateUpdateStrategy(spec.updateStrategy));
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  if (retention)
    for (const k of ['whenDeleted', 'whenScaled'] as const)
      if (!RETENTION_POLICIES.includes(retention[k] ?? ''))
        causes.notSupported(
          `spec.persistentVolumeClaimRetentionPolicy.${k}`,
          retention[k] ?? '',
          RETENTION_POLICIES,
        );
  causes.push(...nonNegative('spec.replicas', spec.replicas));
  causes.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  if (spec.ordinals) causes.push(...nonNegative('spec.ordinals.start', spec.ordinals.start));
  causes.push(...validateSelectorForTemplate(spec, 'statefulset'));
  causes.push(...labelMap('spec.template.labels', spec.template?.metadata?.labels));
  causes.push(...templateAnnotations('spec.template.annotations', spec.template?.metadata?.annotations));
  const podSpec = spec.template?.spec ?? {};
  if (podSpec.restartPolicy !== 'Always')
    causes.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']);
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null)
    causes.forbidden(
      'spec.template.spec.activeDeadlineSeconds',
      'activeDeadlineSeconds in StatefulSet is not Supported',
    );
  const status = statusOf(o) as Record<string, unknown>;
  causes.push(
    ...nonNegativeCounters(status, [
      'replicas',
      'readyReplicas',
      'currentReplicas',
      'updatedReplicas',
      'availableReplicas',
      'observedGeneration',
      'collisionCount',
    ]),
  );
  causes.push(
    ...notAboveReplicas(status, ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']),
  );
  if ((statusOf(o).availableReplicas ?? 0) > (statusOf(o).readyReplicas ?? 0))
    causes.invalid(
      'status.availableReplicas',
      statusOf(o).availableReplicas,
      'cannot be greater than status.readyReplicas',
    );
  return causes;
}

/** Only the fields of MUTABLE may differ between the stored spec and the new one. */
function validateSpecUpdate(o: KObject, old: KObject): StatusCause[] {
  const rest = (s: StatefulSetSpec) => {
    const copy: Record<string, unknown> = { ...s };
    for (const k of MUTABLE) delete copy[k];
    return canonical(copy, (x) => x === undefined || x === null);
  };
  if (JSON.stringify(rest(specOf(o))) === JSON.stringify(rest(specOf(old)))) return [];
  return [
    fieldErr.forbidden(
      'spec',
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}

export const statefulSetDef = defineKind({
  group: 'apps',
  kind: 'StatefulSet',
  namespaced: true,
  shortNames: ['sts'],
  categories: ['all'],
  subresources: ['scale', 'status'],
  schema,
  nameRule: 'label',
  zeroValue: () => ({
    spec: { template: { metadata: {}, spec: { containers: null } }, updateStrategy: {}, serviceName: '' },
    status: zeroCounters({}, STATUS_ZEROES),
  }),
  scale: replicasScale(labelSelectorOfSpec),
  table: printed('statefulSet', {
    Ready: (o) => `${statusOf(o).readyReplicas ?? 0}/${specOf(o).replicas ?? 0}`,
    ...templateCells((o) => specOf(o).template),
  }),
  ...counterStatusHooks(prepare, schema, 'StatefulSet', STATUS_ZEROES),
  validate: validateStatefulSet,
  validateUpdate: (o: KObject, old: KObject) => [
    ...validateStatefulSet(o),
    ...validateSpecUpdate(o, old),
    ...collisionCountNotDecremented(
      statusOf(o) as Record<string, unknown>,
      statusOf(old) as Record<string, unknown>,
    ),
  ],
  tracksGeneration: true,
});
