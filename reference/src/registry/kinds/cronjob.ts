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
import { col, defineKind } from './define.ts';
import { containerCells, defaultTemplate, type JobSpec, validateJobSpecCommon } from './job.ts';

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
function validateSpec(spec: CronJobSpec, old: CronJobSpec | undefined): StatusCause[] {
  const causes = new Causes();
  if (!spec.schedule) causes.required('spec.schedule');
  else causes.push(...validateSchedule(spec.schedule, !!old?.schedule?.includes('TZ'), spec.timeZone));
  causes.push(...nonNegative('spec.startingDeadlineSeconds', spec.startingDeadlineSeconds));
  if (!old || old.timeZone !== spec.timeZone) causes.push(...validateTimeZone(spec.timeZone));
  const cp = spec.concurrencyPolicy ?? '';
  if (cp === '') causes.required('spec.concurrencyPolicy');
  else if (!CONCURRENCY_POLICIES.includes(cp))
    causes.notSupported('spec.concurrencyPolicy', cp, CONCURRENCY_POLICIES);
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
    causes.push(fieldErr.invalid('metadata.name', name, `must be no more than ${MAX_NAME} characters`));
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
  columns: [
    col('Schedule', 'string', 'spec.schedule', {
      description: 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.',
    }),
    col(
      'Suspend',
      'boolean',
      (o) => (specOf(o).suspend === undefined ? '<unset>' : specOf(o).suspend ? 'True' : 'False'),
      { description: 'This flag tells the controller to suspend subsequent executions.' },
    ),
    col('Active', 'integer', (o) => statusOf(o).active?.length ?? 0, {
      description: 'A list of pointers to currently running jobs.',
    }),
    col(
      'Last Schedule',
      'string',
      (o) => (statusOf(o).lastScheduleTime ? since(statusOf(o).lastScheduleTime) : '<none>'),
      { description: 'Information when was the last time the job was successfully scheduled.' },
    ),
  ],
  afterAge: [
    col('Containers', 'string', (o) => containerCells(specOf(o).jobTemplate?.spec?.template?.spec).names, {
      description: 'Names of each container in the template.',
      priority: 1,
    }),
    col('Images', 'string', (o) => containerCells(specOf(o).jobTemplate?.spec?.template?.spec).images, {
      description: 'Images referenced by each container in the template.',
      priority: 1,
    }),
    col('Selector', 'string', (o) => formatLabelSelector(specOf(o).jobTemplate?.spec?.selector) || '<none>', {
      description: 'A label query over pods that should match the pod count.',
      priority: 1,
    }),
  ],
  tracksGeneration: true,
});
