// batch/v1 Job and CronJob: discovery and table columns as a Kubernetes 1.28 server lists them,
// 1.28's defaults (completions, parallelism, backoffLimit, completionMode, suspend, the
// generated selector; concurrencyPolicy, history limits) and validation (422 with 1.28's causes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectResourceAsFact } from './discovery-expect.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { columnsOf, readFact } from './k8s-facts.ts';

let ts: TestServer;
let ns: string;
beforeAll(async () => {
  ts = await startServer();
  ns = uniqueName('batch');
  expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await ts?.close();
});

const jobs = (name = '') => `/apis/batch/v1/namespaces/${ns}/jobs${name ? `/${name}` : ''}`;
const cronjobs = (name = '') => `/apis/batch/v1/namespaces/${ns}/cronjobs${name ? `/${name}` : ''}`;
const causesOf = (r: { json: any }) =>
  (r.json?.details?.causes ?? []) as { field: string; message: string; reason: string }[];
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

const podTemplate = (restartPolicy?: string) => ({
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...(restartPolicy ? { restartPolicy } : {}) },
});

describe('batch/v1: discovery and table columns as 1.28', () => {
  it('jobs, jobs/status, cronjobs, cronjobs/status: names, verbs, short names, categories', async () => {
    const facts = (readFact('discovery.json') as any).resources['batch/v1'] as any[];
    const r = await ts.req('GET', '/apis/batch/v1');
    expect(r.status).toBe(200);
    expect(r.json.resources.map((x: any) => x.name).sort()).toEqual(facts.map((x) => x.name).sort());
    for (const want of facts) {
      const got = r.json.resources.find((x: any) => x.name === want.name);
      expectResourceAsFact(got, want);
    }
  });

  it('a job row: Completions and Duration as 1.28 prints them', async () => {
    const c = await ts.req('POST', jobs(), {
      metadata: { name: 'row' },
      spec: { parallelism: 3, template: podTemplate('Never') },
    });
    expect(c.status, c.text).toBe(201);
    const st = await ts.req('PUT', `${jobs('row')}/status`, {
      ...c.json,
      status: { startTime: '2026-01-01T00:00:00Z', completionTime: '2026-01-01T00:03:20Z', succeeded: 2 },
    });
    expect(st.status, st.text).toBe(200);
    const t = await ts.req('GET', jobs('row'), undefined, { accept: TABLE });
    expect(t.json.columnDefinitions.map((d: any) => d.name)).toEqual(
      columnsOf('batch', 'v1', 'jobs').map((d) => d.name),
    );
    // no completions asked: "succeeded/1 of parallelism"
    expect(t.json.rows[0].cells.slice(1, 3)).toEqual(['2/1 of 3', '3m20s']);
  });

  it('a cron job row: Schedule, Suspend, Active, Last Schedule', async () => {
    const c = await ts.req('POST', cronjobs(), {
      metadata: { name: 'row' },
      spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: podTemplate('OnFailure') } } },
    });
    expect(c.status, c.text).toBe(201);
    const t = await ts.req('GET', cronjobs('row'), undefined, { accept: TABLE });
    expect(t.json.columnDefinitions.map((d: any) => d.name)).toEqual(
      columnsOf('batch', 'v1', 'cronjobs').map((d) => d.name),
    );
    expect(t.json.rows[0].cells.slice(1, 5)).toEqual(['*/5 * * * *', 'False', 0, '<none>']);
  });
});

describe('Job: defaults', () => {
  it('completions and parallelism 1, backoffLimit 6, NonIndexed, not suspended; status empty', async () => {
    const r = await ts.req('POST', jobs(), {
      metadata: { name: 'd1' },
      spec: { template: podTemplate('Never') },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
    });
    expect(r.json.spec.manualSelector).toBeUndefined();
    expect(r.json.status).toEqual({});
    // the pod template gets the pod defaults
    expect(r.json.spec.template.spec).toMatchObject({
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
    });
  });

  it('parallelism alone: completions stay unset', async () => {
    const r = await ts.req('POST', jobs(), {
      metadata: { name: 'd2' },
      spec: { parallelism: 2, template: podTemplate('Never') },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.parallelism).toBe(2);
    expect(r.json.spec.completions).toBeUndefined();
  });

  it('the selector is generated from the uid; the template is labelled with the uid and the name', async () => {
    const r = await ts.req('POST', jobs(), {
      metadata: { name: 'd3' },
      spec: { template: podTemplate('Never') },
    });
    expect(r.status, r.text).toBe(201);
    const uid = r.json.metadata.uid;
    expect(r.json.spec.selector).toEqual({ matchLabels: { 'batch.orch.io/controller-uid': uid } });
    expect(r.json.spec.template.metadata.labels).toEqual({
      'batch.orch.io/controller-uid': uid,
      'batch.orch.io/job-name': 'd3',
      'controller-uid': uid,
      'job-name': 'd3',
    });
    // a job without labels of its own shows its template's, as a read of a 1.28 job does
    expect(r.json.metadata.labels).toEqual(r.json.spec.template.metadata.labels);
  });

  it('manualSelector: the selector is the one given, and must match the template', async () => {
    const ok = await ts.req('POST', jobs(), {
      metadata: { name: 'm1' },
      spec: {
        manualSelector: true,
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'x' } }, ...podTemplate('Never') },
      },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.spec.selector).toEqual({ matchLabels: { app: 'x' } });
    const bad = await ts.req('POST', jobs(), {
      metadata: { name: 'm2' },
      spec: {
        manualSelector: true,
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'y' } }, ...podTemplate('Never') },
      },
    });
    expect(bad.status).toBe(422);
    expect(causesOf(bad)).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.template.metadata.labels',
      message: 'Invalid value: map[string]string{"app":"y"}: `selector` does not match template `labels`',
    });
    const none = await ts.req('POST', jobs(), {
      metadata: { name: 'm3' },
      spec: { manualSelector: true, template: podTemplate('Never') },
    });
    expect(none.status).toBe(422);
    expect(causesOf(none)).toContainEqual({
      reason: 'FieldValueRequired',
      field: 'spec.selector',
      message: 'Required value',
    });
  });
});

describe('Job: validation (422 with the causes 1.28 gives)', () => {
  it('the template restart policy must be OnFailure or Never (the pod default Always is refused)', async () => {
    const dflt = await ts.req('POST', jobs(), {
      metadata: { name: 'v1' },
      spec: { template: podTemplate() },
    });
    expect(dflt.status).toBe(422);
    expect(causesOf(dflt)).toContainEqual({
      reason: 'FieldValueRequired',
      field: 'spec.template.spec.restartPolicy',
      message: 'Required value: valid values: "OnFailure", "Never"',
    });
  });

  it('negative counts, an unknown completion mode, Indexed without completions', async () => {
    const r = await ts.req('POST', jobs(), {
      metadata: { name: 'v2' },
      spec: {
        parallelism: -1,
        backoffLimit: -2,
        activeDeadlineSeconds: -3,
        completionMode: 'Sometimes',
        template: podTemplate('Never'),
      },
    });
    expect(r.status).toBe(422);
    expect(causesOf(r)).toEqual(
      expect.arrayContaining([
        {
          reason: 'FieldValueInvalid',
          field: 'spec.parallelism',
          message: 'Invalid value: -1: must be greater than or equal to 0',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.backoffLimit',
          message: 'Invalid value: -2: must be greater than or equal to 0',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.activeDeadlineSeconds',
          message: 'Invalid value: -3: must be greater than or equal to 0',
        },
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.completionMode',
          message: 'Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"',
        },
      ]),
    );
    const idx = await ts.req('POST', jobs(), {
      metadata: { name: 'v3' },
      spec: { parallelism: 2, completionMode: 'Indexed', template: podTemplate('Never') },
    });
    expect(idx.status).toBe(422);
    expect(causesOf(idx)).toContainEqual({
      reason: 'FieldValueRequired',
      field: 'spec.completions',
      message: 'Required value: when completion mode is Indexed',
    });
  });

  it('a selector the server did not generate is refused when manualSelector is not set', async () => {
    const r = await ts.req('POST', jobs(), {
      metadata: { name: 'v4' },
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'x' } }, ...podTemplate('Never') },
      },
    });
    expect(r.status).toBe(422);
    expect(
      causesOf(r).some(
        (c) => c.field === 'spec.selector' && c.message.endsWith('`selector` not auto-generated'),
      ),
    ).toBe(true);
  });

  it('an update may not change the selector, completions or the template of a running job', async () => {
    const c = await ts.req('POST', jobs(), {
      metadata: { name: 'u1' },
      spec: { template: podTemplate('Never') },
    });
    expect(c.status, c.text).toBe(201);
    const body = structuredClone(c.json);
    body.spec.completions = 3;
    body.spec.template.spec.containers[0].image = 'alpine';
    const u = await ts.req('PUT', jobs('u1'), body);
    expect(u.status).toBe(422);
    const fields = causesOf(u).map((x) => x.field);
    expect(fields).toEqual(expect.arrayContaining(['spec.completions', 'spec.template']));
    expect(causesOf(u).every((x) => x.message.endsWith('field is immutable'))).toBe(true);
    // the parts that may change do
    const ok = structuredClone(c.json);
    ok.spec.suspend = true;
    ok.spec.parallelism = 4;
    const u2 = await ts.req('PUT', jobs('u1'), ok);
    expect(u2.status, u2.text).toBe(200);
    expect(u2.json.spec).toMatchObject({ suspend: true, parallelism: 4 });
  });
});

describe('CronJob: defaults and validation', () => {
  it('concurrencyPolicy Allow, not suspended, history limits 3 and 1; no job defaults in the template', async () => {
    const r = await ts.req('POST', cronjobs(), {
      metadata: { name: 'd1' },
      spec: { schedule: '0 * * * *', jobTemplate: { spec: { template: podTemplate('Never') } } },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec).toMatchObject({
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
    expect(r.json.spec.jobTemplate.spec.backoffLimit).toBeUndefined();
    expect(r.json.spec.jobTemplate.spec.template.spec.restartPolicy).toBe('Never');
    expect(r.json.status).toEqual({});
  });

  const bad = async (spec: Record<string, unknown>, name = uniqueName('cj')) => {
    const r = await ts.req('POST', cronjobs(), {
      metadata: { name },
      spec: { jobTemplate: { spec: { template: podTemplate('Never') } }, ...spec },
    });
    expect(r.status, r.text).toBe(422);
    return causesOf(r);
  };

  it.each([
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['@every 1d', 'failed to parse duration @every 1d: time: unknown unit "d" in duration "1d"'],
  ])('schedule %j: %s', async (schedule, why) => {
    expect(await bad({ schedule })).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.schedule',
      message: `Invalid value: ${JSON.stringify(schedule)}: ${why}`,
    });
  });

  it.each(['@hourly', '@every 1h30m', '0 0 * jan,jul mon-fri', '*/15 9-17 ? * *', '5 4 * * sun'])(
    'schedule %j is accepted',
    async (schedule) => {
      const r = await ts.req('POST', cronjobs(), {
        metadata: { name: uniqueName('ok') },
        spec: { schedule, jobTemplate: { spec: { template: podTemplate('Never') } } },
      });
      expect(r.status, r.text).toBe(201);
    },
  );

  it('TZ in the schedule is refused (timeZone is the field for it); time zones are IANA names', async () => {
    expect(await bad({ schedule: 'TZ=UTC 0 * * * *' })).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.schedule',
      message:
        'Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    });
    expect(await bad({ schedule: '0 * * * *', timeZone: 'Mars/Olympus' })).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.timeZone',
      message: 'Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
    });
    expect(await bad({ schedule: '0 * * * *', timeZone: 'Local' })).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.timeZone',
      message:
        'Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
    });
    const ok = await ts.req('POST', cronjobs(), {
      metadata: { name: 'tz' },
      spec: {
        schedule: '0 * * * *',
        timeZone: 'Europe/Berlin',
        jobTemplate: { spec: { template: podTemplate('Never') } },
      },
    });
    expect(ok.status, ok.text).toBe(201);
  });

  it('concurrency policy, history limits, the job template selector, the name length', async () => {
    const causes = await bad(
      {
        schedule: '0 * * * *',
        concurrencyPolicy: 'Sometimes',
        successfulJobsHistoryLimit: -1,
        jobTemplate: { spec: { selector: { matchLabels: { a: 'b' } }, template: podTemplate() } },
      },
      'c'.repeat(53),
    );
    expect(causes).toEqual(
      expect.arrayContaining([
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.concurrencyPolicy',
          message: 'Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.successfulJobsHistoryLimit',
          message: 'Invalid value: -1: must be greater than or equal to 0',
        },
        {
          reason: 'FieldValueRequired',
          field: 'spec.jobTemplate.spec.template.spec.restartPolicy',
          message: 'Required value: valid values: "OnFailure", "Never"',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.name',
          message: `Invalid value: "${'c'.repeat(53)}": must be no more than 52 characters`,
        },
      ]),
    );
    expect(
      causes.some(
        (c) =>
          c.field === 'spec.jobTemplate.spec.selector' &&
          c.message.endsWith('`selector` will be auto-generated'),
      ),
    ).toBe(true);
  });
});
