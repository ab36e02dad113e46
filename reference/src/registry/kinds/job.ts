// Job (batch/v1) with the `status` subresource, as Kubernetes 1.28 defaults and validates it.
// There is no controller here: status is whatever a client writes through the subresource.
// Unless `manualSelector` is true, the server generates the selector from the job's uid
// (`batch.orch.io/controller-uid`) and labels the pod template with it and the job's name.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import {
  Causes,
  formatLabelSelector,
  keepStoredStatus,
  type LabelSelectorObj,
  labelMap,
  nonNegative,
  schemaStatusUpdate,
  selectorMatches,
  validateLabelSelector,
} from './common.ts';
import { defineKind, printed } from './define.ts';
import { defaultPodSpec, type PodSpec } from './pod-spec.ts';
import { validatePodSpec } from './pod-spec-validation.ts';
import { templateCells } from './workload-common.ts';

export const schema = builtinSchema('batch/v1', 'Job');

/** Labels the server puts on a job's pod template (Kubernetes' `batch.kubernetes.io/...`, and the legacy names). */
export const CONTROLLER_UID_LABEL = 'batch.orch.io/controller-uid';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const JOB_NAME_LABEL = 'batch.orch.io/job-name';
export const LEGACY_JOB_NAME_LABEL = 'job-name';

const COMPLETION_MODES = ['NonIndexed', 'Indexed'];
const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];
/** The most parallel pods an Indexed job may ask for (1.28's `maxParallelismForIndexedJob`). */
const MAX_PARALLELISM_INDEXED = 100000;

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: PodSpec;
}

export interface JobSpec {
  parallelism?: number;
  completions?: number;
  activeDeadlineSeconds?: number;
  backoffLimit?: number;
  backoffLimitPerIndex?: number;
  maxFailedIndexes?: number;
  selector?: LabelSelectorObj;
  manualSelector?: boolean;
  template?: PodTemplate;
  ttlSecondsAfterFinished?: number;
  completionMode?: string;
  suspend?: boolean;
  podFailurePolicy?: {
    rules?: { action?: string; onPodConditions?: { type?: string; status?: string }[] }[];
  };
}

interface JobStatus {
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  ready?: number;
  terminating?: number;
}

const specOf = (o: KObject) => (o.spec ?? {}) as JobSpec;
const statusOf = (o: KObject) => (o.status ?? {}) as JobStatus;

/** Defaults of a job template's pods (also a cron job's job template). */
export function defaultTemplate(spec: JobSpec): void {
  spec.template ??= {};
  spec.template.spec ??= {};
  defaultPodSpec(spec.template.spec);
}

/** 1.28's SetDefaults_Job. */
function defaultJob(o: KObject): void {
  const spec = specOf(o);
  o.spec = spec;
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? 2147483647 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  for (const rule of spec.podFailurePolicy?.rules ?? [])
    for (const p of rule.onPodConditions ?? []) if (p && !p.status) p.status = 'True';
  defaultTemplate(spec);
}

/** The selector and template labels a job gets from its uid and name unless it chose its own. */
function generateSelector(o: KObject): void {
  const spec = specOf(o);
  if (spec.manualSelector === true) return;
  const tpl = (spec.template ??= {});
  const tm = (tpl.metadata ??= {});
  const labels = (tm.labels ??= {});
  const name = o.metadata.name ?? '';
  const uid = o.metadata.uid ?? '';
  // labels the user set are kept (a conflict fails validation)
  for (const k of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!Object.hasOwn(labels, k)) labels[k] = name;
  for (const k of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL])
    if (!Object.hasOwn(labels, k)) labels[k] = uid;
  spec.selector ??= {};
  spec.selector.matchLabels ??= {};
  if (!Object.hasOwn(spec.selector.matchLabels, CONTROLLER_UID_LABEL))
    spec.selector.matchLabels[CONTROLLER_UID_LABEL] = uid;
}

/** The job spec's rules that a cron job's job template shares (1.28's validateJobSpec). */
export function validateJobSpecCommon(spec: JobSpec, path: string): Causes {
  const causes = new Causes();
  causes.push(...nonNegative(`${path}.parallelism`, spec.parallelism));
  causes.push(...nonNegative(`${path}.completions`, spec.completions));
  causes.push(...nonNegative(`${path}.activeDeadlineSeconds`, spec.activeDeadlineSeconds));
  causes.push(...nonNegative(`${path}.backoffLimit`, spec.backoffLimit));
  causes.push(...nonNegative(`${path}.ttlSecondsAfterFinished`, spec.ttlSecondsAfterFinished));
  if (spec.completionMode !== undefined) {
    causes.oneOf(`${path}.completionMode`, spec.completionMode, COMPLETION_MODES);
    if (spec.completionMode === 'Indexed') {
      if (spec.completions === undefined)
        causes.required(`${path}.completions`, 'when completion mode is Indexed');
      if (spec.parallelism !== undefined && spec.parallelism > MAX_PARALLELISM_INDEXED)
        causes.invalid(
          `${path}.parallelism`,
          spec.parallelism,
          `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`,
        );
    }
  }
  const tpl = spec.template ?? {};
  causes.push(...labelMap(`${path}.template.metadata.labels`, tpl.metadata?.labels));
  const podSpec = tpl.spec ?? {};
  const rp = `${path}.template.spec`;
  // every pod restart policy passes the pod spec's own check; a job allows two of them
  causes.push(...validatePodSpec(podSpec, rp).filter((c) => c.field !== `${rp}.restartPolicy`));
  const restart = podSpec.restartPolicy ?? '';
  if (restart === 'Always' || restart === '')
    causes.required(`${rp}.restartPolicy`, 'valid values: "OnFailure", "Never"');
  else if (!JOB_RESTART_POLICIES.includes(restart))
    causes.notSupported(`${rp}.restartPolicy`, restart, JOB_RESTART_POLICIES);
  else if (spec.podFailurePolicy && restart !== 'Never')
    causes.invalid(
      `${rp}.restartPolicy`,
      restart,
      'only "Never" is supported when podFailurePolicy is specified',
    );
  return causes;
}

function validateJob(o: KObject): Causes {
  const spec = specOf(o);
  const causes = validateJobSpecCommon(spec, 'spec');
  const labels = spec.template?.metadata?.labels;
  if (!spec.selector) causes.required('spec.selector');
  else {
    causes.push(...validateLabelSelector('spec.selector', spec.selector));
    if (!selectorMatches(spec.selector, labels))
      causes.invalid(
        'spec.template.metadata.labels',
        labels ?? {},
        '`selector` does not match template `labels`',
      );
  }
  causes.push(...validateGeneratedSelector(o));
  const st = statusOf(o);
  for (const f of ['active', 'succeeded', 'failed', 'ready', 'terminating'] as const)
    causes.push(...nonNegative(`status.${f}`, st[f]));
  return causes;
}

/** A generated selector is exactly the uid label, and the template's uid labels carry the job's uid. */
function validateGeneratedSelector(o: KObject): StatusCause[] {
  const spec = specOf(o);
  if (spec.manualSelector === true) return [];
  const uid = o.metadata.uid ?? '';
  const causes = new Causes();
  const labels = spec.template?.metadata?.labels ?? {};
  for (const k of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL])
    if (Object.hasOwn(labels, k) && labels[k] !== uid)
      causes.invalid(`spec.template.metadata.labels[${k}]`, labels[k], `must be '${uid}'`);
  const sel = spec.selector;
  const ml = sel?.matchLabels ?? {};
  if (
    sel &&
    ((sel.matchExpressions ?? []).length > 0 ||
      Object.keys(ml).length !== 1 ||
      ml[CONTROLLER_UID_LABEL] !== uid)
  )
    causes.invalid('spec.selector', formatLabelSelector(sel), '`selector` not auto-generated');
  return causes;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** 1.28's ValidateJobSpecUpdate: what an update may not change. */
function validateJobUpdate(o: KObject, old: KObject): StatusCause[] {
  const causes = validateJob(o);
  const spec = specOf(o);
  const before = specOf(old);
  const indexedScale =
    spec.completionMode === 'Indexed' &&
    before.completionMode === 'Indexed' &&
    spec.completions === spec.parallelism &&
    before.completions === before.parallelism;
  if (!indexedScale && !same(spec.completions, before.completions))
    causes.invalid('spec.completions', spec.completions, 'field is immutable');
  if (!same(spec.selector, before.selector))
    causes.invalid('spec.selector', formatLabelSelector(spec.selector), 'field is immutable');
  if (!same(spec.template, before.template) && !schedulingDirectivesOnly(o, old))
    causes.invalidShown('spec.template', 'the pod template', 'field is immutable');
  if (!same(spec.completionMode, before.completionMode))
    causes.invalid('spec.completionMode', spec.completionMode, 'field is immutable');
  if (!same(spec.podFailurePolicy, before.podFailurePolicy))
    causes.invalid('spec.podFailurePolicy', spec.podFailurePolicy, 'field is immutable');
  if (!same(spec.backoffLimitPerIndex, before.backoffLimitPerIndex))
    causes.invalid('spec.backoffLimitPerIndex', spec.backoffLimitPerIndex, 'field is immutable');
  return causes;
}

/**
 * A suspended job that never started may change its template's scheduling directives
 * (node selector, affinity, tolerations, scheduling gates, labels, annotations) only.
 */
function schedulingDirectivesOnly(o: KObject, old: KObject): boolean {
  const before = specOf(old);
  if (before.suspend !== true || statusOf(old).startTime) return false;
  const strip = (t: PodTemplate | undefined) => {
    const {
      nodeSelector: _n,
      affinity: _a,
      tolerations: _t,
      schedulingGates: _g,
      ...rest
    } = (t?.spec ?? {}) as Record<string, unknown>;
    return rest;
  };
  return same(strip(specOf(o).template), strip(before.template));
}

function prepare(o: KObject): void {
  defaultJob(o);
}

/** A duration as Kubernetes' HumanDuration prints it (`45s`, `3m20s`, `5h`, `3d`). */
export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return h % 24 === 0 ? `${Math.floor(h / 24)}d` : `${Math.floor(h / 24)}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24)}d`;
  return `${Math.floor(h / 24 / 365)}y`;
}

function completionsCell(o: KObject): string {
  const spec = specOf(o);
  const succeeded = statusOf(o).succeeded ?? 0;
  if (spec.completions !== undefined) return `${succeeded}/${spec.completions}`;
  const parallelism = spec.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function durationCell(o: KObject, now = Date.now()): string {
  const st = statusOf(o);
  const start = Date.parse(st.startTime ?? '');
  if (!Number.isFinite(start)) return '';
  const end = Date.parse(st.completionTime ?? '');
  return humanDuration((Number.isFinite(end) ? end : now) - start);
}

export const jobDef = defineKind({
  group: 'batch',
  kind: 'Job',
  namespaced: true,
  categories: ['all'],
  subresources: ['status'],
  schema,
  defaultGarbageCollectionPolicy: (version) => (version === 'v1' ? 'OrphanDependents' : 'DeleteDependents'),
  deleteWarning: (policy, version) =>
    policy === undefined && version === 'v1'
      ? 'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning'
      : undefined,
  zeroValue: () => ({ spec: { template: { metadata: {}, spec: { containers: null } } } }),
  prepareForCreate(o) {
    prepare(o);
    generateSelector(o);
    // what a read of the stored job shows: its labels default to the template's
    const tplLabels = specOf(o).template?.metadata?.labels;
    if (tplLabels && Object.keys(o.metadata.labels ?? {}).length === 0) o.metadata.labels = { ...tplLabels };
    o.status = {};
  },
  prepareForUpdate(o, old) {
    prepare(o);
    keepStoredStatus(o, old);
  },
  prepareForStatusUpdate: schemaStatusUpdate(schema, 'Job'),
  validate: validateJob,
  validateUpdate: validateJobUpdate,
  table: printed('job', {
    Completions: completionsCell,
    Duration: (o) => durationCell(o),
    ...templateCells(
      (o) => specOf(o).template,
      (o) => formatLabelSelector(specOf(o).selector),
    ),
  }),
  tracksGeneration: true,
});
