// Which webhooks are called (doc3 "Webhook configuration objects", "Errors"; Kubernetes 1.28's
// matchers where doc3 is silent): rules with operations, groups, versions, scope and the
// subresource patterns, namespaceSelector, objectSelector, matchPolicy Exact and Equivalent
// (with the object converted), and match conditions (false skips; an error decides by the
// failure policy; the authorizer answers as the request's user).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRule } from '../src/admission/webhook/accessor.ts';
import { ruleMatches } from '../src/admission/webhook/rules.ts';
import {
  allow,
  configuration,
  type Hook,
  type HookServer,
  MUTATING,
  patchWith,
  startHookServer,
  VALIDATING,
  webhook,
} from './admission-webhook-helpers.ts';
import { configMap, startServer, type TestServer, uniqueName } from './helpers.ts';

let ts: TestServer;
let hs: HookServer;
const created: string[] = [];

beforeAll(async () => {
  hs = await startHookServer();
  ts = await startServer();
});
afterAll(async () => {
  await ts?.close();
  await hs?.close();
});
afterEach(async () => {
  for (const path of created.splice(0)) await ts.req('DELETE', path);
});

async function install(hooks: Hook[]): Promise<void> {
  const name = uniqueName('cfg');
  const r = await ts.req('POST', VALIDATING, configuration('Validating', name, hooks));
  expect(r.status, r.text).toBe(201);
  created.push(`${VALIDATING}/${name}`);
}

async function namespace(labels: Record<string, string> = {}): Promise<string> {
  const ns = uniqueName('ns');
  const r = await ts.req('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns, labels },
  });
  expect(r.status, r.text).toBe(201);
  return ns;
}

/** A path of its own for each test, answering allowed. */
function route(): string {
  const p = `/${uniqueName('r')}`;
  hs.on(p, allow);
  return p;
}

describe('rule matching (unit, doc3 resource patterns)', () => {
  const rule = (resources: string[], extra: Partial<WebhookRule> = {}): WebhookRule => ({
    operations: ['*'],
    apiGroups: ['*'],
    apiVersions: ['*'],
    resources,
    scope: '*',
    ...extra,
  });
  const req = (resource: string, subresource = '', namespace = 'ns1') => ({
    operation: 'UPDATE' as const,
    resource: { group: 'apps', version: 'v1', resource },
    subresource,
    namespace,
  });
  const rows: [string[], string, string, boolean][] = [
    [['*'], 'deployments', '', true],
    [['*'], 'deployments', 'status', false],
    [['*/*'], 'deployments', 'status', true],
    [['*/*'], 'deployments', '', true],
    [['deployments/*'], 'deployments', 'scale', true],
    // Kubernetes 1.28 (beyond doc3's words): `<type>/*` matches the type itself too
    [['deployments/*'], 'deployments', '', true],
    [['deployments/*'], 'replicasets', 'scale', false],
    [['*/status'], 'deployments', 'status', true],
    [['*/status'], 'deployments', 'scale', false],
    [['*/status'], 'deployments', '', false],
    [['deployments'], 'deployments', '', true],
    [['deployments'], 'deployments', 'status', false],
    [['deployments/status'], 'deployments', 'status', true],
  ];
  for (const [resources, resource, sub, want] of rows)
    it(`${JSON.stringify(resources)} ${want ? 'matches' : 'does not match'} ${resource}${sub ? `/${sub}` : ''}`, () => {
      expect(ruleMatches(rule(resources), req(resource, sub))).toBe(want);
    });

  it('scope: Namespaced needs a namespace; Cluster needs none; a Namespace is cluster-scoped', () => {
    expect(ruleMatches(rule(['*'], { scope: 'Namespaced' }), req('deployments'))).toBe(true);
    expect(ruleMatches(rule(['*'], { scope: 'Cluster' }), req('deployments'))).toBe(false);
    expect(ruleMatches(rule(['*'], { scope: 'Cluster' }), req('clusterroles', '', ''))).toBe(true);
    const ns = {
      operation: 'CREATE' as const,
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      subresource: '',
      namespace: 'x',
    };
    expect(ruleMatches(rule(['*'], { scope: 'Cluster' }), ns)).toBe(true);
    expect(ruleMatches(rule(['*'], { scope: 'Namespaced' }), ns)).toBe(false);
  });

  it('operations, groups and versions: exact or *', () => {
    expect(ruleMatches(rule(['*'], { operations: ['CREATE'] }), req('deployments'))).toBe(false);
    expect(ruleMatches(rule(['*'], { apiGroups: [''] }), req('deployments'))).toBe(false);
    expect(
      ruleMatches(rule(['*'], { apiGroups: ['apps'], apiVersions: ['v1beta1'] }), req('deployments')),
    ).toBe(false);
    expect(
      ruleMatches(
        rule(['*'], { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE'] }),
        req('deployments'),
      ),
    ).toBe(true);
  });
});

describe('rules against requests', () => {
  it('an UPDATE-only rule is not called on CREATE; a status rule sees only status updates', async () => {
    const upd = route();
    const status = route();
    await install([
      webhook(hs, 'upd.example.orch.io', upd, {
        rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      }),
      webhook(hs, 'status.example.orch.io', status, {
        rules: [
          {
            operations: ['UPDATE'],
            apiGroups: ['*'],
            apiVersions: ['*'],
            resources: ['*/status'],
            scope: 'Cluster',
          },
        ],
      }),
    ]);
    const ns = await namespace();
    const c = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('c'));
    expect(c.status).toBe(201);
    expect(hs.callsTo(upd)).toHaveLength(0);
    const nsObj = (await ts.req('GET', `/api/v1/namespaces/${ns}`)).json;
    const u = await ts.req('PUT', `/api/v1/namespaces/${ns}`, {
      ...nsObj,
      metadata: { ...nsObj.metadata, labels: { x: 'y' } },
    });
    expect(u.status, u.text).toBe(200);
    expect(hs.callsTo(status)).toHaveLength(0);
    const s = await ts.req('PUT', `/api/v1/namespaces/${ns}/status`, u.json);
    expect(s.status, s.text).toBe(200);
    const calls = hs.callsTo(status);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.review.request.subResource).toBe('status');
    expect(calls[0]!.review.request.requestSubResource).toBe('status');
    expect(calls[0]!.review.request.resource.resource).toBe('namespaces');
  });
});

describe('exempt kinds (Kubernetes 1.28, beyond doc3)', () => {
  it('webhook configurations are never sent to webhooks, so a failing catch-all webhook can be removed', async () => {
    const p = `/${uniqueName('r')}`;
    hs.on(p, (review, res) => {
      res.writeHead(500).end();
      void review;
    });
    await install([
      webhook(hs, 'catchall.example.orch.io', p, {
        rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
      }),
    ]);
    const ns = await namespace().catch(() => undefined);
    expect(ns).toBeUndefined();
    const other = uniqueName('cfg');
    const r = await ts.req(
      'POST',
      VALIDATING,
      configuration('Validating', other, [webhook(hs, 'x.example.orch.io', route())]),
    );
    expect(r.status, r.text).toBe(201);
    created.push(`${VALIDATING}/${other}`);
    expect(
      hs.callsTo(p).some((c) => c.review.request.resource.resource === 'validatingwebhookconfigurations'),
    ).toBe(false);
  });
});

describe('selectors', () => {
  it('namespaceSelector matches the namespace labels of namespaced objects', async () => {
    const p = route();
    await install([
      webhook(hs, 'nssel.example.orch.io', p, { namespaceSelector: { matchLabels: { hooked: 'yes' } } }),
    ]);
    const plain = await namespace();
    const labelled = await namespace({ hooked: 'yes' });
    expect((await ts.req('POST', `/api/v1/namespaces/${plain}/configmaps`, configMap('a'))).status).toBe(201);
    expect(hs.callsTo(p)).toHaveLength(0);
    expect((await ts.req('POST', `/api/v1/namespaces/${labelled}/configmaps`, configMap('a'))).status).toBe(
      201,
    );
    expect(hs.callsTo(p)).toHaveLength(1);
  });

  it('a Namespace matches on its own labels; other cluster-scoped objects ignore the selector', async () => {
    const p = route();
    await install([
      webhook(hs, 'nsown.example.orch.io', p, {
        namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['blue'] }] },
        rules: [
          { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'] },
          {
            operations: ['CREATE'],
            apiGroups: ['rbac.authorization.orch.io'],
            apiVersions: ['v1'],
            resources: ['clusterroles'],
          },
        ],
      }),
    ]);
    await namespace({ team: 'red' });
    expect(hs.callsTo(p)).toHaveLength(0);
    const blue = await namespace({ team: 'blue' });
    expect(hs.callsTo(p)).toHaveLength(1);
    expect(hs.callsTo(p)[0]!.review.request.name).toBe(blue);
    const cr = uniqueName('cr');
    const r = await ts.req('POST', '/apis/rbac.authorization.orch.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.orch.io/v1',
      kind: 'ClusterRole',
      metadata: { name: cr },
      rules: [],
    });
    expect(r.status, r.text).toBe(201);
    expect(hs.callsTo(p)).toHaveLength(2);
    await ts.req('DELETE', `/apis/rbac.authorization.orch.io/v1/clusterroles/${cr}`);
  });

  it('objectSelector matches the new object, or the old object on DELETE', async () => {
    const p = route();
    await install([
      webhook(hs, 'objsel.example.orch.io', p, {
        objectSelector: { matchLabels: { watch: 'me' } },
        rules: [
          {
            operations: ['CREATE', 'DELETE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
      }),
    ]);
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    expect((await ts.req('POST', base, configMap('plain'))).status).toBe(201);
    expect(hs.callsTo(p)).toHaveLength(0);
    expect(
      (await ts.req('POST', base, configMap('watched', {}, { metadata: { labels: { watch: 'me' } } })))
        .status,
    ).toBe(201);
    expect(hs.callsTo(p)).toHaveLength(1);
    expect((await ts.req('DELETE', `${base}/plain`)).status).toBe(200);
    expect(hs.callsTo(p)).toHaveLength(1);
    expect((await ts.req('DELETE', `${base}/watched`)).status).toBe(200);
    expect(hs.callsTo(p)).toHaveLength(2);
    expect(hs.callsTo(p)[1]!.review.request.operation).toBe('DELETE');
  });
});

describe('matchPolicy (doc3: Equivalent converts to the registered version)', () => {
  const eventsRule = [
    { operations: ['CREATE'], apiGroups: ['events.orch.io'], apiVersions: ['v1'], resources: ['events'] },
  ];
  const coreEvent = (name: string, ns: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name },
    involvedObject: { kind: 'Pod', name: 'p1', namespace: ns },
    reason: 'Started',
    message: 'container started',
    type: 'Normal',
  });

  it('Equivalent: a core event matches an events.orch.io rule and is sent in that version', async () => {
    const p = route();
    await install([webhook(hs, 'equiv.example.orch.io', p, { rules: eventsRule })]);
    const ns = await namespace();
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/events`, coreEvent('e1', ns));
    expect(r.status, r.text).toBe(201);
    const [call] = hs.callsTo(p);
    expect(call).toBeDefined();
    const q = call!.review.request;
    expect(q.kind).toEqual({ group: 'events.orch.io', version: 'v1', kind: 'Event' });
    expect(q.resource).toEqual({ group: 'events.orch.io', version: 'v1', resource: 'events' });
    expect(q.requestKind).toEqual({ group: '', version: 'v1', kind: 'Event' });
    expect(q.requestResource).toEqual({ group: '', version: 'v1', resource: 'events' });
    expect(q.object.apiVersion).toBe('events.orch.io/v1');
    expect(q.object.note).toBe('container started');
    expect(q.object.regarding).toMatchObject({ kind: 'Pod', name: 'p1' });
  });

  it('Equivalent: a patch written in the registered version reaches the object in the requested version', async () => {
    const p = `/${uniqueName('r')}`;
    hs.on(p, patchWith([{ op: 'replace', path: '/note', value: 'rewritten by the webhook' }]));
    const name = uniqueName('cfg');
    const r0 = await ts.req(
      'POST',
      MUTATING,
      configuration('Mutating', name, [webhook(hs, 'equivpatch.example.orch.io', p, { rules: eventsRule })]),
    );
    expect(r0.status, r0.text).toBe(201);
    created.push(`${MUTATING}/${name}`);
    const ns = await namespace();
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/events`, coreEvent('e3', ns));
    expect(r.status, r.text).toBe(201);
    expect(r.json.apiVersion).toBe('v1');
    expect(r.json.message).toBe('rewritten by the webhook');
  });

  it('Exact: the same rule does not match a core event', async () => {
    const p = route();
    await install([webhook(hs, 'exact.example.orch.io', p, { rules: eventsRule, matchPolicy: 'Exact' })]);
    const ns = await namespace();
    expect((await ts.req('POST', `/api/v1/namespaces/${ns}/events`, coreEvent('e2', ns))).status).toBe(201);
    expect(hs.callsTo(p)).toHaveLength(0);
  });
});

describe('matchConditions (doc3 Errors; Kubernetes 1.28 for an error)', () => {
  const create = (ns: string, name: string, labels: Record<string, string> = {}) =>
    ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap(name, {}, { metadata: { labels } }));

  it('a false condition skips the webhook; all true calls it', async () => {
    const p = route();
    await install([
      webhook(hs, 'cond.example.orch.io', p, {
        matchConditions: [
          { name: 'labelled', expression: "has(object.metadata.labels) && 'pick' in object.metadata.labels" },
          { name: 'create', expression: "request.operation == 'CREATE' && oldObject == null" },
        ],
      }),
    ]);
    const ns = await namespace();
    expect((await create(ns, 'skip')).status).toBe(201);
    expect(hs.callsTo(p)).toHaveLength(0);
    expect((await create(ns, 'pick', { pick: 'x' })).status).toBe(201);
    expect(hs.callsTo(p)).toHaveLength(1);
  });

  it('an evaluation error with no false condition: Fail refuses (403), Ignore skips', async () => {
    const failing = route();
    const ignoring = route();
    const bad = { name: 'boom', expression: "object.metadata.labels['missing'] == 'x'" };
    await install([webhook(hs, 'fail.example.orch.io', failing, { matchConditions: [bad] })]);
    const ns = await namespace();
    const r = await create(ns, 'err', { other: 'y' });
    expect(r.status).toBe(403);
    expect(r.json.reason).toBe('Forbidden');
    expect(r.json.message).toContain('configmaps "err" is forbidden: expression');
    expect(r.json.message).toContain('resulted in error');
    expect(hs.callsTo(failing)).toHaveLength(0);
    for (const c of created.splice(0)) await ts.req('DELETE', c);
    await install([
      webhook(hs, 'ignore.example.orch.io', ignoring, { matchConditions: [bad], failurePolicy: 'Ignore' }),
    ]);
    expect((await create(ns, 'err2', { other: 'y' })).status).toBe(201);
    expect(hs.callsTo(ignoring)).toHaveLength(0);
  });

  it('a false condition wins over an error', async () => {
    const p = route();
    await install([
      webhook(hs, 'mixed.example.orch.io', p, {
        matchConditions: [
          { name: 'boom', expression: "object.metadata.labels['missing'] == 'x'" },
          { name: 'no', expression: 'false' },
        ],
      }),
    ]);
    const ns = await namespace();
    expect((await create(ns, 'm', { other: 'y' })).status).toBe(201);
    expect(hs.callsTo(p)).toHaveLength(0);
  });

  it('the authorizer answers as the request user', async () => {
    const p = route();
    await install([
      webhook(hs, 'authz.example.orch.io', p, {
        matchConditions: [
          {
            name: 'can',
            expression: "authorizer.group('').resource('secrets').name('s').check('delete').allowed()",
          },
          {
            name: 'sa-cannot',
            expression:
              "!authorizer.serviceAccount('default', 'nobody').group('').resource('secrets').check('delete').allowed()",
          },
        ],
      }),
    ]);
    const ns = await namespace();
    expect((await create(ns, 'az')).status).toBe(201);
    expect(hs.callsTo(p)).toHaveLength(1);
  });
});
