// FlowSchema and PriorityLevelConfiguration at v1beta3 and the deprecated v1beta2 (one storage,
// converted), their 1.28 defaults and validation, the configuration objects a 1.28 server keeps;
// APIService and the local APIServices; ComponentStatus (deprecated). Discovery, tables and
// Warning headers against what a real Kubernetes 1.28 server answers (shared/kubernetes-1.28).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../src/kubeconfig.ts';
import { keepFlowControlConfiguration } from '../src/registry/flowcontrol-config.ts';
import { fromV1beta2, toV1beta2 } from '../src/registry/kinds/prioritylevelconfiguration.ts';
import type { KObject } from '../src/storage/types.ts';
import { expectResourceAsFact } from './discovery-expect.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { FACTS_DIR, readFact } from './k8s-facts.ts';
import { findKubectl } from './kubectl-bin.ts';

const G = 'flowcontrol.apiserver.orch.io';
const V3 = `/apis/${G}/v1beta3`;
const V2 = `/apis/${G}/v1beta2`;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

const toOrch = (s: string) => s.replaceAll('k8s.io', 'orch.io');
const discovery = readFact('discovery.json') as {
  preferred: Record<string, string>;
  resources: Record<string, any[]>;
};
const warnings = readFact('deprecation-warnings.json') as Record<string, string>;
const warningOf = (key: string) => toOrch(warnings[key]!);

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer();
});
afterAll(async () => {
  await ts?.close();
});

const causesOf = (r: { json: any }) =>
  (r.json?.details?.causes ?? []) as { field: string; message: string; reason: string }[];
const expectCause = (r: { status: number; json: any }, field: string, text: string) => {
  expect(r.status, JSON.stringify(r.json)).toBe(422);
  expect(
    causesOf(r).some((c) => c.field === field && c.message.includes(text)),
    `${field}: ${text} in ${JSON.stringify(causesOf(r))}`,
  ).toBe(true);
};

const until = async (f: () => Promise<boolean>, what: string, ms = 5000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out: ${what}`);
};

const pl = (name: string, spec: object) => ({ metadata: { name }, spec });
const fs = (name: string, spec: object) => ({ metadata: { name }, spec });
const rule = {
  subjects: [{ kind: 'User', user: { name: 'alice' } }],
  resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }],
};

describe('discovery as a 1.28 server lists it', () => {
  const cases: [string, string[]][] = [
    [
      'flowcontrol.apiserver.k8s.io/v1beta3',
      [
        'flowschemas',
        'flowschemas/status',
        'prioritylevelconfigurations',
        'prioritylevelconfigurations/status',
      ],
    ],
    [
      'flowcontrol.apiserver.k8s.io/v1beta2',
      [
        'flowschemas',
        'flowschemas/status',
        'prioritylevelconfigurations',
        'prioritylevelconfigurations/status',
      ],
    ],
    ['apiregistration.k8s.io/v1', ['apiservices', 'apiservices/status']],
    ['v1', ['componentstatuses']],
  ];
  for (const [gv, names] of cases)
    it(`${gv}: ${names.join(', ')}`, async () => {
      const r = await ts.req('GET', gv === 'v1' ? '/api/v1' : `/apis/${toOrch(gv)}`);
      expect(r.status).toBe(200);
      for (const name of names) {
        const want = discovery.resources[gv]!.find((x) => x.name === name);
        const got = r.json.resources.find((x: any) => x.name === name);
        expect(got, name).toBeDefined();
        expectResourceAsFact(got, want);
      }
    });

  it('the flowcontrol group serves both versions, v1beta3 preferred', async () => {
    const r = await ts.req('GET', `/apis/${G}`);
    expect(r.json.versions.map((v: any) => v.groupVersion)).toEqual([`${G}/v1beta3`, `${G}/v1beta2`]);
    expect(r.json.preferredVersion.groupVersion).toBe(
      toOrch(discovery.preferred['flowcontrol.apiserver.k8s.io']!),
    );
  });
});

describe('the Warning header of the deprecated versions', () => {
  const verbs = async (base: string, plural: string, body: (name: string) => object) => {
    const name = uniqueName('w');
    const out: [string, Awaited<ReturnType<TestServer['req']>>][] = [];
    out.push(['create', await ts.req('POST', `${base}/${plural}`, body(name))]);
    out.push(['get', await ts.req('GET', `${base}/${plural}/${name}`)]);
    out.push(['list', await ts.req('GET', `${base}/${plural}`)]);
    out.push(['watch', await ts.req('GET', `${base}/${plural}?watch=1&timeoutSeconds=1`)]);
    const cur = out[1]![1].json;
    out.push(['update', await ts.req('PUT', `${base}/${plural}/${name}`, cur)]);
    out.push([
      'patch',
      await ts.req(
        'PATCH',
        `${base}/${plural}/${name}`,
        { metadata: { labels: { a: 'b' } } },
        {
          'content-type': 'application/merge-patch+json',
        },
      ),
    ]);
    out.push(['get status', await ts.req('GET', `${base}/${plural}/${name}/status`)]);
    out.push([
      'patch status',
      await ts.req(
        'PATCH',
        `${base}/${plural}/${name}/status`,
        { status: { conditions: [] } },
        {
          'content-type': 'application/merge-patch+json',
        },
      ),
    ]);
    out.push(['delete', await ts.req('DELETE', `${base}/${plural}/${name}`)]);
    out.push([
      'deletecollection',
      await ts.req('DELETE', `${base}/${plural}?labelSelector=nothing-has-this`),
    ]);
    return out;
  };
  const kinds: [string, (n: string) => object][] = [
    ['flowschemas', (n) => fs(n, { priorityLevelConfiguration: { name: 'global-default' }, rules: [rule] })],
    [
      'prioritylevelconfigurations',
      (n) => pl(n, { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } }),
    ],
  ];
  for (const [plural, body] of kinds) {
    it(`${plural}: each verb at v1beta2 answers 1.28's warning`, async () => {
      const want = warningOf(`flowcontrol.apiserver.k8s.io/v1beta2/${plural}`);
      for (const [verb, r] of await verbs(V2, plural, body)) {
        expect(r.status, `${verb}: ${r.text}`).toBeLessThan(300);
        expect(r.headers.warning, verb).toBe(want);
      }
    });
    it(`${plural}: no verb at v1beta3 carries a warning`, async () => {
      for (const [verb, r] of await verbs(V3, plural, body)) {
        expect(r.status, `${verb}: ${r.text}`).toBeLessThan(300);
        expect(r.headers.warning, verb).toBeUndefined();
      }
    });
  }
});

describe('PriorityLevelConfiguration: one storage, two versions', () => {
  it('v1beta2 assuredConcurrencyShares is v1beta3 nominalConcurrencyShares, both ways', async () => {
    const a = uniqueName('pl');
    let r = await ts.req(
      'POST',
      `${V2}/prioritylevelconfigurations`,
      pl(a, {
        type: 'Limited',
        limited: {
          assuredConcurrencyShares: 7,
          lendablePercent: 10,
          borrowingLimitPercent: 40,
          limitResponse: { type: 'Reject' },
        },
      }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.json.apiVersion).toBe(`${G}/v1beta2`);
    expect(r.json.spec.limited.assuredConcurrencyShares).toBe(7);
    r = await ts.req('GET', `${V3}/prioritylevelconfigurations/${a}`);
    expect(r.json.apiVersion).toBe(`${G}/v1beta3`);
    expect(r.json.spec.limited).toEqual({
      nominalConcurrencyShares: 7,
      lendablePercent: 10,
      borrowingLimitPercent: 40,
      limitResponse: { type: 'Reject' },
    });
    const b = uniqueName('pl');
    r = await ts.req(
      'POST',
      `${V3}/prioritylevelconfigurations`,
      pl(b, {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 11,
          limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 20 } },
        },
      }),
    );
    expect(r.status, r.text).toBe(201);
    r = await ts.req('GET', `${V2}/prioritylevelconfigurations/${b}`);
    expect(r.json.spec.limited).toEqual({
      assuredConcurrencyShares: 11,
      lendablePercent: 0,
      limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 20 } },
    });
  });

  it('an object read through one version and written back through the other is unchanged', async () => {
    const name = uniqueName('pl');
    const created = await ts.req(
      'POST',
      `${V3}/prioritylevelconfigurations`,
      pl(name, {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 3,
          lendablePercent: 5,
          limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 9 } },
        },
      }),
    );
    expect(created.status).toBe(201);
    const asV2 = (await ts.req('GET', `${V2}/prioritylevelconfigurations/${name}`)).json;
    const put = await ts.req('PUT', `${V2}/prioritylevelconfigurations/${name}`, asV2);
    expect(put.status, put.text).toBe(200);
    // nothing changed: the same resourceVersion, the same v1beta3 object
    expect(put.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
    const after = (await ts.req('GET', `${V3}/prioritylevelconfigurations/${name}`)).json;
    expect(after.spec).toEqual(created.json.spec);
  });

  it('a write through v1beta2 is owned in v1beta2 terms; the next write through v1beta3 in its own', async () => {
    const name = uniqueName('pl');
    const r = await ts.req(
      'POST',
      `${V2}/prioritylevelconfigurations?fieldManager=old-client`,
      pl(name, {
        type: 'Limited',
        limited: { assuredConcurrencyShares: 4, limitResponse: { type: 'Reject' } },
      }),
    );
    expect(r.status, r.text).toBe(201);
    const [entry] = r.json.metadata.managedFields;
    expect(entry).toMatchObject({ manager: 'old-client', operation: 'Update', apiVersion: `${G}/v1beta2` });
    expect(entry.fieldsV1['f:spec']['f:limited']).toHaveProperty('f:assuredConcurrencyShares');
    const cur = (await ts.req('GET', `${V3}/prioritylevelconfigurations/${name}`)).json;
    cur.spec.limited.nominalConcurrencyShares = 8;
    const u = await ts.req('PUT', `${V3}/prioritylevelconfigurations/${name}?fieldManager=new-client`, cur);
    expect(u.status, u.text).toBe(200);
    const mine = u.json.metadata.managedFields.find((m: any) => m.manager === 'new-client');
    expect(mine.apiVersion).toBe(`${G}/v1beta3`);
    expect(mine.fieldsV1['f:spec']['f:limited']).toHaveProperty('f:nominalConcurrencyShares');
  });

  it("each version's OpenAPI document has its own field name", async () => {
    const v2 = await ts.req('GET', `/openapi/v3/apis/${G}/v1beta2`);
    const v3 = await ts.req('GET', `/openapi/v3/apis/${G}/v1beta3`);
    expect(v2.status).toBe(200);
    expect(v2.text).toContain('"assuredConcurrencyShares"');
    expect(v3.text).not.toContain('"assuredConcurrencyShares"');
    expect(v3.text).toContain('"nominalConcurrencyShares"');
  });

  it('round-trips without loss (property over the conversion)', () => {
    const limited = fc.record(
      {
        nominalConcurrencyShares: fc.integer({ min: 1, max: 1000 }),
        lendablePercent: fc.integer({ min: 0, max: 100 }),
        borrowingLimitPercent: fc.integer({ min: 0, max: 1000 }),
        limitResponse: fc.oneof(
          fc.constant({ type: 'Reject' }),
          fc.record({
            type: fc.constant('Queue'),
            queuing: fc.record({
              queues: fc.integer({ min: 1, max: 128 }),
              handSize: fc.integer({ min: 1, max: 8 }),
              queueLengthLimit: fc.integer({ min: 1, max: 100 }),
            }),
          }),
        ),
      },
      { requiredKeys: ['nominalConcurrencyShares', 'lendablePercent', 'limitResponse'] },
    );
    fc.assert(
      fc.property(limited, (l) => {
        const stored: KObject = {
          apiVersion: `${G}/v1beta3`,
          kind: 'PriorityLevelConfiguration',
          metadata: { name: 'x' },
          spec: { type: 'Limited', limited: l },
        };
        const v2 = toV1beta2(structuredClone(stored));
        expect((v2.spec as any).limited.assuredConcurrencyShares).toBe(l.nominalConcurrencyShares);
        expect((v2.spec as any).limited.nominalConcurrencyShares).toBeUndefined();
        expect(fromV1beta2(structuredClone(v2))).toEqual(stored);
      }),
      { numRuns: 200 },
    );
  });

  it('a zero or absent share count becomes 30 in either version (1.28 keeps no zero)', async () => {
    for (const [base, field] of [
      [V2, 'assuredConcurrencyShares'],
      [V3, 'nominalConcurrencyShares'],
    ] as const)
      for (const limited of [{ [field]: 0 }, {}]) {
        const name = uniqueName('pl');
        const r = await ts.req(
          'POST',
          `${base}/prioritylevelconfigurations`,
          pl(name, {
            type: 'Limited',
            limited: { ...limited, limitResponse: { type: 'Reject' } },
          }),
        );
        expect(r.status, r.text).toBe(201);
        expect(r.json.spec.limited[field]).toBe(30);
        const v3 = await ts.req('GET', `${V3}/prioritylevelconfigurations/${name}`);
        expect(v3.json.spec.limited.nominalConcurrencyShares).toBe(30);
        expect(v3.json.metadata.annotations).toBeUndefined();
      }
  });

  it("1.28's defaults: lendablePercent 0, queuing 64/8/50, exempt 0/0", async () => {
    for (const base of [V2, V3]) {
      const name = uniqueName('pl');
      const r = await ts.req(
        'POST',
        `${base}/prioritylevelconfigurations`,
        pl(name, {
          type: 'Limited',
          limited: { limitResponse: { type: 'Queue', queuing: {} } },
        }),
      );
      expect(r.status, r.text).toBe(201);
      expect(r.json.spec.limited.lendablePercent).toBe(0);
      expect(r.json.spec.limited.borrowingLimitPercent).toBeUndefined();
      expect(r.json.spec.limited.limitResponse.queuing).toEqual({
        queues: 64,
        handSize: 8,
        queueLengthLimit: 50,
      });
      expect(r.json.status).toEqual({});
    }
    const ex = await ts.req('GET', `${V3}/prioritylevelconfigurations/exempt`);
    expect(ex.json.spec.exempt).toEqual({ nominalConcurrencyShares: 0, lendablePercent: 0 });
  });

  it("1.28's validation, each cause named", async () => {
    const post = (base: string, name: string, spec: object) =>
      ts.req('POST', `${base}/prioritylevelconfigurations`, pl(name, spec));
    const limited = (l: object) => ({
      type: 'Limited',
      limited: { limitResponse: { type: 'Reject' }, ...l },
    });
    const queue = (q: object) => limited({ limitResponse: { type: 'Queue', queuing: q } });
    expectCause(
      await post(V3, uniqueName('p'), { type: 'Foo' }),
      'spec.type',
      'Unsupported value: "Foo": supported values: "Exempt", "Limited"',
    );
    expectCause(
      await post(V3, uniqueName('p'), { type: 'Exempt' }),
      'spec.type',
      "type must be 'Exempt' if and only if name is 'exempt'",
    );
    expectCause(
      await post(V3, uniqueName('p'), { type: 'Limited' }),
      'spec.limited',
      'must not be empty when type is Limited',
    );
    expectCause(
      await post(V3, uniqueName('p'), { ...limited({}), exempt: {} }),
      'spec.exempt',
      'must be nil if the type is Limited',
    );
    expectCause(
      await post(V3, uniqueName('p'), limited({ nominalConcurrencyShares: -1 })),
      'spec.limited.nominalConcurrencyShares',
      'Invalid value: -1: must be positive',
    );
    expectCause(
      await post(V2, uniqueName('p'), limited({ assuredConcurrencyShares: -2 })),
      'spec.limited.assuredConcurrencyShares',
      'Invalid value: -2: must be positive',
    );
    expectCause(
      await post(V3, uniqueName('p'), limited({ lendablePercent: 101 })),
      'spec.limited.lendablePercent',
      'must be between 0 and 100, inclusive',
    );
    expectCause(
      await post(V3, uniqueName('p'), limited({ borrowingLimitPercent: -1 })),
      'spec.limited.borrowingLimitPercent',
      'if specified, must be a non-negative integer',
    );
    expectCause(
      await post(V3, uniqueName('p'), limited({ limitResponse: { type: 'Drop' } })),
      'spec.limited.limitResponse.type',
      'supported values: "Queue", "Reject"',
    );
    expectCause(
      await post(V3, uniqueName('p'), limited({ limitResponse: { type: 'Queue' } })),
      'spec.limited.limitResponse.queuing',
      'must not be empty if limited.limitResponse.type is Limited',
    );
    expectCause(
      await post(V3, uniqueName('p'), limited({ limitResponse: { type: 'Reject', queuing: {} } })),
      'spec.limited.limitResponse.queuing',
      'must be nil if limited.limitResponse.type is not Limited',
    );
    expectCause(
      await post(V3, uniqueName('p'), queue({ queues: 4, handSize: 5 })),
      'spec.limited.limitResponse.queuing.handSize',
      'should not be greater than queues (4)',
    );
    expectCause(
      await post(V3, uniqueName('p'), queue({ queues: 10_000_001 })),
      'spec.limited.limitResponse.queuing.queues',
      'must not be greater than 10000000',
    );
    expectCause(
      await post(V3, uniqueName('p'), queue({ queues: 1_000_000, handSize: 4 })),
      'spec.limited.limitResponse.queuing.handSize',
      'required entropy bits of deckSize 1000000 and handSize 4 should not be greater than 60',
    );
    expectCause(
      await post(V3, uniqueName('p'), queue({ queueLengthLimit: -3 })),
      'spec.limited.limitResponse.queuing.queueLengthLimit',
      'must be positive',
    );
  });
});

describe('FlowSchema', () => {
  const post = (base: string, name: string, spec: object) =>
    ts.req('POST', `${base}/flowschemas`, fs(name, spec));
  const spec = (extra: object = {}) => ({
    priorityLevelConfiguration: { name: 'global-default' },
    rules: [rule],
    ...extra,
  });

  it('matchingPrecedence defaults to 1000 in both versions; the same object through both', async () => {
    const name = uniqueName('fs');
    const r = await post(V2, name, spec({ distinguisherMethod: { type: 'ByUser' } }));
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.matchingPrecedence).toBe(1000);
    const v3 = await ts.req('GET', `${V3}/flowschemas/${name}`);
    const { apiVersion: _a, ...a } = r.json;
    const { apiVersion: _b, ...b } = v3.json;
    expect(b.spec).toEqual(a.spec);
    expect(v3.json.apiVersion).toBe(`${G}/v1beta3`);
  });

  it("1.28's validation, each cause named", async () => {
    expectCause(
      await post(V3, uniqueName('f'), spec({ matchingPrecedence: -1 })),
      'spec.matchingPrecedence',
      'must be a positive value',
    );
    expectCause(
      await post(V3, uniqueName('f'), spec({ matchingPrecedence: 10001 })),
      'spec.matchingPrecedence',
      'must not be greater than 10000',
    );
    expectCause(
      await post(V3, uniqueName('f'), spec({ matchingPrecedence: 1 })),
      'spec.matchingPrecedence',
      "only the schema named 'exempt' may have matchingPrecedence 1",
    );
    expectCause(
      await post(V3, uniqueName('f'), spec({ distinguisherMethod: { type: 'ByGroup' } })),
      'spec.distinguisherMethod.type',
      'supported values: "ByNamespace", "ByUser"',
    );
    expectCause(
      await post(V3, uniqueName('f'), { rules: [rule] }),
      'spec.priorityLevelConfiguration.name',
      'must reference a priority level',
    );
    const withRule = (r: object) => spec({ rules: [r] });
    expectCause(
      await post(V3, uniqueName('f'), withRule({ ...rule, subjects: [] })),
      'spec.rules[0].subjects',
      'subjects must contain at least one value',
    );
    expectCause(
      await post(V3, uniqueName('f'), withRule({ subjects: rule.subjects })),
      'spec.rules[0]',
      'at least one of resourceRules and nonResourceRules has to be non-empty',
    );
    expectCause(
      await post(V3, uniqueName('f'), withRule({ ...rule, subjects: [{ kind: 'Robot' }] })),
      'spec.rules[0].subjects[0].kind',
      'supported values: "Group", "ServiceAccount", "User"',
    );
    expectCause(
      await post(
        V3,
        uniqueName('f'),
        withRule({ ...rule, subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'x' } }] }),
      ),
      'spec.rules[0].subjects[0].serviceAccount.namespace',
      'must specify namespace for service account',
    );
    expectCause(
      await post(
        V3,
        uniqueName('f'),
        withRule({ ...rule, subjects: [{ kind: 'User', user: { name: 'a' }, group: { name: 'g' } }] }),
      ),
      'spec.rules[0].subjects[0].group',
      "group is forbidden when subject kind is not 'Group'",
    );
    expectCause(
      await post(
        V3,
        uniqueName('f'),
        withRule({ ...rule, resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }),
      ),
      'spec.rules[0].resourceRules[0].namespaces',
      'resource rules that are not cluster scoped must supply at least one namespace',
    );
    expectCause(
      await post(
        V3,
        uniqueName('f'),
        withRule({
          ...rule,
          resourceRules: [{ verbs: ['*', 'get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }],
        }),
      ),
      'spec.rules[0].resourceRules[0].verbs',
      "if '*' is present, must not specify other verbs",
    );
    expectCause(
      await post(
        V3,
        uniqueName('f'),
        withRule({
          ...rule,
          resourceRules: [{ verbs: ['fly'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }],
        }),
      ),
      'spec.rules[0].resourceRules[0].verbs',
      'Unsupported value',
    );
    expectCause(
      await post(
        V3,
        uniqueName('f'),
        withRule({
          subjects: rule.subjects,
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['healthz'] }],
        }),
      ),
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]',
      'must start with slash',
    );
    expectCause(
      await post(
        V3,
        uniqueName('f'),
        withRule({
          subjects: rule.subjects,
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/a*'] }],
        }),
      ),
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]',
      'wildcard can only do suffix matching',
    );
  });

  it('the Dangling condition says whether the named priority level exists', async () => {
    const level = uniqueName('lvl');
    const name = uniqueName('fs');
    expect((await post(V3, name, spec({ priorityLevelConfiguration: { name: level } }))).status).toBe(201);
    const dangling = async () =>
      (await ts.req('GET', `${V3}/flowschemas/${name}`)).json.status?.conditions?.find(
        (c: any) => c.type === 'Dangling',
      );
    await until(async () => (await dangling())?.status === 'True', 'Dangling True');
    expect((await dangling()).reason).toBe('NotFound');
    expect(
      (
        await ts.req(
          'POST',
          `${V3}/prioritylevelconfigurations`,
          pl(level, { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } }),
        )
      ).status,
    ).toBe(201);
    await until(async () => (await dangling())?.status === 'False', 'Dangling False');
    expect((await dangling()).message).toBe(
      `This FlowSchema references the PriorityLevelConfiguration object named "${level}" and it exists`,
    );
    const t = await ts.req('GET', `${V3}/flowschemas/${name}`, undefined, { accept: TABLE });
    expect(t.json.rows[0].cells).toEqual([name, level, 1000, '<none>', expect.any(String), 'False']);
  });
});

describe('the configuration objects a 1.28 server keeps', () => {
  const group = (name: string) => ({ kind: 'Group', group: { name } });
  const all = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] };

  it('the mandatory exempt and catch-all objects, marked for automatic update', async () => {
    const ple = (await ts.req('GET', `${V3}/prioritylevelconfigurations/exempt`)).json;
    expect(ple.metadata.annotations).toEqual({ 'apf.orch.io/autoupdate-spec': 'true' });
    expect(ple.spec).toEqual({ type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
    const plc = (await ts.req('GET', `${V3}/prioritylevelconfigurations/catch-all`)).json;
    expect(plc.metadata.annotations).toEqual({ 'apf.orch.io/autoupdate-spec': 'true' });
    expect(plc.spec).toEqual({
      type: 'Limited',
      limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } },
    });
    const fse = (await ts.req('GET', `${V3}/flowschemas/exempt`)).json;
    expect(fse.metadata.annotations).toEqual({ 'apf.orch.io/autoupdate-spec': 'true' });
    expect(fse.spec).toEqual({
      priorityLevelConfiguration: { name: 'exempt' },
      matchingPrecedence: 1,
      rules: [
        {
          subjects: [group('system:masters')],
          resourceRules: [all],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        },
      ],
    });
    const fsc = (await ts.req('GET', `${V3}/flowschemas/catch-all`)).json;
    expect(fsc.spec).toEqual({
      priorityLevelConfiguration: { name: 'catch-all' },
      matchingPrecedence: 10000,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [group('system:unauthenticated'), group('system:authenticated')],
          resourceRules: [all],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        },
      ],
    });
  });

  it('the suggested objects too', async () => {
    const levels = (await ts.req('GET', `${V3}/prioritylevelconfigurations`)).json.items.map(
      (i: any) => i.metadata.name,
    );
    expect(levels).toEqual(
      expect.arrayContaining([
        'system',
        'node-high',
        'leader-election',
        'workload-high',
        'workload-low',
        'global-default',
      ]),
    );
    const schemas = (await ts.req('GET', `${V3}/flowschemas`)).json.items.map((i: any) => i.metadata.name);
    expect(schemas).toEqual(
      expect.arrayContaining([
        'system-nodes',
        'system-node-high',
        'probes',
        'system-leader-election',
        'workload-leader-election',
        'endpoint-controller',
        'kube-controller-manager',
        'kube-scheduler',
        'kube-system-service-accounts',
        'service-accounts',
        'global-default',
      ]),
    );
    const t = await ts.req('GET', `${V3}/prioritylevelconfigurations`, undefined, { accept: TABLE });
    const row = (n: string) => t.json.rows.find((r: any) => r.cells[0] === n).cells.slice(0, 6);
    expect(row('catch-all')).toEqual(['catch-all', 'Limited', 5, '<none>', '<none>', '<none>']);
    expect(row('exempt')).toEqual(['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>']);
    expect(row('workload-low')).toEqual(['workload-low', 'Limited', 100, 128, 6, 50]);
  });

  it('a deleted configuration object comes back with the next ensuring (each minute in 1.28)', async () => {
    const stop = keepFlowControlConfiguration(ts.server.registry, 50);
    try {
      for (const path of [`${V3}/flowschemas/catch-all`, `${V3}/prioritylevelconfigurations/workload-low`]) {
        expect((await ts.req('DELETE', path)).status).toBe(200);
        await until(async () => (await ts.req('GET', path)).status === 200, `${path} made again`);
        expect((await ts.req('GET', path)).json.metadata.annotations).toEqual({
          'apf.orch.io/autoupdate-spec': 'true',
        });
      }
    } finally {
      stop();
    }
  });

  it("the mandatory specs stay fixed (except the exempt level's spec.exempt)", async () => {
    const cur = (await ts.req('GET', `${V3}/prioritylevelconfigurations/catch-all`)).json;
    cur.spec.limited.nominalConcurrencyShares = 6;
    expectCause(
      await ts.req('PUT', `${V3}/prioritylevelconfigurations/catch-all`, cur),
      'spec',
      "spec of 'catch-all' must equal the fixed value",
    );
    const fsc = (await ts.req('GET', `${V3}/flowschemas/exempt`)).json;
    fsc.spec.matchingPrecedence = 2;
    expectCause(
      await ts.req('PUT', `${V3}/flowschemas/exempt`, fsc),
      'spec',
      "spec of 'exempt' must equal the fixed value",
    );
    const ex = (await ts.req('GET', `${V3}/prioritylevelconfigurations/exempt`)).json;
    ex.spec.exempt = { nominalConcurrencyShares: 10, lendablePercent: 20 };
    const ok = await ts.req('PUT', `${V3}/prioritylevelconfigurations/exempt`, ex);
    expect(ok.status, ok.text).toBe(200);
    ex.spec.exempt = { nominalConcurrencyShares: 0, lendablePercent: 0 };
    ex.metadata.resourceVersion = ok.json.metadata.resourceVersion;
    expect((await ts.req('PUT', `${V3}/prioritylevelconfigurations/exempt`, ex)).status).toBe(200);
  });
});

describe('APIService', () => {
  const P = '/apis/apiregistration.orch.io/v1/apiservices';

  it('a local APIService for every group version this server serves, Available as Local', async () => {
    const t = await ts.req('GET', P, undefined, { accept: TABLE });
    const rows = new Map<string, any[]>(t.json.rows.map((r: any) => [r.cells[0], r.cells]));
    let checked = 0;
    for (const gv of Object.keys(discovery.resources)) {
      const orch = toOrch(gv);
      // the aggregator serves its own group without an APIService in 1.28
      if (orch === 'apiregistration.orch.io/v1') continue;
      const served = await ts.req('GET', gv === 'v1' ? '/api/v1' : `/apis/${orch}`);
      if (served.status !== 200) continue;
      const [group, version] = orch.includes('/') ? orch.split('/') : ['', orch];
      const name = `${version}.${group}`;
      expect(rows.get(name), name).toEqual([name, 'Local', 'True', expect.any(String)]);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(15);
  });

  it("1.28's ranks, and the Available condition", async () => {
    const rank = async (name: string) => {
      const s = (await ts.req('GET', `${P}/${name}`)).json;
      return [s.spec.groupPriorityMinimum, s.spec.versionPriority, s.spec.service, s.metadata.labels];
    };
    const onstart = { 'kube-aggregator.orch.io/automanaged': 'onstart' };
    expect(await rank('v1.')).toEqual([18000, 1, undefined, onstart]);
    expect(await rank('v1.apps')).toEqual([17800, 15, undefined, onstart]);
    expect(await rank('v1beta3.flowcontrol.apiserver.orch.io')).toEqual([16100, 18, undefined, onstart]);
    expect(await rank('v1beta2.flowcontrol.apiserver.orch.io')).toEqual([16100, 15, undefined, onstart]);
    const s = (await ts.req('GET', `${P}/v1.apps`)).json;
    expect(s.status.conditions).toEqual([
      {
        type: 'Available',
        status: 'True',
        lastTransitionTime: expect.any(String),
        reason: 'Local',
        message: 'Local APIServices are always available',
      },
    ]);
  });

  it('an APIService naming a missing Service is not available; port 443 by default', async () => {
    const r = await ts.req('POST', P, {
      metadata: { name: 'v1.missing.example.com' },
      spec: {
        group: 'missing.example.com',
        version: 'v1',
        groupPriorityMinimum: 100,
        versionPriority: 10,
        service: { namespace: 'default', name: 'nope' },
      },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.service.port).toBe(443);
    await until(
      async () => (await ts.req('GET', `${P}/v1.missing.example.com`)).json.status?.conditions?.length > 0,
      'condition',
    );
    const t = await ts.req('GET', `${P}/v1.missing.example.com`, undefined, { accept: TABLE });
    expect(t.json.rows[0].cells.slice(0, 3)).toEqual([
      'v1.missing.example.com',
      'default/nope',
      'False (ServiceNotFound)',
    ]);
  });

  it("1.28's validation, each cause named", async () => {
    const post = (name: string, spec: object) => ts.req('POST', P, { metadata: { name }, spec });
    const base = { group: 'x.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 };
    expectCause(
      await post('v2.x.example.com', base),
      'metadata.name',
      'must be `spec.version+"."+spec.group`: "v1.x.example.com"',
    );
    expectCause(
      await post('v1.x.example.com', { ...base, groupPriorityMinimum: 20001 }),
      'spec.groupPriorityMinimum',
      'must be positive and less than 20000',
    );
    expectCause(
      await post('v1.x.example.com', { ...base, versionPriority: 0 }),
      'spec.versionPriority',
      'must be positive and less than 1000',
    );
    expectCause(
      await post('v1.x.example.com', { ...base, caBundle: 'YWJj' }),
      'spec.caBundle',
      'Invalid value: "3 bytes": local APIServices may not have a caBundle',
    );
    expectCause(
      await post('v1.x.example.com', { ...base, insecureSkipTLSVerify: true }),
      'spec.insecureSkipTLSVerify',
      'local APIServices may not have insecureSkipTLSVerify',
    );
    expectCause(
      await post('v2.', { ...base, group: '', version: 'v2' }),
      'spec.group',
      'only v1 may have an empty group',
    );
    expectCause(
      await post('v1.x.example.com', { ...base, service: { namespace: 'default', name: 's', port: 70000 } }),
      'spec.service.port',
      'port is not valid',
    );
    expectCause(
      await post('v1.x.example.com', { ...base, service: { name: 's' } }),
      'spec.service.namespace',
      'Required value',
    );
  });

  it("readiness: 1.28's checks of the configuration producer and of the APIServices made at start", async () => {
    const r = await ts.req('GET', '/readyz?verbose');
    expect(r.status).toBe(200);
    for (const c of [
      'poststarthook/priority-and-fairness-config-producer',
      'poststarthook/apiservice-status-available-controller',
      'poststarthook/kube-apiserver-autoregistration',
      'autoregister-completion',
    ])
      expect(r.text).toContain(`[+]${c} ok`);
    // in the order a 1.28 server lists them
    const fixture = readFileSync(join(FACTS_DIR, 'health-readyz-verbose.txt'), 'utf8');
    const order = (t: string) => t.split('\n').flatMap((l) => /^\[\+\](\S+) ok$/.exec(l)?.[1] ?? []);
    const ours = order(r.text);
    const theirs = order(fixture).filter((n) => ours.includes(n));
    expect(ours.filter((n) => theirs.includes(n))).toEqual(theirs);
  });

  it('custom resources get an APIService (1000/100) while their definition serves them', async () => {
    const group = `${uniqueName('g')}.example.com`;
    const crd = {
      apiVersion: 'apiextensions.orch.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    expect(
      (await ts.req('POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', crd)).status,
    ).toBe(201);
    await until(async () => (await ts.req('GET', `${P}/v1.${group}`)).status === 200, 'custom APIService');
    const s = (await ts.req('GET', `${P}/v1.${group}`)).json;
    expect([s.spec.groupPriorityMinimum, s.spec.versionPriority, s.metadata.labels]).toEqual([
      1000,
      100,
      { 'kube-aggregator.orch.io/automanaged': 'true' },
    ]);
    expect(
      (await ts.req('DELETE', `/apis/apiextensions.orch.io/v1/customresourcedefinitions/widgets.${group}`))
        .status,
    ).toBeLessThan(300);
    await until(
      async () => (await ts.req('GET', `${P}/v1.${group}`)).status === 404,
      'custom APIService gone',
      10_000,
    );
  });
});

describe('ComponentStatus (deprecated)', () => {
  const want = warningOf('v1/componentstatuses');
  const refused = (port: number) =>
    `Get "https://127.0.0.1:${port}/healthz": dial tcp 127.0.0.1:${port}: connect: connection refused`;

  it('lists the components a 1.28 server lists, with the health this server can report', async () => {
    const r = await ts.req('GET', '/api/v1/componentstatuses');
    expect(r.status).toBe(200);
    expect(r.headers.warning).toBe(want);
    expect(r.json.kind).toBe('ComponentStatusList');
    const byName = new Map(r.json.items.map((i: any) => [i.metadata.name, i.conditions]));
    expect([...byName.keys()].sort()).toEqual(['controller-manager', 'etcd-0', 'scheduler']);
    expect(byName.get('etcd-0')).toEqual([{ type: 'Healthy', status: 'True' }]);
    // nothing listens on the ports 1.28 probes here
    expect(byName.get('controller-manager')).toEqual([
      { type: 'Healthy', status: 'False', message: refused(10257) },
    ]);
    expect(byName.get('scheduler')).toEqual([{ type: 'Healthy', status: 'False', message: refused(10259) }]);
  });

  it('get, the table, and no other verb; every answer warns', async () => {
    const g = await ts.req('GET', '/api/v1/componentstatuses/etcd-0');
    expect(g.status).toBe(200);
    expect(g.headers.warning).toBe(want);
    expect(g.json).toMatchObject({ apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'etcd-0' } });
    const t = await ts.req('GET', '/api/v1/componentstatuses', undefined, { accept: TABLE });
    expect(t.headers.warning).toBe(want);
    expect(t.json.rows.find((r: any) => r.cells[0] === 'scheduler').cells).toEqual([
      'scheduler',
      'Unhealthy',
      refused(10259),
      '',
    ]);
    expect(t.json.rows.find((r: any) => r.cells[0] === 'etcd-0').cells).toEqual([
      'etcd-0',
      'Healthy',
      '',
      '',
    ]);
    const missing = await ts.req('GET', '/api/v1/componentstatuses/nope');
    expect(missing.status).toBe(404);
    expect(missing.json.reason).toBe('NotFound');
    expect((await ts.req('DELETE', '/api/v1/componentstatuses/etcd-0')).status).toBe(405);
    expect((await ts.req('POST', '/api/v1/componentstatuses', { metadata: { name: 'x' } })).status).toBe(405);
    const sel = await ts.req('GET', '/api/v1/componentstatuses?fieldSelector=metadata.name%3Dscheduler');
    expect(sel.json.items.map((i: any) => i.metadata.name)).toEqual(['scheduler']);
  });
});

describe('kubectl prints the warning of the deprecated versions', () => {
  let tls: TestServer;
  let dir: string;
  const bin = findKubectl();
  beforeAll(async () => {
    tls = await startServer({ tls: true });
    dir = mkdtempSync(join(tmpdir(), 'orch-fc-kubectl-'));
    writeKubeconfig(join(dir, 'kubeconfig'), { server: tls.url, caPem: tls.server.caPem!, token: tls.token });
  });
  afterAll(async () => {
    await tls?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const kubectl = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        bin!,
        ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args],
        { env: { ...process.env, HOME: dir }, timeout: 30_000 },
        (err, stdout, stderr) =>
          resolve({
            code: err ? Number((err as { code?: unknown }).code) || -1 : 0,
            stdout: String(stdout),
            stderr: String(stderr),
          }),
      );
    });

  it('kubectl get flowschemas.v1beta2.flowcontrol.apiserver.orch.io', async () => {
    expect(bin, 'kubectl (see kubectl-bin.ts)').toBeDefined();
    const r = await kubectl('get', 'flowschemas.v1beta2.flowcontrol.apiserver.orch.io');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'Warning: flowcontrol.apiserver.orch.io/v1beta2 FlowSchema is deprecated in v1.26+, unavailable in v1.29+; use flowcontrol.apiserver.orch.io/v1beta3 FlowSchema',
    );
    expect(r.stdout).toMatch(
      /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL/,
    );
    expect(r.stdout).toMatch(/\ncatch-all\s+catch-all\s+10000\s+ByUser\s+\S+\s+False/);
    const v3 = await kubectl('get', 'flowschemas.v1beta3.flowcontrol.apiserver.orch.io');
    expect(v3.code, v3.stderr).toBe(0);
    expect(v3.stderr).not.toContain('Warning');
  });

  it('kubectl get componentstatuses', async () => {
    const r = await kubectl('get', 'cs');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Warning: v1 ComponentStatus is deprecated in v1.19+');
    expect(r.stdout).toMatch(/\netcd-0\s+Healthy/);
  });
});
