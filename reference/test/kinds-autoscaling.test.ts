// HorizontalPodAutoscaler served at autoscaling/v2 and autoscaling/v1 from one storage (doc2
// "Versioning", rule 2: objects round-trip between the versions of a release without loss;
// what v1 lacks travels in the annotations Kubernetes 1.28 uses), with 1.28's defaults and
// validation, discovery and table columns as a 1.28 server lists them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectResourceAsFact } from './discovery-expect.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { columnsOf, readFact } from './k8s-facts.ts';

let ts: TestServer;
let ns: string;
beforeAll(async () => {
  ts = await startServer();
  ns = uniqueName('hpa');
  expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await ts?.close();
});

const path = (v: string, name = '') =>
  `/apis/autoscaling/${v}/namespaces/${ns}/horizontalpodautoscalers${name ? `/${name}` : ''}`;
const causesOf = (r: { json: any }) =>
  (r.json?.details?.causes ?? []) as { field: string; message: string; reason: string }[];
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

const memoryMetric = {
  type: 'Resource',
  resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } },
};
const podsMetric = {
  type: 'Pods',
  pods: { metric: { name: 'packets-per-second' }, target: { type: 'AverageValue', averageValue: '1k' } },
};
const cpuMetric = {
  type: 'Resource',
  resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
};
const behavior = {
  scaleDown: {
    stabilizationWindowSeconds: 300,
    selectPolicy: 'Min',
    policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }],
  },
  scaleUp: {
    stabilizationWindowSeconds: 10,
    selectPolicy: 'Max',
    policies: [{ type: 'Percent', value: 50, periodSeconds: 30 }],
  },
};

describe('HorizontalPodAutoscaler: discovery and tables as 1.28', () => {
  const facts = (readFact('discovery.json') as any).resources;
  for (const v of ['v2', 'v1'])
    it(`autoscaling/${v} lists horizontalpodautoscalers and its status as a 1.28 server`, async () => {
      const r = await ts.req('GET', `/apis/autoscaling/${v}`);
      expect(r.status).toBe(200);
      for (const want of facts[`autoscaling/${v}`] as any[]) {
        const got = r.json.resources.find((x: any) => x.name === want.name);
        expect(got, want.name).toBeDefined();
        expectResourceAsFact(got, want);
      }
    });

  it('the group prefers v2, as 1.28', async () => {
    const want = (readFact('discovery.json') as any).preferred.autoscaling;
    const r = await ts.req('GET', '/apis/autoscaling');
    expect(r.json.preferredVersion.groupVersion).toBe(want);
    expect(r.json.versions.map((v: any) => v.groupVersion)).toEqual(['autoscaling/v2', 'autoscaling/v1']);
  });

  it('rows: Reference, Targets, MinPods, MaxPods, Replicas at both versions', async () => {
    const name = 'row';
    const c = await ts.req('POST', path('v2'), {
      metadata: { name },
      spec: { scaleTargetRef: target, maxReplicas: 5, metrics: [cpuMetric, memoryMetric, podsMetric] },
    });
    expect(c.status, c.text).toBe(201);
    for (const v of ['v2', 'v1']) {
      const r = await ts.req('GET', path(v, name), undefined, {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      });
      expect(r.json.columnDefinitions.map((d: any) => d.name)).toEqual(
        columnsOf('autoscaling', v, 'horizontalpodautoscalers').map((d) => d.name),
      );
      // 1.28 prints two metrics and counts the others; v1 reads the same object (the CPU target last)
      const cells = r.json.rows[0].cells;
      expect(cells[1]).toBe('Deployment/web');
      expect(cells[2]).toBe(
        v === 'v2'
          ? '<unknown>/60%, <unknown>/500Mi + 1 more...'
          : '<unknown>/500Mi, <unknown>/1k + 1 more...',
      );
      expect(cells.slice(3, 6)).toEqual([1, 5, 0]);
    }
  });
});

describe('HorizontalPodAutoscaler: defaults', () => {
  it('v2: minReplicas 1 and an 80% CPU utilization target when no metric is given; status desiredReplicas 0', async () => {
    const r = await ts.req('POST', path('v2'), {
      metadata: { name: 'd1' },
      spec: { scaleTargetRef: target, maxReplicas: 3 },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.minReplicas).toBe(1);
    expect(r.json.spec.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
      },
    ]);
    expect(r.json.spec.behavior).toBeUndefined();
    expect(r.json.status).toEqual({ desiredReplicas: 0 });
  });

  it('v2: a behavior given in part is completed with 1.28 scale-up and scale-down rules', async () => {
    const r = await ts.req('POST', path('v2'), {
      metadata: { name: 'd2' },
      spec: {
        scaleTargetRef: target,
        maxReplicas: 3,
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.behavior).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 60,
        selectPolicy: 'Max',
        policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      },
    });
  });

  it('v1 without a target: read at v2 with the 80% CPU target, at v1 with the target written out', async () => {
    const c = await ts.req('POST', path('v1'), {
      metadata: { name: 'd3' },
      spec: { scaleTargetRef: target, maxReplicas: 4 },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json).toMatchObject({
      apiVersion: 'autoscaling/v1',
      spec: { minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 80 },
      status: { currentReplicas: 0, desiredReplicas: 0 },
    });
    expect(c.json.metadata.annotations).toBeUndefined();
    const g = await ts.req('GET', path('v2', 'd3'));
    expect(g.json.spec.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
      },
    ]);
  });
});

describe('HorizontalPodAutoscaler: validation (422 with the causes 1.28 gives)', () => {
  const bad = async (v: string, spec: Record<string, unknown>) => {
    const r = await ts.req('POST', path(v), { metadata: { name: uniqueName('bad') }, spec });
    expect(r.status, r.text).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    return causesOf(r);
  };

  it('minReplicas, maxReplicas and the target reference', async () => {
    const causes = await bad('v2', {
      scaleTargetRef: { kind: 'Deployment' },
      minReplicas: 0,
      maxReplicas: 0,
    });
    expect(causes).toEqual(
      expect.arrayContaining([
        {
          reason: 'FieldValueInvalid',
          field: 'spec.minReplicas',
          message: 'Invalid value: 0: must be greater than or equal to 1',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.maxReplicas',
          message: 'Invalid value: 0: must be greater than 0',
        },
        { reason: 'FieldValueRequired', field: 'spec.scaleTargetRef.name', message: 'Required value' },
      ]),
    );
    const c2 = await bad('v2', { scaleTargetRef: target, minReplicas: 5, maxReplicas: 2 });
    expect(c2).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.maxReplicas',
      message: 'Invalid value: 2: must be greater than or equal to `minReplicas`',
    });
  });

  it('metrics: the source the type names is required, targets are positive, one target kind for resources', async () => {
    const causes = await bad('v2', {
      scaleTargetRef: target,
      maxReplicas: 2,
      metrics: [
        { type: 'Pods' },
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } },
        },
        {
          type: 'Resource',
          resource: {
            name: 'memory',
            target: { type: 'AverageValue', averageValue: '1Gi', averageUtilization: 50 },
          },
        },
        { type: 'Bogus' },
      ],
    });
    expect(causes).toEqual(
      expect.arrayContaining([
        {
          reason: 'FieldValueRequired',
          field: 'spec.metrics[0].pods',
          message: 'Required value: must populate information for the given metric source',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.metrics[1].resource.target.averageUtilization',
          message: 'Invalid value: 0: must be greater than 0',
        },
        {
          reason: 'FieldValueForbidden',
          field: 'spec.metrics[2].resource.target.averageValue',
          message: 'Forbidden: may not set both a target raw value and a target utilization',
        },
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.metrics[3].type',
          message:
            'Unsupported value: "Bogus": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
        },
      ]),
    );
  });

  it('behavior: window and period bounds, policy types and select policies', async () => {
    const causes = await bad('v2', {
      scaleTargetRef: target,
      maxReplicas: 2,
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 3601,
          policies: [{ type: 'Nodes', value: 0, periodSeconds: 1801 }],
        },
        scaleDown: { selectPolicy: 'Avg', policies: [] },
      },
    });
    expect(causes).toEqual(
      expect.arrayContaining([
        {
          reason: 'FieldValueInvalid',
          field: 'spec.behavior.scaleUp.stabilizationWindowSeconds',
          message: 'Invalid value: 3601: must be less than or equal to 3600',
        },
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.behavior.scaleUp.policies[0].type',
          message: 'Unsupported value: "Nodes": supported values: "Percent", "Pods"',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.behavior.scaleUp.policies[0].value',
          message: 'Invalid value: 0: must be greater than zero',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.behavior.scaleUp.policies[0].periodSeconds',
          message: 'Invalid value: 1801: must be less than or equal to 1800',
        },
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.behavior.scaleDown.selectPolicy',
          message: 'Unsupported value: "Avg": supported values: "Disabled", "Max", "Min"',
        },
        {
          reason: 'FieldValueRequired',
          field: 'spec.behavior.scaleDown.policies',
          message: 'Required value: must specify at least one Policy',
        },
      ]),
    );
  });

  it('v1 writes are validated as the v2 object they become', async () => {
    const causes = await bad('v1', {
      scaleTargetRef: target,
      maxReplicas: 2,
      targetCPUUtilizationPercentage: 0,
    });
    expect(causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.metrics[0].resource.target.averageUtilization',
      message: 'Invalid value: 0: must be greater than 0',
    });
  });

  it('a v2-only field sent to v1 is unknown there (strict field validation: 400)', async () => {
    const r = await ts.req('POST', `${path('v1')}?fieldValidation=Strict`, {
      metadata: { name: 'strict' },
      spec: { scaleTargetRef: target, maxReplicas: 2, metrics: [cpuMetric] },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('unknown field "spec.metrics"');
  });
});

describe('HorizontalPodAutoscaler: one object through v2 and v1, nothing lost (doc2 rule 2)', () => {
  const name = 'rt';
  const status = {
    currentReplicas: 3,
    desiredReplicas: 4,
    currentMetrics: [
      { type: 'Resource', resource: { name: 'memory', current: { averageValue: '300Mi' } } },
      { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, current: { averageValue: '800' } } },
    ],
    conditions: [
      {
        type: 'AbleToScale',
        status: 'True',
        lastTransitionTime: '2026-01-02T03:04:05Z',
        reason: 'ReadyForNewScale',
        message: 'recommended size matches current size',
      },
    ],
  };

  it('created at v2 with two metrics, a behavior and a status; read at v1: the annotations carry what v1 lacks', async () => {
    const c = await ts.req('POST', path('v2'), {
      metadata: { name, annotations: { team: 'a' } },
      spec: {
        scaleTargetRef: target,
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [memoryMetric, podsMetric],
        behavior,
      },
    });
    expect(c.status, c.text).toBe(201);
    const s = await ts.req('PUT', path('v2', name) + '/status', { ...c.json, status });
    expect(s.status, s.text).toBe(200);
    const v1 = await ts.req('GET', path('v1', name));
    expect(v1.status).toBe(200);
    expect(v1.json.apiVersion).toBe('autoscaling/v1');
    expect(v1.json.spec).toEqual({ scaleTargetRef: target, minReplicas: 2, maxReplicas: 10 });
    expect(v1.json.status).toEqual({ currentReplicas: 3, desiredReplicas: 4 });
    const ann = v1.json.metadata.annotations;
    expect(ann.team).toBe('a');
    // the v1 shapes of the metrics, as 1.28 writes them
    expect(JSON.parse(ann['autoscaling.alpha.orch.io/metrics'])).toEqual([
      { type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } },
      { type: 'Pods', pods: { metricName: 'packets-per-second', targetAverageValue: '1k' } },
    ]);
    expect(JSON.parse(ann['autoscaling.alpha.orch.io/current-metrics'])).toEqual([
      { type: 'Resource', resource: { name: 'memory', currentAverageValue: '300Mi' } },
      { type: 'Pods', pods: { metricName: 'packets-per-second', currentAverageValue: '800' } },
    ]);
    expect(JSON.parse(ann['autoscaling.alpha.orch.io/conditions'])).toEqual(status.conditions);
    // 1.28 writes its internal type here: Go field names
    expect(JSON.parse(ann['autoscaling.alpha.orch.io/behavior'])).toEqual({
      ScaleUp: {
        StabilizationWindowSeconds: 10,
        SelectPolicy: 'Max',
        Policies: [{ Type: 'Percent', Value: 50, PeriodSeconds: 30 }],
      },
      ScaleDown: {
        StabilizationWindowSeconds: 300,
        SelectPolicy: 'Min',
        Policies: [{ Type: 'Pods', Value: 2, PeriodSeconds: 60 }],
      },
    });
  });

  it('updated at v1 (maxReplicas and a label), read at v2: the metrics, behavior and status are all there', async () => {
    const v1 = await ts.req('GET', path('v1', name));
    const body = structuredClone(v1.json);
    body.spec.maxReplicas = 12;
    body.metadata.labels = { tier: 'web' };
    const u = await ts.req('PUT', path('v1', name), body);
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec.maxReplicas).toBe(12);
    const v2 = await ts.req('GET', path('v2', name));
    expect(v2.json.spec).toEqual({
      scaleTargetRef: target,
      minReplicas: 2,
      maxReplicas: 12,
      metrics: [memoryMetric, podsMetric],
      behavior,
    });
    expect(v2.json.status).toEqual(status);
    expect(v2.json.metadata.labels).toEqual({ tier: 'web' });
    // the annotations were fields again: none is stored or shown at v2
    expect(v2.json.metadata.annotations).toEqual({ team: 'a' });
  });

  it('a CPU utilization target set through v1 joins the other metrics, after them (as 1.28 orders it)', async () => {
    const v1 = await ts.req('GET', path('v1', name));
    const body = structuredClone(v1.json);
    body.spec.targetCPUUtilizationPercentage = 70;
    const u = await ts.req('PUT', path('v1', name), body);
    expect(u.status, u.text).toBe(200);
    const v2 = await ts.req('GET', path('v2', name));
    expect(v2.json.spec.metrics).toEqual([
      memoryMetric,
      podsMetric,
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
      },
    ]);
    // and v1 shows it as its field, not in the annotation
    const again = await ts.req('GET', path('v1', name));
    expect(again.json.spec.targetCPUUtilizationPercentage).toBe(70);
    expect(JSON.parse(again.json.metadata.annotations['autoscaling.alpha.orch.io/metrics'])).toHaveLength(2);
  });

  it('a status update through v1 keeps the current metrics and conditions v1 carries in annotations', async () => {
    const v1 = await ts.req('GET', path('v1', name));
    const body = structuredClone(v1.json);
    body.status.desiredReplicas = 5;
    const u = await ts.req('PUT', `${path('v1', name)}/status`, body);
    expect(u.status, u.text).toBe(200);
    expect(u.json.status).toEqual({ currentReplicas: 3, desiredReplicas: 5 });
    const v2 = await ts.req('GET', path('v2', name));
    expect(v2.json.status).toEqual({ ...status, desiredReplicas: 5 });
  });

  it('a merge patch through v1 keeps what v2 holds', async () => {
    const p = await ts.req(
      'PATCH',
      path('v1', name),
      { spec: { minReplicas: 3 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(p.status, p.text).toBe(200);
    const v2 = await ts.req('GET', path('v2', name));
    expect(v2.json.spec.minReplicas).toBe(3);
    expect(v2.json.spec.behavior).toEqual(behavior);
    expect(v2.json.spec.metrics).toHaveLength(3);
  });

  it('created at v1 with the annotations, read at v2: they are fields; a malformed one is ignored and dropped', async () => {
    const c = await ts.req('POST', path('v1'), {
      metadata: {
        name: 'from-v1',
        annotations: {
          'autoscaling.alpha.orch.io/metrics': JSON.stringify([
            { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '10' } },
          ]),
          'autoscaling.alpha.orch.io/behavior': 'not json',
        },
      },
      spec: { scaleTargetRef: target, maxReplicas: 3 },
    });
    expect(c.status, c.text).toBe(201);
    const v2 = await ts.req('GET', path('v2', 'from-v1'));
    expect(v2.json.spec.metrics).toEqual([
      {
        type: 'Pods',
        pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } },
      },
    ]);
    expect(v2.json.spec.behavior).toBeUndefined();
    expect(v2.json.metadata.annotations).toBeUndefined();
  });

  it('a list at v1 shows each object converted', async () => {
    const l = await ts.req('GET', path('v1'));
    expect(l.json.apiVersion).toBe('autoscaling/v1');
    const rt = l.json.items.find((i: any) => i.metadata.name === name);
    expect(rt.apiVersion).toBe('autoscaling/v1');
    expect(rt.metadata.annotations['autoscaling.alpha.orch.io/behavior']).toBeDefined();
  });
});
