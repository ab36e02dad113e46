// DaemonSet (apps/v1) with the `status` subresource: one pod of a template per node. The
// selector must select the template and never changes; the update strategy defaults to
// RollingUpdate (one pod unavailable at a time, no surge). apps/v1 has no
// `spec.templateGeneration`: the server keeps it in the `deprecated.daemonset.template.generation`
// annotation (1 on creation, raised by each template change), as Kubernetes 1.28 does.
// There is no controller here: status is whatever a client writes through the status subresource.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import {
  Causes,
  fieldErr,
  formatLabels,
  keepStoredStatus,
  type LabelSelectorObj,
  nonNegative,
} from './common.ts';
import { defineKind, printed } from './define.ts';
import { defaultPodSpec } from './pod-spec.ts';
import {
  collisionCountNotDecremented,
  immutableSelector,
  intOrPercentValue,
  nonNegativeCounters,
  notMoreThan100Percent,
  type PodTemplate,
  positiveIntOrPercent,
  printSelector,
  templateCells,
  validateSelectorForTemplate,
  validateWorkloadTemplate,
  zeroCounters,
  zeroingStatusUpdate,
} from './workload-common.ts';

const schema = builtinSchema('apps/v1', 'DaemonSet');

/** Where apps/v1 keeps the template generation of the older versions. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

interface DaemonSetSpec {
  selector?: LabelSelectorObj;
  template?: PodTemplate;
  updateStrategy?: {
    type?: string;
    rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } | null;
  };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
}

interface DaemonSetStatus {
  currentNumberScheduled?: number;
  numberMisscheduled?: number;
  desiredNumberScheduled?: number;
  numberReady?: number;
  observedGeneration?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  collisionCount?: number;
}

const specOf = (o: KObject) => (o.spec ?? {}) as DaemonSetSpec;
const statusOf = (o: KObject) => (o.status ?? {}) as DaemonSetStatus;

/** The counters Go always writes (no `omitempty`). */
const STATUS_ZEROES = [
  'currentNumberScheduled',
  'numberMisscheduled',
  'desiredNumberScheduled',
  'numberReady',
];

function prepare(o: KObject): void {
  const spec = specOf(o);
  o.spec = spec;
  const us = (spec.updateStrategy ??= {});
  us.type ||= 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = (us.rollingUpdate ??= {});
    ru.maxUnavailable ??= 1;
    ru.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  spec.template ??= {};
  spec.template.metadata ??= {};
  spec.template.spec ??= {};
  defaultPodSpec(spec.template.spec);
}

function setTemplateGeneration(o: KObject, generation: number): void {
  o.metadata.annotations = {
    ...(o.metadata.annotations ?? {}),
    [TEMPLATE_GENERATION_ANNOTATION]: String(generation),
  };
}

function templateGeneration(o: KObject): number {
  const n = Number(o.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION]);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

function validateUpdateStrategy(us: DaemonSetSpec['updateStrategy']): StatusCause[] {
  const at = 'spec.updateStrategy';
  const causes = new Causes();
  switch (us?.type) {
    case 'OnDelete':
      break;
    case 'RollingUpdate': {
      const ru = us.rollingUpdate;
      if (!ru) return [fieldErr.required(`${at}.rollingUpdate`)];
      causes.push(...positiveIntOrPercent(`${at}.rollingUpdate.maxUnavailable`, ru.maxUnavailable));
      causes.push(...positiveIntOrPercent(`${at}.rollingUpdate.maxSurge`, ru.maxSurge));
      causes.push(...notMoreThan100Percent(`${at}.rollingUpdate.maxUnavailable`, ru.maxUnavailable));
      causes.push(...notMoreThan100Percent(`${at}.rollingUpdate.maxSurge`, ru.maxSurge));
      // exactly one of the two is not zero
      const unavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const surge = intOrPercentValue(ru.maxSurge) !== 0;
      if (unavailable && surge)
        causes.invalid(
          `${at}.rollingUpdate.maxSurge`,
          ru.maxSurge,
          'may not be set when maxUnavailable is non-zero',
        );
      else if (!unavailable && !surge)
        causes.required(`${at}.rollingUpdate.maxUnavailable`, 'cannot be 0 when maxSurge is 0');
      break;
    }
    default:
      causes.notSupported(at, us ?? {}, ['RollingUpdate', 'OnDelete']);
  }
  return causes;
}

function validateDaemonSet(o: KObject): StatusCause[] {
  const spec = specOf(o);
  return [
    ...validateSelectorForTemplate(spec, 'daemonset'),
    ...validateWorkloadTemplate(spec.template, 'spec.template', 'DaemonSet'),
    ...nonNegative('spec.minReadySeconds', spec.minReadySeconds),
    ...validateUpdateStrategy(spec.updateStrategy),
    ...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit),
    ...nonNegativeCounters(statusOf(o) as Record<string, unknown>, [
      ...STATUS_ZEROES,
      'observedGeneration',
      'updatedNumberScheduled',
      'numberAvailable',
      'numberUnavailable',
      'collisionCount',
    ]),
  ];
}

export const daemonSetDef = defineKind({
  group: 'apps',
  kind: 'DaemonSet',
  namespaced: true,
  shortNames: ['ds'],
  categories: ['all'],
  subresources: ['status'],
  schema,
  zeroValue: () => ({
    spec: { template: { metadata: {}, spec: { containers: null } }, updateStrategy: {} },
    status: zeroCounters({}, STATUS_ZEROES),
  }),
  table: printed('daemonSet', {
    Desired: 'status.desiredNumberScheduled',
    Current: 'status.currentNumberScheduled',
    Ready: 'status.numberReady',
    'Up-to-date': 'status.updatedNumberScheduled',
    Available: 'status.numberAvailable',
    'Node Selector': (o) => formatLabels(specOf(o).template?.spec?.nodeSelector),
    ...templateCells(
      (o) => specOf(o).template,
      (o) => printSelector(specOf(o).selector),
    ),
  }),
  prepareForCreate(o: KObject) {
    prepare(o);
    setTemplateGeneration(o, 1);
    o.status = zeroCounters({}, STATUS_ZEROES);
  },
  prepareForUpdate(o: KObject, old: KObject) {
    prepare(o);
    keepStoredStatus(o, old);
    const before = templateGeneration(old);
    setTemplateGeneration(o, deepEqual(specOf(o).template, specOf(old).template) ? before : before + 1);
  },
  prepareForStatusUpdate: zeroingStatusUpdate(schema, 'DaemonSet', STATUS_ZEROES),
  validate: validateDaemonSet,
  validateUpdate: (o: KObject, old: KObject) => [
    ...validateDaemonSet(o),
    ...immutableSelector(specOf(o).selector, specOf(old).selector),
    ...collisionCountNotDecremented(
      statusOf(o) as Record<string, unknown>,
      statusOf(old) as Record<string, unknown>,
    ),
  ],
  tracksGeneration: true,
});
