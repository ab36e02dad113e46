// The apps/v1 workload kinds (Deployment, ReplicaSet, DaemonSet, StatefulSet, ControllerRevision)
// and the core ReplicationController and PodTemplate: discovery and table columns as a Kubernetes
// 1.28 server lists them (shared/kubernetes-1.28), and doc2's apps/v1 field changes — selectors
// required, never changed and selecting the template; the apps/v1 defaults. Expected values
// come from doc2 and Kubernetes 1.28's validation and defaults, never from the server's output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { columnsOf, readFact } from './k8s-facts.ts';

let ts: TestServer;
let ns: string;

beforeAll(async () => {
  ts = await startServer();
  ns = uniqueName('apps');
  expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await ts?.close();
});

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const apps = (plural: string, name = '') =>
  `/apis/apps/v1/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
const core = (plural: string, name = '') => `/api/v1/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;

type Cause = { field: string; message: string; reason: string };
const causesOf = (r: { json: any }) => (r.json?.details?.causes ?? []) as Cause[];
const cause = (r: { json: any }, field: string) => causesOf(r).find((c) => c.field === field);

function expect422(
  r: { status: number; json: any; text: string },
  field: string,
  reason: string,
  text?: string,
) {
  expect(r.status, r.text).toBe(422);
  expect(r.json.reason).toBe('Invalid');
  const c = cause(r, field);
  expect(c, `${field} among ${JSON.stringify(causesOf(r))}`).toBeDefined();
  expect(c!.reason).toBe(reason);
  if (text) expect(c!.message).toContain(text);
}

const MISMATCH = '`selector` does not match template `labels`';

function template(labels: Record<string, string>, spec: Record<string, unknown> = {}) {
  return { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], ...spec } };
}

function workload(kind: string, name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name },
    spec: { selector: { matchLabels: { app: name } }, template: template({ app: name }), ...spec },
  };
}

function withoutSelector<T extends { spec: Record<string, unknown> }>(o: T): T {
  delete o.spec.selector;
  return o;
}

/** A row of a Table answer as column name -> cell. */
async function row(path: string): Promise<Record<string, unknown>> {
  const t = await ts.req('GET', path, undefined, { accept: TABLE });
  expect(t.status, t.text).toBe(200);
  const names = t.json.columnDefinitions.map((c: any) => c.name);
  return Object.fromEntries(names.map((n: string, i: number) => [n, t.json.rows[0].cells[i]]));
}

// ====================================================================== discovery

describe('discovery of the workload kinds as Kubernetes 1.28 lists them', () => {
  const facts = (readFact('discovery.json') as any).resources;
  const RESOURCES: Record<string, string[]> = {
    'apps/v1': [
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ],
    v1: [
      'podtemplates',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'replicationcontrollers/status',
    ],
  };
  for (const [gv, names] of Object.entries(RESOURCES))
    it(`${gv}: ${names.join(', ')}`, async () => {
      const r = await ts.req('GET', gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
      expect(r.status).toBe(200);
      for (const name of names) {
        const want = (facts[gv] as any[]).find((x) => x.name === name);
        expect(want, `${name} in discovery.json`).toBeDefined();
        const got = r.json.resources.find((x: any) => x.name === name);
        expect(got, name).toBeDefined();
        expect(got.kind, name).toBe(want.kind);
        expect(got.namespaced, name).toBe(want.namespaced);
        expect(got.singularName, name).toBe(want.singularName);
        expect([...got.verbs].sort(), name).toEqual([...want.verbs].sort());
        expect(got.shortNames, name).toEqual(want.shortNames);
        expect(got.categories, name).toEqual(want.categories);
        expect(got.group, name).toBe(want.group);
        expect(got.version, name).toBe(want.version);
      }
      // nothing beyond the fixture's subresources for these kinds
      const kinds = new Set(names.filter((n) => !n.includes('/')));
      const served = r.json.resources
        .map((x: any) => x.name as string)
        .filter((n: string) => kinds.has(n.split('/')[0]!));
      expect(served.sort()).toEqual([...names].sort());
    });
});

describe('the retired versions of the workload kinds are not served', () => {
  it.each([
    ['apps/v1beta1', 'deployments'],
    ['apps/v1beta1', 'statefulsets'],
    ['apps/v1beta2', 'daemonsets'],
    ['apps/v1beta2', 'replicasets'],
    ['extensions/v1beta1', 'daemonsets'],
    ['extensions/v1beta1', 'deployments'],
  ])('%s %s: 404, and no such group version in discovery', async (gv, plural) => {
    expect((await ts.req('GET', `/apis/${gv}/namespaces/${ns}/${plural}`)).status).toBe(404);
    expect((await ts.req('GET', `/apis/${gv}`)).status).toBe(404);
    const groups = (await ts.req('GET', '/apis')).json.groups as any[];
    const versions = groups.flatMap((g) => g.versions.map((v: any) => v.groupVersion));
    expect(versions).not.toContain(gv);
    expect(versions).toContain('apps/v1');
  });
});

describe('table columns of the workload kinds are the 1.28 ones', () => {
  const KINDS: [string, string, string][] = [
    ['apps', 'v1', 'daemonsets'],
    ['apps', 'v1', 'statefulsets'],
    ['apps', 'v1', 'replicasets'],
    ['apps', 'v1', 'controllerrevisions'],
    ['apps', 'v1', 'deployments'],
    ['', 'v1', 'replicationcontrollers'],
    ['', 'v1', 'podtemplates'],
  ];
  it.each(KINDS)('%s/%s %s', async (group, version, plural) => {
    const path = group ? `/apis/${group}/${version}/${plural}` : `/api/${version}/${plural}`;
    const t = await ts.req('GET', path, undefined, { accept: TABLE });
    expect(t.status, t.text).toBe(200);
    expect(
      t.json.columnDefinitions.map((c: any) => ({
        name: c.name,
        type: c.type,
        format: c.format,
        priority: c.priority,
      })),
    ).toEqual(columnsOf(group, version, plural));
  });
});

// ====================================================================== Deployment (doc2's list)

describe('Deployment: the apps/v1 field changes of doc2', () => {
  it('defaults progressDeadlineSeconds 600, revisionHistoryLimit 10, maxSurge and maxUnavailable 25%', async () => {
    const d = workload('Deployment', 'dep-defaults');
    const r = await ts.req('POST', apps('deployments'), d);
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec).toMatchObject({
      replicas: 1,
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    });
    expect(r.json.spec.rollbackTo).toBeUndefined();
  });

  it('spec.rollbackTo is not an apps/v1 field', async () => {
    const d = workload('Deployment', 'dep-rollback', { rollbackTo: { revision: 1 } });
    const r = await ts.req('POST', `${apps('deployments')}?fieldValidation=Strict`, d);
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toContain('unknown field "spec.rollbackTo"');
  });

  it('a missing selector is required, and selects nothing: the template labels are reported too', async () => {
    const r = await ts.req('POST', apps('deployments'), withoutSelector(workload('Deployment', 'dep-nosel')));
    expect422(r, 'spec.selector', 'FieldValueRequired');
    expect422(r, 'spec.template.metadata.labels', 'FieldValueInvalid', MISMATCH);
  });

  it('a selector not matching the template labels: 422 on spec.template.metadata.labels', async () => {
    const d = workload('Deployment', 'dep-mismatch', { selector: { matchLabels: { app: 'other' } } });
    const r = await ts.req('POST', apps('deployments'), d);
    expect422(
      r,
      'spec.template.metadata.labels',
      'FieldValueInvalid',
      'map[string]string{"app":"dep-mismatch"}',
    );
    expect(cause(r, 'spec.template.metadata.labels')!.message).toContain(MISMATCH);
  });

  it('maxSurge may exceed 100%; maxUnavailable may not', async () => {
    const surge = workload('Deployment', 'dep-surge', {
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '200%', maxUnavailable: 0 } },
    });
    expect((await ts.req('POST', apps('deployments'), surge)).status).toBe(201);
    const unavailable = workload('Deployment', 'dep-unavail', {
      strategy: { rollingUpdate: { maxUnavailable: '101%' } },
    });
    const r = await ts.req('POST', apps('deployments'), unavailable);
    expect422(
      r,
      'spec.strategy.rollingUpdate.maxUnavailable',
      'FieldValueInvalid',
      'must not be greater than 100%',
    );
  });

  it('the selector is immutable', async () => {
    const c = await ts.req('POST', apps('deployments'), workload('Deployment', 'dep-immutable'));
    const u = structuredClone(c.json);
    u.spec.selector = { matchLabels: { app: 'dep-immutable', tier: 'web' } };
    u.spec.template.metadata.labels.tier = 'web';
    const r = await ts.req('PUT', apps('deployments', 'dep-immutable'), u);
    expect422(r, 'spec.selector', 'FieldValueInvalid', 'field is immutable');
    expect(cause(r, 'spec.selector')!.message).toContain(
      'v1.LabelSelector{MatchLabels:map[string]string{"app":"dep-immutable", "tier":"web"}',
    );
  });
});

// ====================================================================== ReplicaSet

describe('ReplicaSet', () => {
  it('create, get, list: replicas default to 1, the template gets the pod defaults, status counts 0 replicas', async () => {
    const c = await ts.req('POST', apps('replicasets'), workload('ReplicaSet', 'rs1'));
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec.replicas).toBe(1);
    expect(c.json.spec.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' });
    expect(c.json.status).toEqual({ replicas: 0 });
    expect(c.json.metadata.generation).toBe(1);
    const g = await ts.req('GET', apps('replicasets', 'rs1'));
    expect(g.json.metadata.uid).toBe(c.json.metadata.uid);
    const l = await ts.req('GET', '/apis/apps/v1/replicasets');
    expect(l.json.kind).toBe('ReplicaSetList');
    expect(l.json.items.map((i: any) => i.metadata.name)).toContain('rs1');
  });

  it('the selector is required and must select the template labels; an empty one is refused', async () => {
    const none = await ts.req(
      'POST',
      apps('replicasets'),
      withoutSelector(workload('ReplicaSet', 'rs-nosel')),
    );
    expect422(none, 'spec.selector', 'FieldValueRequired');
    expect422(none, 'spec.template.metadata.labels', 'FieldValueInvalid', MISMATCH);
    const other = workload('ReplicaSet', 'rs-other', { selector: { matchLabels: { app: 'x' } } });
    expect422(
      await ts.req('POST', apps('replicasets'), other),
      'spec.template.metadata.labels',
      'FieldValueInvalid',
      MISMATCH,
    );
    const empty = workload('ReplicaSet', 'rs-empty', { selector: {} });
    // 1.28 words a replica set's empty selector as a deployment's
    expect422(
      await ts.req('POST', apps('replicasets'), empty),
      'spec.selector',
      'FieldValueInvalid',
      'empty selector is invalid for deployment',
    );
  });

  it('the template is a workload template: restartPolicy Always only, no activeDeadlineSeconds', async () => {
    const rs = workload('ReplicaSet', 'rs-never', {
      template: template({ app: 'rs-never' }, { restartPolicy: 'Never', activeDeadlineSeconds: 5 }),
    });
    const r = await ts.req('POST', apps('replicasets'), rs);
    expect422(r, 'spec.template.spec.restartPolicy', 'FieldValueNotSupported', 'supported values: "Always"');
    expect422(
      r,
      'spec.template.spec.activeDeadlineSeconds',
      'FieldValueForbidden',
      'activeDeadlineSeconds in ReplicaSet is not Supported',
    );
  });

  it("the template's annotation keys are qualified names", async () => {
    const rs = workload('ReplicaSet', 'rs-ann');
    (rs.spec.template.metadata as any).annotations = { 'bad key!': 'x' };
    expect422(
      await ts.req('POST', apps('replicasets'), rs),
      'spec.template.annotations',
      'FieldValueInvalid',
      '"bad key!"',
    );
  });

  it('the selector is immutable; replicas change and bump the generation', async () => {
    const g = (await ts.req('GET', apps('replicasets', 'rs1'))).json;
    const more = structuredClone(g);
    more.spec.replicas = 4;
    const u = await ts.req('PUT', apps('replicasets', 'rs1'), more);
    expect(u.status, u.text).toBe(200);
    expect(u.json.metadata.generation).toBe(2);
    const sel = structuredClone(u.json);
    sel.spec.selector = { matchLabels: { app: 'rs1', v: '2' } };
    sel.spec.template.metadata.labels.v = '2';
    expect422(
      await ts.req('PUT', apps('replicasets', 'rs1'), sel),
      'spec.selector',
      'FieldValueInvalid',
      'field is immutable',
    );
  });

  it('status through the status subresource, counters bounded by status.replicas; the table cells', async () => {
    const st = (await ts.req('GET', apps('replicasets', 'rs1'))).json;
    st.status = { replicas: 4, readyReplicas: 3, availableReplicas: 2, fullyLabeledReplicas: 4 };
    const s = await ts.req('PUT', apps('replicasets', 'rs1/status'), st);
    expect(s.status, s.text).toBe(200);
    expect(s.json.status.readyReplicas).toBe(3);
    const bad = structuredClone(s.json);
    bad.status = { replicas: 1, readyReplicas: 2 };
    expect422(
      await ts.req('PUT', apps('replicasets', 'rs1/status'), bad),
      'status.readyReplicas',
      'FieldValueInvalid',
      'cannot be greater than status.replicas',
    );
    expect(await row(apps('replicasets', 'rs1'))).toMatchObject({
      Name: 'rs1',
      Desired: 4,
      Current: 4,
      Ready: 3,
      Containers: 'app',
      Images: 'nginx:1.25',
      Selector: 'app=rs1',
    });
  });

  it('serves the scale subresource', async () => {
    const g = await ts.req('GET', apps('replicasets', 'rs1/scale'));
    expect(g.status, g.text).toBe(200);
    expect(g.json).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 4 },
      status: { replicas: 4, selector: 'app=rs1' },
    });
    const p = await ts.req(
      'PATCH',
      apps('replicasets', 'rs1/scale'),
      { spec: { replicas: 2 } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(p.status, p.text).toBe(200);
    expect((await ts.req('GET', apps('replicasets', 'rs1'))).json.spec.replicas).toBe(2);
  });
});

// ====================================================================== DaemonSet

describe('DaemonSet', () => {
  it('defaults: RollingUpdate with maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10; template generation 1', async () => {
    const c = await ts.req('POST', apps('daemonsets'), workload('DaemonSet', 'ds1'));
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec.updateStrategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    expect(c.json.spec.revisionHistoryLimit).toBe(10);
    expect(c.json.spec.templateGeneration).toBeUndefined();
    expect(c.json.metadata.annotations).toEqual({ 'deprecated.daemonset.template.generation': '1' });
    expect(c.json.status).toEqual({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    });
    const l = await ts.req('GET', apps('daemonsets'));
    expect(l.json.kind).toBe('DaemonSetList');
    expect(l.json.items.map((i: any) => i.metadata.name)).toEqual(['ds1']);
  });

  it('OnDelete gets no rolling update parameters', async () => {
    const c = await ts.req(
      'POST',
      apps('daemonsets'),
      workload('DaemonSet', 'ds-ondelete', { updateStrategy: { type: 'OnDelete' } }),
    );
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec.updateStrategy).toEqual({ type: 'OnDelete' });
  });

  it('spec.templateGeneration is not an apps/v1 field', async () => {
    const d = workload('DaemonSet', 'ds-tg', { templateGeneration: 3 });
    const r = await ts.req('POST', `${apps('daemonsets')}?fieldValidation=Strict`, d);
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toContain('unknown field "spec.templateGeneration"');
  });

  it('a missing selector selects nothing; a selector must select the template; an empty one is refused', async () => {
    const none = await ts.req('POST', apps('daemonsets'), withoutSelector(workload('DaemonSet', 'ds-nosel')));
    expect422(none, 'spec.template.metadata.labels', 'FieldValueInvalid', MISMATCH);
    const other = workload('DaemonSet', 'ds-other', { selector: { matchLabels: { app: 'x' } } });
    expect422(
      await ts.req('POST', apps('daemonsets'), other),
      'spec.template.metadata.labels',
      'FieldValueInvalid',
      MISMATCH,
    );
    const empty = await ts.req(
      'POST',
      apps('daemonsets'),
      workload('DaemonSet', 'ds-empty', { selector: {} }),
    );
    expect422(empty, 'spec.selector', 'FieldValueInvalid', 'empty selector is invalid for daemonset');
    expect(cause(empty, 'spec.template.metadata.labels')).toBeUndefined();
  });

  it('exactly one of maxUnavailable and maxSurge is non-zero', async () => {
    const both = workload('DaemonSet', 'ds-both', {
      updateStrategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: '10%' } },
    });
    expect422(
      await ts.req('POST', apps('daemonsets'), both),
      'spec.updateStrategy.rollingUpdate.maxSurge',
      'FieldValueInvalid',
      'may not be set when maxUnavailable is non-zero',
    );
    const zero = workload('DaemonSet', 'ds-zero', {
      updateStrategy: { rollingUpdate: { maxUnavailable: '0%', maxSurge: 0 } },
    });
    expect422(
      await ts.req('POST', apps('daemonsets'), zero),
      'spec.updateStrategy.rollingUpdate.maxUnavailable',
      'FieldValueRequired',
      'cannot be 0 when maxSurge is 0',
    );
    const surge = workload('DaemonSet', 'ds-surge', {
      updateStrategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
    });
    expect((await ts.req('POST', apps('daemonsets'), surge)).status).toBe(201);
    const unknown = workload('DaemonSet', 'ds-unknown', { updateStrategy: { type: 'Sometimes' } });
    expect422(
      await ts.req('POST', apps('daemonsets'), unknown),
      'spec.updateStrategy',
      'FieldValueNotSupported',
      'supported values: "RollingUpdate", "OnDelete"',
    );
  });

  it('the selector is immutable; a template change raises the generation and the template generation', async () => {
    const g = (await ts.req('GET', apps('daemonsets', 'ds1'))).json;
    const img = structuredClone(g);
    img.spec.template.spec.containers[0].image = 'nginx:1.26';
    const u = await ts.req('PUT', apps('daemonsets', 'ds1'), img);
    expect(u.status, u.text).toBe(200);
    expect(u.json.metadata.generation).toBe(2);
    expect(u.json.metadata.annotations['deprecated.daemonset.template.generation']).toBe('2');
    const hist = structuredClone(u.json);
    hist.spec.revisionHistoryLimit = 3;
    const u2 = await ts.req('PUT', apps('daemonsets', 'ds1'), hist);
    expect(u2.json.metadata.generation).toBe(3);
    expect(u2.json.metadata.annotations['deprecated.daemonset.template.generation']).toBe('2');
    const sel = structuredClone(u2.json);
    sel.spec.selector = { matchLabels: { app: 'ds1', v: '2' } };
    sel.spec.template.metadata.labels.v = '2';
    expect422(
      await ts.req('PUT', apps('daemonsets', 'ds1'), sel),
      'spec.selector',
      'FieldValueInvalid',
      'field is immutable',
    );
  });

  it('status through the status subresource and the table cells; no scale subresource', async () => {
    const st = (await ts.req('GET', apps('daemonsets', 'ds1'))).json;
    st.status = {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 2,
      updatedNumberScheduled: 1,
      numberAvailable: 2,
    };
    const s = await ts.req('PUT', apps('daemonsets', 'ds1/status'), st);
    expect(s.status, s.text).toBe(200);
    expect(s.json.status.numberMisscheduled).toBe(0);
    expect(await row(apps('daemonsets', 'ds1'))).toMatchObject({
      Name: 'ds1',
      Desired: 3,
      Current: 3,
      Ready: 2,
      'Up-to-date': 1,
      Available: 2,
      'Node Selector': '<none>',
      Containers: 'app',
      Images: 'nginx:1.26',
      Selector: 'app=ds1',
    });
    expect((await ts.req('GET', apps('daemonsets', 'ds1/scale'))).status).toBe(404);
  });
});

// ====================================================================== StatefulSet

describe('StatefulSet', () => {
  const sts = (name: string, spec: Record<string, unknown> = {}) =>
    workload('StatefulSet', name, { serviceName: 'db', ...spec });

  it('defaults: RollingUpdate (partition 0), OrderedReady, 1 replica, 10 revisions, claims retained', async () => {
    const claim = {
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    };
    const c = await ts.req('POST', apps('statefulsets'), sts('db', { volumeClaimTemplates: [claim] }));
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      serviceName: 'db',
    });
    // the claim templates get a claim's defaults
    expect(c.json.spec.volumeClaimTemplates[0].spec.volumeMode).toBe('Filesystem');
    expect(c.json.spec.volumeClaimTemplates[0].status).toEqual({ phase: 'Pending' });
    expect(c.json.status).toMatchObject({ replicas: 0 });
    expect((await ts.req('GET', apps('statefulsets', 'db'))).status).toBe(200);
    expect((await ts.req('GET', apps('statefulsets'))).json.items.map((i: any) => i.metadata.name)).toEqual([
      'db',
    ]);
  });

  it('an explicit RollingUpdate keeps no rolling update parameters; OnDelete refuses them', async () => {
    const ru = await ts.req(
      'POST',
      apps('statefulsets'),
      sts('db-ru', { updateStrategy: { type: 'RollingUpdate' } }),
    );
    expect(ru.json.spec.updateStrategy).toEqual({ type: 'RollingUpdate' });
    const od = sts('db-od', { updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } });
    expect422(
      await ts.req('POST', apps('statefulsets'), od),
      'spec.updateStrategy.rollingUpdate',
      'FieldValueInvalid',
      "only allowed for updateStrategy 'RollingUpdate'",
    );
  });

  it('as in 1.28 the template is not checked as a whole pod spec: no containers is accepted; bad annotations are not', async () => {
    const empty = sts('db-empty-pod', { template: template({ app: 'db-empty-pod' }, { containers: [] }) });
    expect((await ts.req('POST', apps('statefulsets'), empty)).status).toBe(201);
    const ann = sts('db-ann');
    (ann.spec.template.metadata as any).annotations = { 'bad key!': 'x' };
    expect422(
      await ts.req('POST', apps('statefulsets'), ann),
      'spec.template.annotations',
      'FieldValueInvalid',
    );
  });

  it('the name is a DNS label', async () => {
    const r = await ts.req('POST', apps('statefulsets'), sts('db.one'));
    expect422(r, 'metadata.name', 'FieldValueInvalid');
  });

  it('the selector is required and must select the template labels', async () => {
    const none = await ts.req('POST', apps('statefulsets'), withoutSelector(sts('db-nosel')));
    expect422(none, 'spec.selector', 'FieldValueRequired');
    expect422(none, 'spec.template.metadata.labels', 'FieldValueInvalid', MISMATCH);
    const other = sts('db-other', { selector: { matchLabels: { app: 'x' } } });
    expect422(
      await ts.req('POST', apps('statefulsets'), other),
      'spec.template.metadata.labels',
      'FieldValueInvalid',
      MISMATCH,
    );
    const empty = sts('db-empty', { selector: {} });
    expect422(
      await ts.req('POST', apps('statefulsets'), empty),
      'spec.selector',
      'FieldValueInvalid',
      'empty selector is invalid for statefulset',
    );
  });

  it('podManagementPolicy and the claim retention policy take their known values only', async () => {
    const r = await ts.req(
      'POST',
      apps('statefulsets'),
      sts('db-bad', {
        podManagementPolicy: 'Whenever',
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' },
      }),
    );
    expect422(r, 'spec.podManagementPolicy', 'FieldValueInvalid', "must be 'OrderedReady' or 'Parallel'");
    expect422(
      r,
      'spec.persistentVolumeClaimRetentionPolicy.whenDeleted',
      'FieldValueNotSupported',
      'supported values: "Retain", "Delete"',
    );
  });

  it('only replicas, ordinals, template, updateStrategy, the retention policy and minReadySeconds change: the selector does not', async () => {
    const g = (await ts.req('GET', apps('statefulsets', 'db'))).json;
    const ok = structuredClone(g);
    ok.spec.replicas = 3;
    ok.spec.minReadySeconds = 5;
    ok.spec.template.spec.containers[0].image = 'nginx:1.26';
    const u = await ts.req('PUT', apps('statefulsets', 'db'), ok);
    expect(u.status, u.text).toBe(200);
    expect(u.json.metadata.generation).toBe(2);
    const sel = structuredClone(u.json);
    sel.spec.selector = { matchLabels: { app: 'db', v: '2' } };
    sel.spec.template.metadata.labels.v = '2';
    const r = await ts.req('PUT', apps('statefulsets', 'db'), sel);
    expect422(
      r,
      'spec',
      'FieldValueForbidden',
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    );
    const svc = structuredClone(u.json);
    svc.spec.serviceName = 'other';
    expect422(await ts.req('PUT', apps('statefulsets', 'db'), svc), 'spec', 'FieldValueForbidden');
  });

  it('status, the table cells and the scale subresource', async () => {
    const st = (await ts.req('GET', apps('statefulsets', 'db'))).json;
    st.status = { replicas: 3, readyReplicas: 2, availableReplicas: 2, currentReplicas: 3 };
    const s = await ts.req('PUT', apps('statefulsets', 'db/status'), st);
    expect(s.status, s.text).toBe(200);
    expect(await row(apps('statefulsets', 'db'))).toMatchObject({
      Name: 'db',
      Ready: '2/3',
      Containers: 'app',
      Images: 'nginx:1.26',
    });
    const sc = await ts.req('GET', apps('statefulsets', 'db/scale'));
    expect(sc.json).toMatchObject({
      kind: 'Scale',
      spec: { replicas: 3 },
      status: { replicas: 3, selector: 'app=db' },
    });
    const u = await ts.req('PUT', apps('statefulsets', 'db/scale'), { ...sc.json, spec: { replicas: 5 } });
    expect(u.status, u.text).toBe(200);
    expect((await ts.req('GET', apps('statefulsets', 'db'))).json.spec.replicas).toBe(5);
  });
});

// ====================================================================== ControllerRevision

describe('ControllerRevision', () => {
  const rev = (name: string, extra: Record<string, unknown>) => ({
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name },
    ...extra,
  });

  it('create, get, list; the controller column names the owner as kind.group/name', async () => {
    const owner = (await ts.req('GET', apps('daemonsets', 'ds1'))).json;
    const c = await ts.req('POST', apps('controllerrevisions'), {
      ...rev('ds1-abc', { revision: 2, data: { spec: { template: { spec: {} } } } }),
      metadata: {
        name: 'ds1-abc',
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: 'ds1',
            uid: owner.metadata.uid,
            controller: true,
          },
        ],
      },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json.revision).toBe(2);
    expect((await ts.req('GET', apps('controllerrevisions', 'ds1-abc'))).json.data).toEqual({
      spec: { template: { spec: {} } },
    });
    expect((await ts.req('GET', apps('controllerrevisions'))).json.kind).toBe('ControllerRevisionList');
    expect(await row(apps('controllerrevisions', 'ds1-abc'))).toMatchObject({
      Name: 'ds1-abc',
      Controller: 'daemonset.apps/ds1',
      Revision: 2,
    });
  });

  it('data is mandatory and never changes; revision is at least 0', async () => {
    expect422(
      await ts.req('POST', apps('controllerrevisions'), rev('nodata', { revision: 1 })),
      'data',
      'FieldValueRequired',
      'data is mandatory',
    );
    expect422(
      await ts.req('POST', apps('controllerrevisions'), rev('neg', { revision: -1, data: {} })),
      'revision',
      'FieldValueInvalid',
      'must be greater than or equal to 0',
    );
    const g = (await ts.req('GET', apps('controllerrevisions', 'ds1-abc'))).json;
    g.data = { spec: { other: true } };
    expect422(
      await ts.req('PUT', apps('controllerrevisions', 'ds1-abc'), g),
      'data',
      'FieldValueInvalid',
      'field is immutable',
    );
  });
});

// ====================================================================== ReplicationController

describe('ReplicationController', () => {
  const rc = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name },
    spec: { template: template({ app: name }), ...spec },
  });

  it('the selector and the labels default to the template labels; replicas to 1', async () => {
    const c = await ts.req('POST', core('replicationcontrollers'), rc('rc1'));
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec.selector).toEqual({ app: 'rc1' });
    expect(c.json.metadata.labels).toEqual({ app: 'rc1' });
    expect(c.json.spec.replicas).toBe(1);
    expect(c.json.spec.template.spec.restartPolicy).toBe('Always');
    expect(c.json.status).toEqual({ replicas: 0 });
    expect(
      (await ts.req('GET', core('replicationcontrollers'))).json.items.map((i: any) => i.metadata.name),
    ).toEqual(['rc1']);
  });

  it('a selector not selecting the template, or none at all, is refused', async () => {
    const other = await ts.req(
      'POST',
      core('replicationcontrollers'),
      rc('rc-other', { selector: { app: 'x' } }),
    );
    expect422(other, 'spec.template.metadata.labels', 'FieldValueInvalid', MISMATCH);
    const bare = rc('rc-bare');
    bare.spec.template.metadata = {} as any;
    expect422(
      await ts.req('POST', core('replicationcontrollers'), bare),
      'spec.selector',
      'FieldValueRequired',
    );
    const noTemplate = {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'rc-nt' },
      spec: { selector: { a: 'b' } },
    };
    expect422(
      await ts.req('POST', core('replicationcontrollers'), noTemplate),
      'spec.template',
      'FieldValueRequired',
    );
  });

  it('the selector may change (v1 has no immutability rule for it)', async () => {
    const g = (await ts.req('GET', core('replicationcontrollers', 'rc1'))).json;
    g.spec.selector = { app: 'rc1', v: '2' };
    g.spec.template.metadata.labels.v = '2';
    const u = await ts.req('PUT', core('replicationcontrollers', 'rc1'), g);
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec.selector).toEqual({ app: 'rc1', v: '2' });
  });

  it('status, the table cells and the scale subresource', async () => {
    const st = (await ts.req('GET', core('replicationcontrollers', 'rc1'))).json;
    st.status = { replicas: 1, readyReplicas: 1, availableReplicas: 1 };
    expect((await ts.req('PUT', core('replicationcontrollers', 'rc1/status'), st)).status).toBe(200);
    expect(await row(core('replicationcontrollers', 'rc1'))).toMatchObject({
      Name: 'rc1',
      Desired: 1,
      Current: 1,
      Ready: 1,
      Containers: 'app',
      Images: 'nginx:1.25',
      Selector: 'app=rc1,v=2',
    });
    const sc = await ts.req('GET', core('replicationcontrollers', 'rc1/scale'));
    expect(sc.json).toMatchObject({
      kind: 'Scale',
      spec: { replicas: 1 },
      status: { replicas: 1, selector: 'app=rc1,v=2' },
    });
    const u = await ts.req('PUT', core('replicationcontrollers', 'rc1/scale'), {
      ...sc.json,
      spec: { replicas: 3 },
    });
    expect(u.status, u.text).toBe(200);
    expect((await ts.req('GET', core('replicationcontrollers', 'rc1'))).json.spec.replicas).toBe(3);
  });
});

// ====================================================================== PodTemplate

describe('PodTemplate', () => {
  const pt = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name },
    template: template({ app: name }, spec),
  });

  it('create, get, list with the pod defaults; any restart policy', async () => {
    const c = await ts.req('POST', core('podtemplates'), pt('pt1', { restartPolicy: 'Never' }));
    expect(c.status, c.text).toBe(201);
    expect(c.json.template.spec).toMatchObject({
      restartPolicy: 'Never',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
    });
    expect(c.json.metadata.generation).toBe(1);
    expect((await ts.req('GET', core('podtemplates', 'pt1'))).status).toBe(200);
    expect((await ts.req('GET', core('podtemplates'))).json.kind).toBe('PodTemplateList');
    expect(await row(core('podtemplates', 'pt1'))).toMatchObject({
      Name: 'pt1',
      Containers: 'app',
      Images: 'nginx:1.25',
      'Pod Labels': 'app=pt1',
    });
  });

  it('the template is checked as a pod spec; a change raises the generation', async () => {
    const bad = pt('pt-bad');
    (bad.template.spec as any).containers = [];
    expect422(
      await ts.req('POST', core('podtemplates'), bad),
      'template.spec.containers',
      'FieldValueRequired',
    );
    const g = (await ts.req('GET', core('podtemplates', 'pt1'))).json;
    g.template.spec.containers[0].image = 'nginx:1.26';
    const u = await ts.req('PUT', core('podtemplates', 'pt1'), g);
    expect(u.status, u.text).toBe(200);
    expect(u.json.metadata.generation).toBe(2);
  });
});

// ====================================================================== bad input

describe('bad input to the workload kinds: a Status, never a 500', () => {
  const BAD: Record<string, unknown>[] = [
    { spec: 'str' },
    { spec: { selector: 'x' } },
    { spec: { template: 5 } },
    { spec: { template: { spec: 'x' } } },
    { spec: { selector: { matchLabels: { a: 5 } } } },
    { spec: { selector: { matchExpressions: [null, 5] } } },
    { spec: { updateStrategy: null, strategy: null } },
    {
      spec: {
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: true, maxUnavailable: [] } },
      },
    },
    { spec: { volumeClaimTemplates: [null, 5, 'x'] } },
    { spec: { persistentVolumeClaimRetentionPolicy: 'x', replicas: 'x' } },
    { template: { metadata: 'x' } },
    { data: 5, revision: 'x' },
    { status: { replicas: 'x' } },
    { metadata: { ownerReferences: [null] }, data: {} },
  ];
  const PATHS = [
    () => apps('daemonsets'),
    () => apps('statefulsets'),
    () => apps('replicasets'),
    () => apps('controllerrevisions'),
    () => apps('deployments'),
    () => core('replicationcontrollers'),
    () => core('podtemplates'),
  ];
  it('each malformed body to each kind', async () => {
    let i = 0;
    for (const path of PATHS)
      for (const body of BAD) {
        const meta = (body.metadata ?? {}) as Record<string, unknown>;
        const r = await ts.req('POST', path(), { ...body, metadata: { name: `bad-${++i}`, ...meta } });
        expect(r.status, `${path()} ${JSON.stringify(body)}: ${r.text}`).toBeLessThan(500);
        if (r.status !== 201) expect(r.json.kind).toBe('Status');
      }
  });
});

// ====================================================================== pod security of templates

describe("PodSecurity warns about the workload kinds' pod templates", () => {
  it('DaemonSet, StatefulSet, ReplicaSet, ReplicationController and PodTemplate in a warn=baseline namespace', async () => {
    const wns = uniqueName('apps-psa');
    const n = await ts.req('POST', '/api/v1/namespaces', {
      metadata: { name: wns, labels: { 'pod-security.orch.io/warn': 'baseline' } },
    });
    expect(n.status, n.text).toBe(201);
    const host = (labels: Record<string, string>) => template(labels, { hostNetwork: true });
    const objects: [string, unknown][] = [
      [
        `/apis/apps/v1/namespaces/${wns}/daemonsets`,
        workload('DaemonSet', 'psa-ds', { template: host({ app: 'psa-ds' }) }),
      ],
      [
        `/apis/apps/v1/namespaces/${wns}/statefulsets`,
        workload('StatefulSet', 'psa-sts', { serviceName: 's', template: host({ app: 'psa-sts' }) }),
      ],
      [
        `/apis/apps/v1/namespaces/${wns}/replicasets`,
        workload('ReplicaSet', 'psa-rs', { template: host({ app: 'psa-rs' }) }),
      ],
      [
        `/api/v1/namespaces/${wns}/replicationcontrollers`,
        { metadata: { name: 'psa-rc' }, spec: { template: host({ app: 'psa-rc' }) } },
      ],
      [
        `/api/v1/namespaces/${wns}/podtemplates`,
        { metadata: { name: 'psa-pt' }, template: host({ app: 'psa-pt' }) },
      ],
    ];
    for (const [path, body] of objects) {
      const r = await ts.req('POST', path, body);
      expect(r.status, `${path}: ${r.text}`).toBe(201);
      const warning = String(r.headers.warning ?? '');
      expect(warning, path).toContain('would violate PodSecurity \\"baseline:latest\\"');
      expect(warning, path).toContain('hostNetwork=true');
    }
  });
});
