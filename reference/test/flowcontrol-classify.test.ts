// API priority and fairness classification (src/flowcontrol/classifier.ts): each response names
// the FlowSchema and priority level its request was classified under, as a 1.28 kube-apiserver
// does (checked against one: system:masters under `exempt`, an authenticated user's request
// under `global-default`, a refused request still classified), and /metrics has each priority
// level's nominal concurrency (the 1.28 defaults' values, read from a real 1.28 server).

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir, startServer, type TestServer, uniqueName } from './helpers.ts';

const FC = '/apis/flowcontrol.apiserver.orch.io/v1beta3';
let ts: TestServer;
beforeAll(async () => {
  ts = await startServer();
});
afterAll(() => ts?.close());

const as = (user: string) => ({ 'impersonate-user': user, 'impersonate-group': 'system:authenticated' });
const uidOf = async (kind: 'flowschemas' | 'prioritylevelconfigurations', name: string) =>
  (await ts.req('GET', `${FC}/${kind}/${name}`)).json.metadata.uid as string;
const classified = (r: { headers: Record<string, unknown> }) => [
  r.headers['x-kubernetes-pf-flowschema-uid'],
  r.headers['x-kubernetes-pf-prioritylevel-uid'],
];

/** A limited priority level and a FlowSchema sending `rules` of `user` to it. */
async function makeFlow(name: string, precedence: number, rules: unknown[]) {
  const pl = await ts.req('POST', `${FC}/prioritylevelconfigurations`, {
    apiVersion: 'flowcontrol.apiserver.orch.io/v1beta3',
    kind: 'PriorityLevelConfiguration',
    metadata: { name },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
  });
  expect(pl.status).toBe(201);
  const fs = await ts.req('POST', `${FC}/flowschemas`, {
    apiVersion: 'flowcontrol.apiserver.orch.io/v1beta3',
    kind: 'FlowSchema',
    metadata: { name },
    spec: {
      matchingPrecedence: precedence,
      priorityLevelConfiguration: { name },
      distinguisherMethod: { type: 'ByUser' },
      rules,
    },
  });
  expect(fs.status).toBe(201);
  return { fs: fs.json.metadata.uid as string, pl: pl.json.metadata.uid as string };
}

describe('classification', () => {
  it('puts system:masters under exempt and an authenticated user under global-default, a refused request too', async () => {
    expect(classified(await ts.req('GET', '/version'))).toEqual([
      await uidOf('flowschemas', 'exempt'),
      await uidOf('prioritylevelconfigurations', 'exempt'),
    ]);
    const refused = await ts.req('GET', '/api/v1/namespaces/default/pods', undefined, as('foo'));
    expect(refused.status).toBe(403);
    expect(classified(refused)).toEqual([
      await uidOf('flowschemas', 'global-default'),
      await uidOf('prioritylevelconfigurations', 'global-default'),
    ]);
  });

  it('names them on every kind of reply: an object, a Status, a write and its conflict, a table, a watch, a reply that sets other headers first', async () => {
    const exempt = [
      await uidOf('flowschemas', 'exempt'),
      await uidOf('prioritylevelconfigurations', 'exempt'),
    ];
    const ns = uniqueName('pf');
    expect(classified(await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } }))).toEqual(
      exempt,
    );
    expect(classified(await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/none`))).toEqual(exempt);
    // a write's answer, and a write refused by the store
    const cm = { metadata: { name: 'one' }, data: { a: 'b' } };
    const created = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, cm);
    expect(created.status).toBe(201);
    expect(classified(created)).toEqual(exempt);
    const clash = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, cm);
    expect(clash.status).toBe(409);
    expect(classified(clash)).toEqual(exempt);
    const table = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.orch.io',
    });
    expect(table.json.kind).toBe('Table');
    expect(classified(table)).toEqual(exempt);
    const watch = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=1`);
    expect(watch.status).toBe(200);
    expect(classified(watch)).toEqual(exempt);
    const gzip = await ts.req('GET', '/openapi/v2', undefined, { 'accept-encoding': 'gzip' });
    expect(classified(gzip)).toEqual(exempt);
    for (const path of ['/readyz', '/livez?verbose', '/metrics', '/version', '/apis'])
      expect(classified(await ts.req('GET', path)), path).toEqual(exempt);
    // with an audit log, Audit-Id is set on the reply before its head: both go out
    const audited = await startServer({ auditLogPath: join(scratchDir('pf-audit'), 'audit.log') });
    try {
      const r = await audited.req('GET', '/api/v1/namespaces/default');
      expect(r.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(classified(r)).toEqual([
        (await audited.req('GET', `${FC}/flowschemas/exempt`)).json.metadata.uid,
        (await audited.req('GET', `${FC}/prioritylevelconfigurations/exempt`)).json.metadata.uid,
      ]);
    } finally {
      await audited.close();
    }
  });

  it('takes the first FlowSchema by precedence whose rules match the user and path', async () => {
    const user = uniqueName('noxu');
    const name = uniqueName('e2e-flow');
    const made = await makeFlow(name, 1000, [
      {
        subjects: [{ kind: 'User', user: { name: user } }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      },
    ]);
    expect(classified(await ts.req('GET', '/version', undefined, as(user)))).toEqual([made.fs, made.pl]);
    // another user falls through to global-default
    expect(classified(await ts.req('GET', '/version', undefined, as('foo')))[0]).toBe(
      await uidOf('flowschemas', 'global-default'),
    );
  });

  it('matches resource rules by verb, group, resource/subresource and namespace (cluster scope apart)', async () => {
    const user = uniqueName('reader');
    const name = uniqueName('cm-flow');
    const made = await makeFlow(name, 1001, [
      {
        subjects: [{ kind: 'User', user: { name: user } }],
        resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'], namespaces: ['*'] }],
      },
    ]);
    const inNs = await ts.req('GET', '/api/v1/namespaces/default/configmaps', undefined, as(user));
    expect(classified(inNs)).toEqual([made.fs, made.pl]);
    // not a list, not in a namespace: global-default
    const globalDefault = await uidOf('flowschemas', 'global-default');
    expect(
      classified(await ts.req('GET', '/api/v1/namespaces/default/configmaps/x', undefined, as(user)))[0],
    ).toBe(globalDefault);
    expect(classified(await ts.req('GET', '/api/v1/configmaps', undefined, as(user)))[0]).toBe(globalDefault);
  });

  it('matches Group and ServiceAccount subjects, by name and by *', async () => {
    const ns = uniqueName('fc-ns');
    const group = uniqueName('fc-group');
    const version = (nonResourceURLs: string[]) => [{ verbs: ['get'], nonResourceURLs }];
    const one = await makeFlow(uniqueName('fc-sa'), 1002, [
      {
        subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: ns, name: 'builder' } }],
        nonResourceRules: version(['/version']),
      },
    ]);
    const any = await makeFlow(uniqueName('fc-sa-any'), 1003, [
      {
        subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: `${ns}-b`, name: '*' } }],
        nonResourceRules: version(['/version']),
      },
    ]);
    const byGroup = await makeFlow(uniqueName('fc-grp'), 1004, [
      { subjects: [{ kind: 'Group', group: { name: group } }], nonResourceRules: version(['/version']) },
    ]);
    const fsOf = async (user: string, groups = ['system:authenticated']) =>
      classified(
        await ts.req('GET', '/version', undefined, { 'impersonate-user': user, 'impersonate-group': groups }),
      )[0];
    const globalDefault = await uidOf('flowschemas', 'global-default');
    expect(await fsOf(`system:serviceaccount:${ns}:builder`)).toBe(one.fs);
    expect(await fsOf(`system:serviceaccount:${ns}:builder2`)).toBe(globalDefault);
    expect(await fsOf(`system:serviceaccount:${ns}-b:anyone`)).toBe(any.fs);
    expect(await fsOf(`system:serviceaccount:${ns}-bb:anyone`)).toBe(globalDefault);
    expect(await fsOf('someone', ['system:authenticated', group])).toBe(byGroup.fs);
    expect(await fsOf('someone')).toBe(globalDefault);
  });

  it('passes over a FlowSchema whose priority level is missing (dangling)', async () => {
    const user = uniqueName('dangler');
    const name = uniqueName('dangling');
    await makeFlow(name, 999, [
      {
        subjects: [{ kind: 'User', user: { name: user } }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/version'] }],
      },
    ]);
    expect((await ts.req('DELETE', `${FC}/prioritylevelconfigurations/${name}`)).status).toBe(200);
    expect(classified(await ts.req('GET', '/version', undefined, as(user)))[0]).toBe(
      await uidOf('flowschemas', 'global-default'),
    );
  });
});

describe('metrics', () => {
  it("reports each default priority level's nominal concurrency as a 1.28 server does", async () => {
    const fresh = await startServer();
    try {
      const text = (await fresh.req('GET', '/metrics')).text;
      const limits = Object.fromEntries(
        [
          ...text.matchAll(/^apiserver_flowcontrol_nominal_limit_seats\{priority_level="([^"]+)"\} (\d+)$/gm),
        ].map((m) => [m[1], Number(m[2])]),
      );
      expect(limits).toEqual({
        'catch-all': 13,
        exempt: 0,
        'global-default': 49,
        'leader-election': 25,
        'node-high': 98,
        system: 74,
        'workload-high': 98,
        'workload-low': 245,
      });
    } finally {
      await fresh.close();
    }
  });
});
