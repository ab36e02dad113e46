// The audit stage as Kubernetes 1.28 has it: the `--audit-policy-file` Policy (rules in order,
// first match wins; users, groups, verbs, resources in their `*` and `name/subresource` forms,
// resource names, namespaces, non-resource URLs; omitted stages; managedFields left out),
// invalid policies refused at start, the levels' fields, the stages (ResponseStarted for a
// watch, Panic for an internal error) with the annotations added before each, the log file's
// rotation (lumberjack's backup names, maxbackup, maxage, compression), the legacy format,
// and the deprecation annotations (doc2 § Versioning) on requests to a deprecated version.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { legacyLine } from '../src/audit/format.ts';
import { RotatingFile } from '../src/audit/log-file.ts';
import {
  type PolicyAttributes,
  PolicyEvaluator,
  parseAuditPolicy,
  ruleMatches,
  type PolicyRule,
} from '../src/audit/policy.ts';
import type { AuditEvent } from '../src/audit/types.ts';
import { parseServeArgs, UsageError } from '../src/cli.ts';
import { build } from '../src/index.ts';
import type { ResourceDef } from '../src/registry/types.ts';
import { configMap, scratchDir, startServer, type TestServer, uniqueName } from './helpers.ts';

const dir = scratchDir('orch-audit-test-');
const POLICY_HEAD = { apiVersion: 'audit.orch.io/v1', kind: 'Policy' };

function rule(r: Partial<PolicyRule>): PolicyRule {
  return {
    level: 'Metadata',
    users: [],
    userGroups: [],
    verbs: [],
    resources: [],
    namespaces: [],
    nonResourceURLs: [],
    omitStages: [],
    ...r,
  };
}

const alice = { username: 'alice', groups: ['devs', 'system:authenticated'] };
const pods: PolicyAttributes = {
  user: alice,
  verb: 'get',
  resourceRequest: true,
  apiGroup: '',
  resource: 'pods',
  subresource: '',
  namespace: 'default',
  name: 'p1',
  path: '/api/v1/namespaces/default/pods/p1',
};
const podLog: PolicyAttributes = { ...pods, subresource: 'log', path: `${pods.path}/log` };
const deployments: PolicyAttributes = { ...pods, apiGroup: 'apps', resource: 'deployments', name: 'd1' };
const namespaces: PolicyAttributes = { ...pods, resource: 'namespaces', namespace: '', name: 'default' };
const healthz: PolicyAttributes = {
  user: alice,
  verb: 'get',
  resourceRequest: false,
  apiGroup: '',
  resource: '',
  subresource: '',
  namespace: '',
  name: '',
  path: '/healthz',
};
const anonymousHealthz: PolicyAttributes = { ...healthz, user: undefined };
const core = (resources: string[], resourceNames: string[] = []) => [{ group: '', resources, resourceNames }];

// [what, rule, request, matches] — as Kubernetes 1.28's policy checker decides
const MATCHING: [string, Partial<PolicyRule>, PolicyAttributes, boolean][] = [
  ['an empty rule matches a resource request', {}, pods, true],
  ['an empty rule matches a non-resource request', {}, healthz, true],
  ['users: the user named', { users: ['alice'] }, pods, true],
  ['users: another user', { users: ['bob'] }, pods, false],
  ['users: no user (a refused request)', { users: ['alice'] }, anonymousHealthz, false],
  ['userGroups: one of the groups', { userGroups: ['ops', 'devs'] }, pods, true],
  ['userGroups: none of the groups', { userGroups: ['ops'] }, pods, false],
  ['verbs: the verb', { verbs: ['list', 'get'] }, pods, true],
  ['verbs: another verb', { verbs: ['list'] }, pods, false],
  ['every field set must match', { users: ['alice'], verbs: ['delete'] }, pods, false],
  ['resources: the resource', { resources: core(['pods']) }, pods, true],
  ['resources: the resource does not cover its subresource', { resources: core(['pods']) }, podLog, false],
  ['resources: resource/subresource', { resources: core(['pods/log']) }, podLog, true],
  ['resources: resource/subresource is not the resource', { resources: core(['pods/log']) }, pods, false],
  ['resources: */subresource', { resources: core(['*/log']) }, podLog, true],
  ['resources: resource/* covers the resource', { resources: core(['pods/*']) }, pods, true],
  ['resources: resource/* covers its subresources', { resources: core(['pods/*']) }, podLog, true],
  ['resources: * is every resource of the group', { resources: core(['*']) }, podLog, true],
  [
    'resources: the group must match',
    { resources: [{ group: 'apps', resources: ['*'], resourceNames: [] }] },
    pods,
    false,
  ],
  [
    'resources: a group without resources is all of it',
    { resources: [{ group: 'apps', resources: [], resourceNames: [] }] },
    deployments,
    true,
  ],
  ['resources: resourceNames naming the object', { resources: core(['pods'], ['p1']) }, pods, true],
  ['resources: resourceNames naming others', { resources: core(['pods'], ['p2']) }, pods, false],
  ['resources never match a non-resource request', { resources: core(['*']) }, healthz, false],
  ['namespaces: the namespace', { namespaces: ['kube-system', 'default'] }, pods, true],
  ['namespaces: another namespace', { namespaces: ['kube-system'] }, pods, false],
  ['namespaces: "" is the cluster-scoped resources', { namespaces: [''] }, namespaces, true],
  ['namespaces never match a non-resource request', { namespaces: [''] }, healthz, false],
  ['nonResourceURLs: the path', { nonResourceURLs: ['/healthz'] }, healthz, true],
  ['nonResourceURLs: a trailing * is a prefix', { nonResourceURLs: ['/health*'] }, healthz, true],
  ['nonResourceURLs: * alone is any path', { nonResourceURLs: ['*'] }, healthz, true],
  ['nonResourceURLs: /healthz/* is not /healthz', { nonResourceURLs: ['/healthz/*'] }, healthz, false],
  ['nonResourceURLs never match a resource request', { nonResourceURLs: ['*'] }, pods, false],
];

describe('policy rules (Kubernetes 1.28 policy checker)', () => {
  it.each(MATCHING)('%s', (_what, r, attrs, want) => {
    expect(ruleMatches(rule(r), attrs)).toBe(want);
  });

  it("the first matching rule decides; no match is level None; omitted stages are the policy's and the rule's", () => {
    const p = parseAuditPolicy(
      toYaml({
        ...POLICY_HEAD,
        omitStages: ['RequestReceived'],
        omitManagedFields: true,
        rules: [
          { level: 'None', users: ['bob'] },
          {
            level: 'RequestResponse',
            resources: [{ group: '', resources: ['pods'] }],
            omitStages: ['ResponseStarted'],
            omitManagedFields: false,
          },
          { level: 'Request', resources: [{ group: '' }] },
          { level: 'Metadata', nonResourceURLs: ['/healthz*'] },
        ],
      }),
    );
    const e = new PolicyEvaluator(p);
    const pod = e.evaluate(pods);
    expect(pod.level).toBe('RequestResponse');
    expect([...pod.omitStages].sort()).toEqual(['RequestReceived', 'ResponseStarted']);
    expect(pod.omitManagedFields).toBe(false);
    const bob = e.evaluate({ ...pods, user: { username: 'bob', groups: [] } });
    expect(bob.level).toBe('None');
    const log = e.evaluate(podLog);
    expect(log.level).toBe('Request');
    expect([...log.omitStages]).toEqual(['RequestReceived']);
    expect(log.omitManagedFields).toBe(true);
    expect(e.evaluate(healthz).level).toBe('Metadata');
    expect(e.evaluate(deployments).level).toBe('None');
  });

  it('reads JSON as well as YAML; fields the Policy does not have are warned about, not refused', () => {
    const warned: string[] = [];
    const p = parseAuditPolicy(
      JSON.stringify({ ...POLICY_HEAD, rules: [{ level: 'Metadata', colour: 'red' }] }),
      (m) => warned.push(m),
    );
    expect(p.rules).toHaveLength(1);
    expect(warned.join()).toContain('rules[0].colour');
  });
});

// [what, policy, the message holds]
const INVALID: [string, unknown, RegExp][] = [
  ['not YAML', '{ rules: [', /failed decoding/],
  [
    'another apiVersion',
    { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'None' }] },
    /unknown group version/,
  ],
  [
    'another kind',
    { apiVersion: 'audit.orch.io/v1', kind: 'Event', rules: [{ level: 'None' }] },
    /unknown group version/,
  ],
  ['no rules', { ...POLICY_HEAD }, /illegal policy with 0 rules/],
  [
    'a rule without a level',
    { ...POLICY_HEAD, rules: [{ users: ['a'] }] },
    /rules\[0\]\.level: Required value/,
  ],
  [
    'an unknown level',
    { ...POLICY_HEAD, rules: [{ level: 'Everything' }] },
    /rules\[0\]\.level: Unsupported value: "Everything"/,
  ],
  [
    'an unknown stage in a rule',
    { ...POLICY_HEAD, rules: [{ level: 'None', omitStages: ['Later'] }] },
    /rules\[0\]\.omitStages\[0\].*allowed stages are/,
  ],
  [
    'an unknown stage in the policy',
    { ...POLICY_HEAD, omitStages: ['Later'], rules: [{ level: 'None' }] },
    /^omitStages\[0\].*allowed stages are/,
  ],
  [
    'a non-resource URL without a leading /',
    { ...POLICY_HEAD, rules: [{ level: 'None', nonResourceURLs: ['healthz'] }] },
    /must begin with a '\/' character/,
  ],
  [
    'a * inside a non-resource URL',
    { ...POLICY_HEAD, rules: [{ level: 'None', nonResourceURLs: ['/he*lthz'] }] },
    /must be the final character/,
  ],
  [
    'resources and non-resource URLs in one rule',
    { ...POLICY_HEAD, rules: [{ level: 'None', nonResourceURLs: ['/x'], namespaces: ['a'] }] },
    /cannot apply to both regular resources and non-resource URLs/,
  ],
  [
    'resourceNames without resources',
    { ...POLICY_HEAD, rules: [{ level: 'None', resources: [{ group: '', resourceNames: ['a'] }] }] },
    /using resourceNames requires at least one resource/,
  ],
  [
    'a group with a version',
    { ...POLICY_HEAD, rules: [{ level: 'None', resources: [{ group: 'apps/v1' }] }] },
    /resources\[0\]\.group: Invalid value: "apps\/v1"/,
  ],
  [
    'users not a list',
    { ...POLICY_HEAD, rules: [{ level: 'None', users: 'alice' }] },
    /rules\[0\]\.users: Invalid value/,
  ],
];

describe('invalid policies are refused at start', () => {
  it.each(INVALID)('%s', (_what, policy, msg) => {
    const text = typeof policy === 'string' ? policy : toYaml(policy);
    expect(() => parseAuditPolicy(text)).toThrow(msg);
  });

  it('the server does not start: the flag, the problem and the file are named', async () => {
    const file = join(dir, 'bad-policy.yaml');
    writeFileSync(file, toYaml({ ...POLICY_HEAD, rules: [{ level: 'Loud' }] }));
    await expect(build({ inMemory: true, tls: false, auditPolicyFile: file })).rejects.toThrow(
      new RegExp(
        `^--audit-policy-file: rules\\[0\\]\\.level: Unsupported value: "Loud".*: from file ${file}$`,
      ),
    );
    // the command line says so before starting anything
    expect(() => parseServeArgs(['--audit-policy-file', file], dir)).toThrow(UsageError);
    expect(() => parseServeArgs(['--audit-policy-file', join(dir, 'missing.yaml')], dir)).toThrow(
      /does not exist/,
    );
  });
});

describe('audit flags', () => {
  it('--audit-log-* and --audit-policy-file reach the options', () => {
    const file = join(dir, 'ok-policy.yaml');
    writeFileSync(file, toYaml({ ...POLICY_HEAD, rules: [{ level: 'Metadata' }] }));
    const c = parseServeArgs(
      [
        '--audit-log-path=logs/audit.log',
        '--audit-policy-file=ok-policy.yaml',
        '--audit-log-format=legacy',
        '--audit-log-maxsize=5',
        '--audit-log-maxbackup=3',
        '--audit-log-maxage=7',
        '--audit-log-compress',
      ],
      dir,
    )!;
    expect(c.options).toMatchObject({
      auditLogPath: join(dir, 'logs/audit.log'),
      auditPolicyFile: file,
      auditLogFormat: 'legacy',
      auditLogMaxSize: 5,
      auditLogMaxBackup: 3,
      auditLogMaxAge: 7,
      auditLogCompress: true,
    });
    expect(parseServeArgs(['--audit-log-path', '-'], dir)!.options.auditLogPath).toBe('-');
  });

  it.each([
    [['--audit-log-format', 'xml'], /invalid audit log format "xml"/],
    [['--audit-log-maxsize', '-1'], /--audit-log-maxsize/],
    [['--audit-log-maxbackup', 'many'], /--audit-log-maxbackup: "many" is not a whole number/],
    [['--audit-log-maxage', '1.5'], /--audit-log-maxage/],
  ])('%j is a usage error', (argv, msg) => {
    expect(() => parseServeArgs(argv, dir)).toThrow(msg);
  });
});

// ------------------------------------------------------------------------ through a server

describe('levels and stages through the server', () => {
  let ts: TestServer;
  const ns = uniqueName('audit');
  const quiet = uniqueName('audit-quiet');
  const events = (id: string) => ts.server.audit!.events.filter((e) => e.auditID === id);
  const settle = () => new Promise((r) => setTimeout(r, 30));

  beforeAll(async () => {
    const file = join(dir, 'levels.yaml');
    writeFileSync(
      file,
      toYaml({
        ...POLICY_HEAD,
        rules: [
          { level: 'None', nonResourceURLs: ['/version'] },
          { level: 'Metadata', namespaces: [quiet], omitStages: ['RequestReceived'] },
          {
            level: 'RequestResponse',
            verbs: ['get'],
            resources: [{ group: '', resources: ['configmaps'] }],
            omitManagedFields: true,
          },
          { level: 'RequestResponse', resources: [{ group: '', resources: ['configmaps'] }] },
          { level: 'Request', resources: [{ group: '', resources: ['secrets'] }] },
          { level: 'Metadata' },
        ],
      }),
    );
    ts = await startServer({ auditInMemory: 1000, auditPolicyFile: file });
    for (const n of [ns, quiet])
      expect(
        (
          await ts.req('POST', '/api/v1/namespaces', {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name: n },
          })
        ).status,
      ).toBe(201);
  });
  afterAll(() => ts?.close());

  it('RequestResponse: RequestReceived (who and what only), then ResponseComplete with the request and response objects', async () => {
    const sent = configMap('cm-1', { colour: 'blue' });
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps?fieldManager=auditor`, sent, {
      'audit-id': 'rr-create',
    });
    expect(r.status, r.text).toBe(201);
    await settle();
    const [received, complete, ...more] = events('rr-create');
    expect(more).toEqual([]);
    expect(received).toMatchObject({
      stage: 'RequestReceived',
      level: 'RequestResponse',
      verb: 'create',
      user: { username: 'orch-admin' },
    });
    expect(received!.responseStatus).toBeUndefined();
    expect(received!.requestObject).toBeUndefined();
    expect(complete).toMatchObject({
      stage: 'ResponseComplete',
      level: 'RequestResponse',
      responseStatus: { code: 201 },
      requestObject: sent,
      responseObject: {
        kind: 'ConfigMap',
        metadata: { name: 'cm-1', uid: r.json.metadata.uid },
        data: { colour: 'blue' },
      },
    });
    // managedFields kept: the rule does not omit them
    expect((complete!.responseObject as any).metadata.managedFields).toEqual(r.json.metadata.managedFields);
    expect(r.json.metadata.managedFields?.[0]?.manager).toBe('auditor');
  });

  it('omitManagedFields leaves managedFields out of the objects', async () => {
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/cm-1`, undefined, {
      'audit-id': 'rr-get',
    });
    expect(r.status).toBe(200);
    expect(r.json.metadata.managedFields).toBeDefined();
    await settle();
    const complete = events('rr-get').find((e) => e.stage === 'ResponseComplete')!;
    expect(complete.level).toBe('RequestResponse');
    expect((complete.responseObject as any).metadata.uid).toBe(r.json.metadata.uid);
    expect((complete.responseObject as any).metadata.managedFields).toBeUndefined();
  });

  it('Request: the request object, no response object', async () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { k: 'v' } };
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/secrets`, secret, { 'audit-id': 'req-secret' });
    expect(r.status, r.text).toBe(201);
    await settle();
    const complete = events('req-secret').find((e) => e.stage === 'ResponseComplete')!;
    expect(complete.level).toBe('Request');
    expect(complete.requestObject).toEqual(secret);
    expect(complete.responseObject).toBeUndefined();
  });

  it('Metadata: no objects; a YAML body is not read into the event either', async () => {
    const r = await ts.req('GET', '/api/v1/namespaces', undefined, { 'audit-id': 'md-list' });
    expect(r.status).toBe(200);
    await settle();
    const es = events('md-list');
    expect(es.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    for (const e of es) {
      expect(e.level).toBe('Metadata');
      expect(e.requestObject).toBeUndefined();
      expect(e.responseObject).toBeUndefined();
    }
  });

  it('None: no event at all', async () => {
    const r = await ts.req('GET', '/version', undefined, { 'audit-id': 'none-version' });
    expect(r.status).toBe(200);
    await settle();
    expect(events('none-version')).toEqual([]);
  });

  it('omitStages: the omitted stage is not written', async () => {
    const r = await ts.req('POST', `/api/v1/namespaces/${quiet}/configmaps`, configMap('q'), {
      'audit-id': 'quiet-create',
    });
    expect(r.status).toBe(201);
    await settle();
    expect(events('quiet-create').map((e) => [e.stage, e.level])).toEqual([['ResponseComplete', 'Metadata']]);
  });

  it('a watch: RequestReceived, ResponseStarted when its headers go out, ResponseComplete when it ends; later stages carry the annotations added before them', async () => {
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=1`, undefined, {
      'audit-id': 'watch-1',
    });
    expect(r.status).toBe(200);
    await settle();
    const es = events('watch-1');
    expect(es.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    const [received, started, complete] = es as [AuditEvent, AuditEvent, AuditEvent];
    expect(started.verb).toBe('watch');
    expect(started.responseStatus).toMatchObject({ code: 200 });
    // authorization runs after the request is received: its annotations are on the later events only
    expect(received.annotations?.['authorization.orch.io/decision']).toBeUndefined();
    expect(started.annotations?.['authorization.orch.io/decision']).toBe('allow');
    expect(complete.annotations?.['authorization.orch.io/decision']).toBe('allow');
    expect(complete.responseObject).toBeUndefined();
    expect(Date.parse(complete.stageTimestamp)).toBeGreaterThanOrEqual(
      Date.parse(started.stageTimestamp) + 900,
    );
  });

  it('an internal error: a Panic event (code 500) instead of ResponseComplete', async () => {
    ts.server.admission.addSource(() => [
      {
        name: 'test-breaks',
        handles: (a) => a.resource.resource === 'configmaps' && a.name === 'boom',
        validate() {
          throw new Error('broken on purpose');
        },
      },
    ]);
    const r = await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('boom'), {
      'audit-id': 'panic-1',
    });
    expect(r.status).toBe(500);
    await settle();
    const es = events('panic-1');
    expect(es.map((e) => e.stage)).toEqual(['RequestReceived', 'Panic']);
    expect(es[1]!.responseStatus).toMatchObject({ code: 500, status: 'Failure', reason: 'InternalError' });
    expect(es[1]!.responseObject).toMatchObject({ kind: 'Status', code: 500 });
  });

  it('a request refused before the policy judged it (authentication) is judged without a user', async () => {
    const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, {
      authorization: 'Bearer not-a-token',
      'audit-id': 'refused-1',
    });
    expect(r.status).toBe(401);
    await settle();
    // the configmaps rule (RequestResponse) applies: its one event is the last one, with the Status
    const [e, ...more] = events('refused-1');
    expect(more).toEqual([]);
    expect(e).toMatchObject({
      stage: 'ResponseComplete',
      level: 'RequestResponse',
      responseStatus: { code: 401 },
    });
    expect(e!.responseObject).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
  });
});

describe('without a policy file: every request at Metadata, one event when complete', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startServer({ auditInMemory: 100 });
  });
  afterAll(() => ts?.close());

  it('one ResponseComplete event per request, a watch included', async () => {
    await ts.req('GET', '/version', undefined, { 'audit-id': 'd-version' });
    await ts.req('GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1', undefined, {
      'audit-id': 'd-watch',
    });
    await new Promise((r) => setTimeout(r, 30));
    for (const id of ['d-version', 'd-watch']) {
      const es = ts.server.audit!.events.filter((e) => e.auditID === id);
      expect(es.map((e) => [e.stage, e.level])).toEqual([['ResponseComplete', 'Metadata']]);
    }
  });
});

// ------------------------------------------------------------------------ deprecation

describe('deprecation annotations (doc2 § Versioning)', () => {
  let ts: TestServer;
  const group = `${uniqueName('w')}.audit.orch.io`;
  const byId = (id: string) =>
    ts.server.audit!.events.find((e) => e.auditID === id && e.stage === 'ResponseComplete');
  const settle = () => new Promise((r) => setTimeout(r, 30));

  beforeAll(async () => {
    ts = await startServer({ auditInMemory: 500 });
  });
  afterAll(() => ts?.close());

  it('a custom resource version marked deprecated: orch.io/deprecated "true" and the Warning; its other version neither', async () => {
    const schema = {
      openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', 'x-orch-preserve-unknown-fields': true } },
      },
    };
    const crd = {
      apiVersion: 'apiextensions.orch.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [
          { name: 'v1', served: true, storage: true, schema },
          { name: 'v1beta1', served: true, storage: false, deprecated: true, schema },
          {
            name: 'v1alpha1',
            served: true,
            storage: false,
            deprecated: true,
            deprecationWarning: 'v1alpha1 goes away: use v1',
            schema,
          },
        ],
      },
    };
    const c = await ts.req('POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', crd);
    expect(c.status, c.text).toBe(201);
    let r: Awaited<ReturnType<TestServer['req']>> | undefined;
    for (let i = 0; i < 100; i++) {
      r = await ts.req('GET', `/apis/${group}/v1beta1/namespaces/default/widgets`, undefined, {
        'audit-id': `old-${i}`,
      });
      if (r.status === 200) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(r!.status, r!.text).toBe(200);
    expect(r!.headers.warning).toBe(`299 - "${group}/v1beta1 Widget is deprecated; use ${group}/v1 Widget"`);
    // a version with its own deprecationWarning: that text
    const own = await ts.req('GET', `/apis/${group}/v1alpha1/namespaces/default/widgets`, undefined, {
      'audit-id': 'own-text',
    });
    expect(own.status).toBe(200);
    expect(own.headers.warning).toBe('299 - "v1alpha1 goes away: use v1"');
    const current = await ts.req('GET', `/apis/${group}/v1/namespaces/default/widgets`, undefined, {
      'audit-id': 'current',
    });
    expect(current.status).toBe(200);
    expect(current.headers.warning).toBeUndefined();
    await settle();
    const old = ts.server
      .audit!.events.filter((e) => e.auditID.startsWith('old-') && e.responseStatus?.code === 200)
      .at(-1)!;
    expect(old.annotations?.['orch.io/deprecated']).toBe('true');
    // a custom resource version has no removal release
    expect(old.annotations?.['orch.io/removed-release']).toBeUndefined();
    expect(byId('own-text')!.annotations?.['orch.io/deprecated']).toBe('true');
    expect(byId('current')!.annotations?.['orch.io/deprecated']).toBeUndefined();
  });

  it('a version whose removal release is known: orch.io/removed-release too, on writes and reads alike', async () => {
    const base = ts.server.registry.byResource('', 'configmaps')!.def;
    const g = `removal.${group}`;
    const def: ResourceDef = {
      ...base,
      group: g,
      versions: ['v1', 'v1beta2'],
      versionInfo: {
        v1: { served: true, storage: true },
        v1beta2: {
          served: true,
          storage: false,
          deprecated: true,
          deprecatedIn: '1.26',
          removedIn: '1.29',
          replacement: `${g}/v1 ConfigMap`,
        },
      },
    };
    ts.server.registry.add(def);
    const body = { ...configMap('dep-1'), apiVersion: `${g}/v1beta2` };
    const w = await ts.req('POST', `/apis/${g}/v1beta2/namespaces/default/configmaps`, body, {
      'audit-id': 'removal-create',
    });
    expect(w.status, w.text).toBe(201);
    const rd = await ts.req('GET', `/apis/${g}/v1beta2/namespaces/default/configmaps/dep-1`, undefined, {
      'audit-id': 'removal-get',
    });
    expect(rd.status).toBe(200);
    const now = await ts.req('GET', `/apis/${g}/v1/namespaces/default/configmaps/dep-1`, undefined, {
      'audit-id': 'removal-v1',
    });
    expect(now.status).toBe(200);
    await settle();
    for (const id of ['removal-create', 'removal-get'])
      expect(byId(id)!.annotations).toMatchObject({
        'orch.io/deprecated': 'true',
        'orch.io/removed-release': '1.29',
      });
    expect(
      Object.keys(byId('removal-v1')!.annotations ?? {}).filter((k) => k.startsWith('orch.io/')),
    ).toEqual([]);
  });
});

// ------------------------------------------------------------------------ the log file

describe('the log file: rotation as Kubernetes 1.28 (lumberjack)', () => {
  const line = (i: number) => `${JSON.stringify({ n: i, pad: 'x'.repeat(20) })}\n`; // 40 bytes
  let clock = Date.UTC(2026, 0, 2, 3, 4, 5, 0);
  const now = () => new Date((clock += 7));

  it('a write that would pass maxsize renames the file <name>-<UTC 2006-01-02T15-04-05.000><ext>; maxbackup keeps the newest', async () => {
    const d = mkdtempSync(join(dir, 'rot-'));
    const f = new RotatingFile(join(d, 'audit.log'), { maxSizeMB: 1, megabyte: 100, maxBackups: 2, now });
    const start = clock;
    for (let i = 0; i < 10; i++) {
      f.write(line(i));
      await f.flush();
    }
    await f.close();
    // 100-byte files hold two 40-byte lines: rotations before lines 2, 4, 6, 8, at the clock's 1st..4th ticks
    const stamp = (t: number) => new Date(t).toISOString().replace(/:/g, '-').replace('Z', '');
    const backups = [3, 4].map((k) => `audit-${stamp(start + 7 * k)}.log`);
    expect(readdirSync(d).sort()).toEqual(['audit.log', ...backups].sort());
    expect(backups[0]).toBe('audit-2026-01-02T03-04-05.021.log');
    expect(readFileSync(join(d, backups[0]!), 'utf8')).toBe(line(4) + line(5));
    expect(readFileSync(join(d, backups[1]!), 'utf8')).toBe(line(6) + line(7));
    expect(readFileSync(join(d, 'audit.log'), 'utf8')).toBe(line(8) + line(9));
  });

  it('maxage removes backups older than that many days (by the time in their name); compress gzips the others', async () => {
    const d = mkdtempSync(join(dir, 'age-'));
    writeFileSync(join(d, 'audit-2020-01-01T00-00-00.000.log'), 'old\n');
    writeFileSync(join(d, 'audit-notatime.log'), 'not a backup\n');
    writeFileSync(join(d, 'audit.log'), line(0) + line(1));
    const f = new RotatingFile(join(d, 'audit.log'), {
      maxSizeMB: 1,
      megabyte: 100,
      maxAgeDays: 30,
      compress: true,
      now,
    });
    f.write(line(2)); // past 100 bytes: rotates
    await f.flush();
    await f.close();
    const names = readdirSync(d).sort();
    expect(names).not.toContain('audit-2020-01-01T00-00-00.000.log');
    expect(names).toContain('audit-notatime.log');
    const gz = names.filter((n) => n.endsWith('.log.gz'));
    expect(gz).toHaveLength(1);
    expect(gz[0]).toMatch(/^audit-2026-01-02T03-04-\d{2}\.\d{3}\.log\.gz$/);
    expect(gunzipSync(readFileSync(join(d, gz[0]!))).toString()).toBe(line(0) + line(1));
    expect(readFileSync(join(d, 'audit.log'), 'utf8')).toBe(line(2));
  });

  it('a server with --audit-log-maxsize 1 --audit-log-maxbackup 1 rotates its log and keeps one backup', async () => {
    const d = mkdtempSync(join(dir, 'srv-'));
    const policy = join(d, 'policy.yaml');
    writeFileSync(
      policy,
      toYaml({ ...POLICY_HEAD, omitStages: ['RequestReceived'], rules: [{ level: 'RequestResponse' }] }),
    );
    const ts = await startServer({
      auditPolicyFile: policy,
      auditLogPath: join(d, 'audit.log'),
      auditLogMaxSize: 1,
      auditLogMaxBackup: 1,
    });
    try {
      // each create's event holds ~200 KiB twice (request and response): 8 of them pass 1 MiB three times
      const big = 'x'.repeat(200 * 1024);
      for (let i = 0; i < 8; i++) {
        const r = await ts.req(
          'POST',
          '/api/v1/namespaces/default/configmaps',
          configMap(uniqueName('big'), { big }),
        );
        expect(r.status, r.text).toBe(201);
      }
    } finally {
      await ts.close();
    }
    const names = readdirSync(d)
      .filter((n) => n !== 'policy.yaml')
      .sort();
    expect(names).toHaveLength(2);
    expect(names[0]).toMatch(/^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/);
    expect(names[1]).toBe('audit.log');
    for (const n of names) {
      const text = readFileSync(join(d, n), 'utf8');
      expect(text.length).toBeLessThanOrEqual(1024 * 1024);
      // whole events only
      for (const l of text.trim().split('\n'))
        expect(JSON.parse(l)).toMatchObject({ kind: 'Event', level: 'RequestResponse' });
    }
  });

  it('a log path that cannot be written stops the start, the flag named', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    await expect(
      build({ inMemory: true, tls: false, auditLogPath: join(file, 'audit.log') }),
    ).rejects.toThrow(/^--audit-log-path: cannot write .*a-file\/audit\.log: /);
  });

  it("--audit-log-format=legacy: Kubernetes' one-line text", () => {
    const e: AuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.orch.io/v1',
      level: 'Metadata',
      auditID: 'id-1',
      stage: 'ResponseComplete',
      requestURI: '/api/v1/namespaces/default/pods?limit=1',
      verb: 'list',
      user: { username: 'alice', groups: ['devs', 'system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      userAgent: 'kubectl/v1.28.0',
      objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
      requestReceivedTimestamp: '2026-01-02T03:04:05.120000Z',
      stageTimestamp: '2026-01-02T03:04:05.130000Z',
    };
    expect(legacyLine(e)).toBe(
      '2026-01-02T03:04:05.12Z AUDIT: id="id-1" stage="ResponseComplete" ip="127.0.0.1" method="list" user="alice" ' +
        'groups="\\"devs\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.28.0" ' +
        'namespace="default" uri="/api/v1/namespaces/default/pods?limit=1" response="200"',
    );
    const anon = legacyLine({
      ...e,
      user: { username: '', groups: [] },
      objectRef: undefined,
      responseStatus: undefined,
      sourceIPs: [],
    });
    expect(anon).toContain('ip="<unknown>" method="list" user="<none>" groups="<none>"');
    expect(anon).toContain('namespace="<none>"');
    expect(anon).toMatch(/response="<deferred>"$/);
  });
});
