// CronJob (batch/v1) with the `status` subresource, as Kubernetes 1.28 defaults and validates
// it: the schedule is a cron expression (cron-schedule.ts), the time zone a name of the IANA
// database, and the job template a job spec whose selector the server will generate. No
// controller runs the schedule here.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import {
  Causes,
  fieldErr,
  formatLabelSelector,
  nonNegative,
  schemaStatusUpdate,
  since,
  specStatusHooks,
} from './common.ts';
import { cronScheduleProblem, timeZoneProblem } from './cron-schedule.ts';
import { defineKind, printed } from './define.ts';
import { defaultTemplate, type JobSpec, validateJobSpecCommon } from './job.ts';
import { templateCells } from './workload-common.ts';

const schema = builtinSchema('batch/v1', 'CronJob');

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
/** Jobs are named `<cronjob>-<11 characters>`, and a job name is at most 63 characters. */
const MAX_NAME = 52;
const TZ_COMPONENT = /^[A-Za-z.\-_0-9+]{1,14}$/;

interface CronJobSpec {
  schedule?: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: string;
  suspend?: boolean;
  jobTemplate?: { metadata?: Record<string, unknown>; spec?: JobSpec };
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

interface CronJobStatus {
  active?: unknown[];
  lastScheduleTime?: string;
}

const specOf = (o: KObject) => (o.spec ?? {}) as CronJobSpec;
const statusOf = (o: KObject) => (o.status ?? {}) as CronJobStatus;

function prepare(o: KObject): void {
  const spec = specOf(o);
  o.spec = spec;
  spec.concurrencyPolicy ||= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  spec.jobTemplate ??= {};
  spec.jobTemplate.spec ??= {};
  defaultTemplate(spec.jobTemplate.spec);
}

function validateSchedule(schedule: string, allowTZ: boolean, timeZone: string | undefined): StatusCause[] {
  const causes = new Causes();
  const problem = cronScheduleProblem(schedule);
  if (problem) causes.invalid('spec.schedule', schedule, problem);
  if (allowTZ && schedule.includes('TZ') && timeZone !== undefined)
    causes.invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule');
  else if (!allowTZ && schedule.includes('TZ'))
    causes.invalid(
      'spec.schedule',
      schedule,
      'cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    );
  return causes;
}

function validateTimeZone(tz: string | undefined): StatusCause[] {
  if (tz === undefined) return [];
  const f = 'spec.timeZone';
  if (tz === '') return [fieldErr.invalid(f, tz, 'timeZone must be nil or non-empty string')];
  for (const part of tz.split('/'))
    if (part === '.' || part === '..' || part.startsWith('-') || !TZ_COMPONENT.test(part))
      return [fieldErr.invalid(f, tz, `unknown time zone ${tz}`)];
  const causes = new Causes();
  if (tz.toLowerCase() === 'local')
    causes.invalid(
      f,
      tz,
      'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
    );
  const problem = timeZoneProblem(tz);
  if (problem) causes.invalid(f, tz, problem);
  return causes;
}

/** 1.28's validateCronJobSpec; `old` is the stored spec on an update. */
function validateSpec(spec: CronJobSpec, old: CronJobSpec | undefined): Causes {
  const causes = new Causes();
  if (!spec.schedule) causes.required('spec.schedule');
  else causes.push(...validateSchedule(spec.schedule, !!old?.schedule?.includes('TZ'), spec.timeZone));
  causes.push(...nonNegative('spec.startingDeadlineSeconds', spec.startingDeadlineSeconds));
  if (!old || old.timeZone !== spec.timeZone) causes.push(...validateTimeZone(spec.timeZone));
  const cp = spec.concurrencyPolicy ?? '';
  if (cp === '') causes.required('spec.concurrencyPolicy');
  else causes.oneOf('spec.concurrencyPolicy', cp, CONCURRENCY_POLICIES);
  const js = spec.jobTemplate?.spec ?? {};
  causes.push(...validateJobSpecCommon(js, 'spec.jobTemplate.spec'));
  // the job template's selector is always generated
  if (js.selector)
    causes.invalid(
      'spec.jobTemplate.spec.selector',
      formatLabelSelector(js.selector),
      '`selector` will be auto-generated',
    );
  if (js.manualSelector === true)
    causes.notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']);
  causes.push(...nonNegative('spec.successfulJobsHistoryLimit', spec.successfulJobsHistoryLimit));
  causes.push(...nonNegative('spec.failedJobsHistoryLimit', spec.failedJobsHistoryLimit));
  return causes;
}

function validateCronJob(o: KObject): StatusCause[] {
  const causes = validateSpec(specOf(o), undefined);
  const name = o.metadata.name ?? '';
  if (name.length > MAX_NAME)
    causes.invalid('metadata.name', name, `must be no more than ${MAX_NAME} characters`);
  return causes;
}

export const cronJobDef = defineKind({
  group: 'batch',
  kind: 'CronJob',
  namespaced: true,
  shortNames: ['cj'],
  categories: ['all'],
  subresources: ['status'],
  schema,
  zeroValue: () => ({
    spec: {
      jobTemplate: { metadata: {}, spec: { template: { metadata: {}, spec: { containers: null } } } },
    },
  }),
  ...specStatusHooks(prepare),
  prepareForStatusUpdate: schemaStatusUpdate(schema, 'CronJob'),
  validate: validateCronJob,
  validateUpdate: (o, old) => validateSpec(specOf(o), specOf(old)),
  table: printed('cronJob', {
    Schedule: 'spec.schedule',
    Suspend: (o) => (specOf(o).suspend === undefined ? '<unset>' : specOf(o).suspend ? 'True' : 'False'),
    Active: (o) => statusOf(o).active?.length ?? 0,
    'Last Schedule': (o) => (statusOf(o).lastScheduleTime ? since(statusOf(o).lastScheduleTime) : '<none>'),
    ...templateCells(
      (o) => specOf(o).jobTemplate?.spec?.template,
      (o) => formatLabelSelector(specOf(o).jobTemplate?.spec?.selector) || '<none>',
    ),
  }),
  tracksGeneration: true,
});
