// ValidatingWebhookConfiguration and MutatingWebhookConfiguration (admissionregistration.orch.io/v1;
// doc3 "Webhook configuration objects", doc2 "Versioning"; Kubernetes 1.28 where they are
// silent): the v1 defaults, Kubernetes 1.28's validation of every webhook field with its field
// paths and messages, on create and on update, a round trip, discovery and the table columns.
// Expected values come from doc3 and Kubernetes 1.28, never from the server's output.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const GROUP = 'admissionregistration.orch.io';
const VALIDATING = `/apis/${GROUP}/v1/validatingwebhookconfigurations`;
const MUTATING = `/apis/${GROUP}/v1/mutatingwebhookconfigurations`;
const FORM = '; desired format: https://host[/path]';

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer();
});
afterAll(async () => {
  await ts?.close();
});

type Hook = Record<string, unknown>;

/** A webhook that is valid as it stands; rows change one thing in it. */
function hook(extra: Hook = {}): Hook {
  return {
    name: 'check.example.orch.io',
    clientConfig: { url: 'https://hooks.example.com/check' },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

function config(
  kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration',
  name: string,
  webhooks: Hook[],
) {
  return { apiVersion: `${GROUP}/v1`, kind, metadata: { name }, webhooks };
}

const pathOf = (mutating: boolean) => (mutating ? MUTATING : VALIDATING);
const kindOf = (mutating: boolean) =>
  mutating ? ('MutatingWebhookConfiguration' as const) : ('ValidatingWebhookConfiguration' as const);

async function create(mutating: boolean, webhooks: Hook[], name = uniqueName('wh')) {
  return ts.req('POST', pathOf(mutating), config(kindOf(mutating), name, webhooks));
}

interface Cause {
  field: string;
  reason: string;
  message: string;
}

function causes(json: any): Cause[] {
  return json?.details?.causes ?? [];
}

/** A refused write: 422 Invalid with a cause of this field, reason and exact message. */
function expectCause(r: { status: number; json: any }, want: Cause): void {
  expect(r.status, JSON.stringify(r.json)).toBe(422);
  expect(r.json.kind).toBe('Status');
  expect(r.json.reason).toBe('Invalid');
  expect(causes(r.json), JSON.stringify(causes(r.json))).toContainEqual(want);
}

const supported = (xs: string[]) => xs.map((x) => JSON.stringify(x)).join(', ');
const notSupported = (field: string, v: string, xs: string[]): Cause => ({
  field,
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(v)}: supported values: ${supported(xs)}`,
});
const invalid = (field: string, shown: string, detail: string): Cause => ({
  field,
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${shown}: ${detail}`,
});
const required = (field: string, detail = ''): Cause => ({
  field,
  reason: 'FieldValueRequired',
  message: detail ? `Required value: ${detail}` : 'Required value',
});
const q = (s: string) => JSON.stringify(s);
const goList = (xs: string[]) => `[]string{${xs.map(q).join(', ')}}`;

const W = 'webhooks[0]';
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** Invalid webhooks (both kinds), each with the cause Kubernetes 1.28 answers. */
const INVALID: [string, Hook[], Cause][] = [
  [
    'a webhook name of two segments',
    [hook({ name: 'example.com' })],
    invalid(
      `${W}.name`,
      q('example.com'),
      'should be a domain with at least three segments separated by dots',
    ),
  ],
  [
    'a webhook name that is no subdomain',
    [hook({ name: 'Check.Example.com' })],
    invalid(`${W}.name`, q('Check.Example.com'), SUBDOMAIN),
  ],
  ['no webhook name', [hook({ name: '' })], required(`${W}.name`)],
  [
    'a duplicate webhook name',
    [hook(), hook()],
    {
      field: 'webhooks[1].name',
      reason: 'FieldValueDuplicate',
      message: `Duplicate value: ${q('check.example.orch.io')}`,
    },
  ],
  [
    'an unknown operation',
    [hook({ rules: [{ operations: ['PATCH'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })],
    notSupported(`${W}.rules[0].operations[0]`, 'PATCH', ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE']),
  ],
  [
    'no operations',
    [hook({ rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })],
    required(`${W}.rules[0].operations`),
  ],
  [
    "'*' with another operation",
    [
      hook({
        rules: [{ operations: ['*', 'CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      }),
    ],
    invalid(
      `${W}.rules[0].operations`,
      goList(['*', 'CREATE']),
      "if '*' is present, must not specify other operations",
    ),
  ],
  [
    'no apiGroups',
    [hook({ rules: [{ operations: ['CREATE'], apiVersions: ['v1'], resources: ['pods'] }] })],
    required(`${W}.rules[0].apiGroups`),
  ],
  [
    "'*' with another group",
    [
      hook({
        rules: [
          { operations: ['CREATE'], apiGroups: ['*', 'apps'], apiVersions: ['v1'], resources: ['pods'] },
        ],
      }),
    ],
    invalid(
      `${W}.rules[0].apiGroups`,
      goList(['*', 'apps']),
      "if '*' is present, must not specify other API groups",
    ),
  ],
  [
    "'*' with another version",
    [
      hook({
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['*', 'v1'], resources: ['pods'] }],
      }),
    ],
    invalid(
      `${W}.rules[0].apiVersions`,
      goList(['*', 'v1']),
      "if '*' is present, must not specify other API versions",
    ),
  ],
  [
    'an empty version',
    [hook({ rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: [''], resources: ['pods'] }] })],
    required(`${W}.rules[0].apiVersions[0]`),
  ],
  [
    'no resources',
    [hook({ rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'] }] })],
    required(`${W}.rules[0].resources`),
  ],
  [
    "'*/*' with another resource",
    [
      hook({
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['*/*', 'pods'] }],
      }),
    ],
    invalid(
      `${W}.rules[0].resources`,
      goList(['*/*', 'pods']),
      "if '*/*' is present, must not specify other resources",
    ),
  ],
  [
    "'*' with a resource without subresource",
    [
      hook({
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['*', 'pods'] }],
      }),
    ],
    invalid(
      `${W}.rules[0].resources`,
      goList(['*', 'pods']),
      "if '*' is present, must not specify other resources without subresources",
    ),
  ],
  [
    "'pods/*' then 'pods/status'",
    [
      hook({
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['pods/*', 'pods/status'],
          },
        ],
      }),
    ],
    invalid(
      `${W}.rules[0].resources[1]`,
      q('pods/status'),
      "if 'pods/*' is present, must not specify pods/status",
    ),
  ],
  [
    "'*/status' then 'pods/status'",
    [
      hook({
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['*/status', 'pods/status'],
          },
        ],
      }),
    ],
    invalid(
      `${W}.rules[0].resources[1]`,
      q('pods/status'),
      "if '*/status' is present, must not specify pods/status",
    ),
  ],
  [
    'an unknown scope',
    [
      hook({
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['pods'],
            scope: 'Global',
          },
        ],
      }),
    ],
    notSupported(`${W}.rules[0].scope`, 'Global', ['*', 'Cluster', 'Namespaced']),
  ],
  [
    'an unknown failurePolicy',
    [hook({ failurePolicy: 'Retry' })],
    notSupported(`${W}.failurePolicy`, 'Retry', ['Fail', 'Ignore']),
  ],
  [
    'an unknown matchPolicy',
    [hook({ matchPolicy: 'Loose' })],
    notSupported(`${W}.matchPolicy`, 'Loose', ['Equivalent', 'Exact']),
  ],
  [
    'no sideEffects',
    [hook({ sideEffects: undefined })],
    required(`${W}.sideEffects`, 'must specify one of None, NoneOnDryRun'),
  ],
  [
    'sideEffects Some (v1beta1 only)',
    [hook({ sideEffects: 'Some' })],
    notSupported(`${W}.sideEffects`, 'Some', ['None', 'NoneOnDryRun']),
  ],
  [
    'timeoutSeconds 31',
    [hook({ timeoutSeconds: 31 })],
    invalid(`${W}.timeoutSeconds`, '31', 'the timeout value must be between 1 and 30 seconds'),
  ],
  [
    'timeoutSeconds 0',
    [hook({ timeoutSeconds: 0 })],
    invalid(`${W}.timeoutSeconds`, '0', 'the timeout value must be between 1 and 30 seconds'),
  ],
  [
    'a namespaceSelector with a bad operator',
    [hook({ namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'Equals', values: ['a'] }] } })],
    invalid(
      `${W}.namespaceSelector.matchExpressions[0].operator`,
      q('Equals'),
      'not a valid selector operator',
    ),
  ],
  [
    'an objectSelector In without values',
    [hook({ objectSelector: { matchExpressions: [{ key: 'env', operator: 'In' }] } })],
    required(
      `${W}.objectSelector.matchExpressions[0].values`,
      "must be specified when `operator` is 'In' or 'NotIn'",
    ),
  ],
  [
    'both url and service',
    [hook({ clientConfig: { url: 'https://a.example.com', service: { namespace: 'ns', name: 'svc' } } })],
    required(`${W}.clientConfig`, 'exactly one of url or service is required'),
  ],
  [
    'neither url nor service',
    [hook({ clientConfig: {} })],
    required(`${W}.clientConfig`, 'exactly one of url or service is required'),
  ],
  [
    'an http URL',
    [hook({ clientConfig: { url: 'http://x' } })],
    invalid(`${W}.clientConfig.url`, q('http'), `'https' is the only allowed URL scheme${FORM}`),
  ],
  [
    'a URL without host',
    [hook({ clientConfig: { url: 'https:///path' } })],
    invalid(`${W}.clientConfig.url`, q(''), `host must be specified${FORM}`),
  ],
  [
    'a relative URL',
    [hook({ clientConfig: { url: 'hooks.example.com/check' } })],
    invalid(`${W}.clientConfig.url`, q(''), `'https' is the only allowed URL scheme${FORM}`),
  ],
  [
    'a URL with user info',
    [hook({ clientConfig: { url: 'https://admin:secret@hooks.example.com/' } })],
    invalid(`${W}.clientConfig.url`, q('admin:secret'), 'user information is not permitted in the URL'),
  ],
  [
    'a URL with a fragment',
    [hook({ clientConfig: { url: 'https://hooks.example.com/check#frag' } })],
    invalid(`${W}.clientConfig.url`, q('frag'), 'fragments are not permitted in the URL'),
  ],
  [
    'a URL with a query',
    [hook({ clientConfig: { url: 'https://hooks.example.com/check?a=b' } })],
    invalid(`${W}.clientConfig.url`, q('a=b'), 'query parameters are not permitted in the URL'),
  ],
  [
    'a URL Go cannot parse',
    [hook({ clientConfig: { url: '://x' } })],
    required(
      `${W}.clientConfig.url`,
      `url must be a valid URL: parse "://x": missing protocol scheme${FORM}`,
    ),
  ],
  [
    'a URL with an unclosed IPv6 host',
    [hook({ clientConfig: { url: 'https://[::1' } })],
    required(
      `${W}.clientConfig.url`,
      `url must be a valid URL: parse "https://[::1": missing ']' in host${FORM}`,
    ),
  ],
  [
    'a URL with a bad escape',
    [hook({ clientConfig: { url: 'https://x/%zz' } })],
    required(
      `${W}.clientConfig.url`,
      `url must be a valid URL: parse "https://x/%zz": invalid URL escape "%zz"${FORM}`,
    ),
  ],
  [
    'a service without name',
    [hook({ clientConfig: { service: { namespace: 'ns' } } })],
    required(`${W}.clientConfig.service.name`, 'service name is required'),
  ],
  [
    'a service without namespace',
    [hook({ clientConfig: { service: { name: 'svc' } } })],
    required(`${W}.clientConfig.service.namespace`, 'service namespace is required'),
  ],
  [
    'a service port 0',
    [hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', port: 0 } } })],
    invalid(
      `${W}.clientConfig.service.port`,
      '0',
      'port is not valid: must be between 1 and 65535, inclusive',
    ),
  ],
  [
    'a service port 65536',
    [hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', port: 65536 } } })],
    invalid(
      `${W}.clientConfig.service.port`,
      '65536',
      'port is not valid: must be between 1 and 65535, inclusive',
    ),
  ],
  [
    'a service path without leading slash',
    [hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: 'check' } } })],
    invalid(`${W}.clientConfig.service.path`, q('check'), "must start with a '/'"),
  ],
  [
    'a service path with an empty segment',
    [hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/a//b' } } })],
    invalid(`${W}.clientConfig.service.path`, q('/a//b'), 'segment[1] may not be empty'),
  ],
  [
    'a service path segment that is no subdomain',
    [hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/Check' } } })],
    invalid(`${W}.clientConfig.service.path`, q('/Check'), `segment[0]: ${SUBDOMAIN}`),
  ],
  [
    'no admissionReviewVersions',
    [hook({ admissionReviewVersions: [] })],
    required(`${W}.admissionReviewVersions`, 'must specify one of v1, v1beta1'),
  ],
  [
    'only unknown admissionReviewVersions',
    [hook({ admissionReviewVersions: ['v2'] })],
    invalid(`${W}.admissionReviewVersions`, goList(['v2']), 'must include at least one of v1, v1beta1'),
  ],
  [
    'a duplicate admissionReviewVersion',
    [hook({ admissionReviewVersions: ['v1', 'v1'] })],
    invalid(`${W}.admissionReviewVersions[1]`, q('v1'), 'duplicate version'),
  ],
  [
    'a match condition without expression',
    [hook({ matchConditions: [{ name: 'a', expression: '  ' }] })],
    required(`${W}.matchConditions[0].expression`),
  ],
  [
    'a match condition without name',
    [hook({ matchConditions: [{ name: '', expression: 'true' }] })],
    required(`${W}.matchConditions[0].name`),
  ],
  [
    'duplicate match condition names',
    [
      hook({
        matchConditions: [
          { name: 'a', expression: 'true' },
          { name: 'a', expression: 'false' },
        ],
      }),
    ],
    {
      field: `${W}.matchConditions[1].name`,
      reason: 'FieldValueDuplicate',
      message: `Duplicate value: ${q('a')}`,
    },
  ],
  [
    'a match condition that is not bool',
    [hook({ matchConditions: [{ name: 'a', expression: "'yes'" }] })],
    invalid(`${W}.matchConditions[0].expression`, q("'yes'"), 'must evaluate to bool'),
  ],
  [
    "a match condition reading the request's object (the request has none)",
    [hook({ matchConditions: [{ name: 'a', expression: 'request.object == null' }] })],
    invalid(
      `${W}.matchConditions[0].expression`,
      q('request.object == null'),
      "compilation failed: ERROR: <input>:1:8: undefined field 'object'\n | request.object == null\n | .......^",
    ),
  ],
  [
    '65 match conditions',
    [
      hook({
        matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })),
      }),
    ],
    {
      field: `${W}.matchConditions`,
      reason: 'FieldValueTooMany',
      message: 'Too many: 65: must have at most 64 items',
    },
  ],
];

describe('webhook configurations: validation on create (both kinds)', () => {
  for (const mutating of [false, true])
    it.each(INVALID)(`${kindOf(mutating)}: %s is refused`, async (_say, webhooks, want) => {
      const name = uniqueName('bad');
      const r = await create(mutating, webhooks, name);
      expectCause(r, want);
      expect((await ts.req('GET', `${pathOf(mutating)}/${name}`)).status).toBe(404);
    });

  it('a match condition that does not compile names the compiler error', async () => {
    const r = await create(false, [hook({ matchConditions: [{ name: 'a', expression: 'nope == 1' }] })]);
    expect(r.status).toBe(422);
    const c = causes(r.json).find((x) => x.field === `${W}.matchConditions[0].expression`);
    expect(c?.reason).toBe('FieldValueInvalid');
    expect(c?.message).toContain(
      `Invalid value: ${q('nope == 1')}: compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope'`,
    );
  });

  it('an invalid object name (not a DNS subdomain)', async () => {
    const r = await create(false, [hook()], 'Not_A_Name');
    expectCause(r, invalid('metadata.name', q('Not_A_Name'), SUBDOMAIN));
  });

  it('a reinvocationPolicy other than Never and IfNeeded (mutating)', async () => {
    const r = await create(true, [hook({ reinvocationPolicy: 'Always' })]);
    expectCause(r, notSupported(`${W}.reinvocationPolicy`, 'Always', ['IfNeeded', 'Never']));
  });

  it('a caBundle that is not base64 is a 400', async () => {
    const r = await create(false, [
      hook({ clientConfig: { url: 'https://a.example.com', caBundle: '!!!' } }),
    ]);
    expect(r.status).toBe(400);
    expect(r.json.kind).toBe('Status');
  });

  it('several violations in one answer', async () => {
    const r = await create(false, [
      hook({ timeoutSeconds: 99, failurePolicy: 'Maybe', clientConfig: { url: 'http://x' } }),
    ]);
    expect(r.status).toBe(422);
    expect(causes(r.json).map((c) => c.field)).toEqual(
      expect.arrayContaining([`${W}.timeoutSeconds`, `${W}.failurePolicy`, `${W}.clientConfig.url`]),
    );
  });
});

/** Valid webhooks: each is created (201). */
const VALID: [string, Hook[]][] = [
  ['a URL with a port and a path', [hook({ clientConfig: { url: 'https://hooks.example.com:8443/a/b' } })]],
  [
    'a service with path and port',
    [
      hook({
        clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/validate/pods', port: 8443 } },
      }),
    ],
  ],
  [
    'every resource pattern',
    [
      hook({
        rules: [
          { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] },
          {
            operations: ['UPDATE', 'DELETE', 'CONNECT'],
            apiGroups: ['', 'apps'],
            apiVersions: ['v1'],
            resources: ['*/*'],
          },
          {
            operations: ['CREATE'],
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            resources: ['deployments/*', '*/status'],
          },
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['*', 'pods/status'],
            scope: 'Namespaced',
          },
        ],
      }),
    ],
  ],
  ['no rules at all', [hook({ rules: [] })]],
  [
    'sideEffects NoneOnDryRun, matchPolicy Exact, failurePolicy Ignore, timeout 30',
    [
      hook({
        sideEffects: 'NoneOnDryRun',
        matchPolicy: 'Exact',
        failurePolicy: 'Ignore',
        timeoutSeconds: 30,
      }),
    ],
  ],
  [
    'admissionReviewVersions with an unknown one first',
    [hook({ admissionReviewVersions: ['v2', 'v1beta1'] })],
  ],
  [
    'selectors with expressions',
    [
      hook({
        namespaceSelector: {
          matchExpressions: [{ key: 'orch.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }],
        },
        objectSelector: { matchLabels: { 'webhook.example.com/enabled': 'true' } },
      }),
    ],
  ],
  [
    'match conditions on every variable',
    [
      hook({
        matchConditions: [
          { name: 'not-lease', expression: "request.resource.resource != 'leases'" },
          { name: 'labelled', expression: "has(object.metadata.labels) && 'x' in object.metadata.labels" },
          { name: 'old', expression: 'oldObject == null || oldObject.metadata.name != ""' },
          {
            name: 'example.com/allowed',
            expression: "authorizer.group('').resource('pods').check('get').allowed()",
          },
        ],
      }),
    ],
  ],
  [
    '64 match conditions',
    [
      hook({
        matchConditions: Array.from({ length: 64 }, (_, i) => ({ name: `c${i}`, expression: 'true' })),
      }),
    ],
  ],
  ['two webhooks with different names', [hook(), hook({ name: 'other.example.orch.io' })]],
  ['no webhooks', []],
];

describe('webhook configurations: valid objects (both kinds)', () => {
  for (const mutating of [false, true])
    it.each(VALID)(`${kindOf(mutating)}: %s is created`, async (_say, webhooks) => {
      const r = await create(mutating, webhooks);
      expect(r.status, JSON.stringify(r.json)).toBe(201);
    });
});

describe('webhook configurations: v1 defaults', () => {
  it('a validating webhook gets failurePolicy Fail, matchPolicy Equivalent, empty selectors, timeout 10, scope *, port 443', async () => {
    const r = await create(false, [hook({ clientConfig: { service: { namespace: 'ns', name: 'svc' } } })]);
    expect(r.status).toBe(201);
    const w = r.json.webhooks[0];
    expect(w.failurePolicy).toBe('Fail');
    expect(w.matchPolicy).toBe('Equivalent');
    expect(w.namespaceSelector).toEqual({});
    expect(w.objectSelector).toEqual({});
    expect(w.timeoutSeconds).toBe(10);
    expect(w.rules[0].scope).toBe('*');
    expect(w.clientConfig.service.port).toBe(443);
    expect(w.clientConfig.service.path).toBeUndefined();
    expect(w.reinvocationPolicy).toBeUndefined();
    expect(r.json.metadata.generation).toBe(1);
  });

  it('a mutating webhook also gets reinvocationPolicy Never', async () => {
    const r = await create(true, [hook()]);
    expect(r.status).toBe(201);
    expect(r.json.webhooks[0]).toMatchObject({
      reinvocationPolicy: 'Never',
      failurePolicy: 'Fail',
      timeoutSeconds: 10,
    });
  });

  it('given values are kept', async () => {
    const r = await create(true, [
      hook({
        failurePolicy: 'Ignore',
        matchPolicy: 'Exact',
        timeoutSeconds: 5,
        reinvocationPolicy: 'IfNeeded',
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['pods'],
            scope: 'Cluster',
          },
        ],
      }),
    ]);
    expect(r.status).toBe(201);
    expect(r.json.webhooks[0]).toMatchObject({
      failurePolicy: 'Ignore',
      matchPolicy: 'Exact',
      timeoutSeconds: 5,
      reinvocationPolicy: 'IfNeeded',
    });
    expect(r.json.webhooks[0].rules[0].scope).toBe('Cluster');
  });

  it('an empty failurePolicy is a value, not an absence: refused', async () => {
    const r = await create(false, [hook({ failurePolicy: '' })]);
    expectCause(r, notSupported(`${W}.failurePolicy`, '', ['Fail', 'Ignore']));
  });
});

describe('webhook configurations: update, round trip, table, discovery', () => {
  it('an update is validated as a create is, and the generation follows the webhooks', async () => {
    const name = uniqueName('upd');
    const c = await create(false, [hook()], name);
    expect(c.status).toBe(201);
    const bad = { ...c.json, webhooks: [{ ...c.json.webhooks[0], clientConfig: { url: 'http://x' } }] };
    const r1 = await ts.req('PUT', `${VALIDATING}/${name}`, bad);
    expectCause(
      r1,
      invalid(`${W}.clientConfig.url`, q('http'), `'https' is the only allowed URL scheme${FORM}`),
    );
    const dup = { ...c.json, webhooks: [c.json.webhooks[0], c.json.webhooks[0]] };
    expectCause(await ts.req('PUT', `${VALIDATING}/${name}`, dup), {
      field: 'webhooks[1].name',
      reason: 'FieldValueDuplicate',
      message: `Duplicate value: ${q('check.example.orch.io')}`,
    });
    const good = { ...c.json, webhooks: [{ ...c.json.webhooks[0], timeoutSeconds: 3 }] };
    const r2 = await ts.req('PUT', `${VALIDATING}/${name}`, good);
    expect(r2.status, JSON.stringify(r2.json)).toBe(200);
    expect(r2.json.webhooks[0].timeoutSeconds).toBe(3);
    expect(r2.json.metadata.generation).toBe(2);
  });

  it('an update that drops a defaulted field gets the default again', async () => {
    const name = uniqueName('upd');
    const c = await create(true, [hook()], name);
    const { timeoutSeconds: _t, reinvocationPolicy: _r, ...rest } = c.json.webhooks[0];
    const r = await ts.req('PUT', `${MUTATING}/${name}`, { ...c.json, webhooks: [rest] });
    expect(r.status).toBe(200);
    expect(r.json.webhooks[0]).toMatchObject({ timeoutSeconds: 10, reinvocationPolicy: 'Never' });
  });

  it('round trip: what was written is read back, caBundle included', async () => {
    const name = uniqueName('rt');
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString(
      'base64',
    );
    const sent = hook({
      clientConfig: { url: 'https://hooks.example.com/v', caBundle: ca },
      matchConditions: [{ name: 'skip-leases', expression: "request.resource.resource != 'leases'" }],
      failurePolicy: 'Ignore',
      matchPolicy: 'Exact',
      timeoutSeconds: 7,
      namespaceSelector: { matchLabels: { team: 'a' } },
      objectSelector: {},
    });
    const c = await create(false, [sent], name);
    expect(c.status).toBe(201);
    const g = await ts.req('GET', `${VALIDATING}/${name}`);
    expect(g.status).toBe(200);
    expect(g.json.apiVersion).toBe(`${GROUP}/v1`);
    expect(g.json.kind).toBe('ValidatingWebhookConfiguration');
    expect(g.json.webhooks).toEqual([{ ...sent, rules: [{ ...(sent.rules as Hook[])[0], scope: '*' }] }]);
    const l = await ts.req('GET', VALIDATING);
    expect(l.json.kind).toBe('ValidatingWebhookConfigurationList');
    expect(l.json.items.some((i: any) => i.metadata.name === name)).toBe(true);
    expect((await ts.req('DELETE', `${VALIDATING}/${name}`)).status).toBe(200);
    expect((await ts.req('GET', `${VALIDATING}/${name}`)).status).toBe(404);
  });

  it('the table: Name, Webhooks (a count), Age', async () => {
    const name = uniqueName('tbl');
    await create(true, [hook(), hook({ name: 'two.example.orch.io' })], name);
    const r = await ts.req('GET', MUTATING, undefined, {
      accept: 'application/json;as=Table;g=meta.orch.io;v=v1',
    });
    expect(r.status).toBe(200);
    expect(r.json.columnDefinitions.map((c: any) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Webhooks', 'integer'],
      ['Age', 'string'],
    ]);
    const row = r.json.rows.find((x: any) => x.cells[0] === name);
    expect(row.cells[1]).toBe(2);
  });

  it('discovery: both kinds, cluster-scoped, every verb, category api-extensions', async () => {
    const r = await ts.req('GET', `/apis/${GROUP}/v1`);
    expect(r.status).toBe(200);
    for (const [plural, kind] of [
      ['validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'],
      ['mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'],
    ]) {
      const res = r.json.resources.find((x: any) => x.name === plural);
      expect(res, plural).toMatchObject({ kind, namespaced: false, categories: ['api-extensions'] });
      expect([...res.verbs].sort()).toEqual([
        'create',
        'delete',
        'deletecollection',
        'get',
        'list',
        'patch',
        'update',
        'watch',
      ]);
    }
  });
});

/** Every path of a JSON value (objects and lists), the root included. */
function pathsOf(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(v))
    v.forEach((x, i) => {
      out.push(...pathsOf(x, [...at, i]));
    });
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) out.push(...pathsOf(x, [...at, k]));
  return out;
}

function setAt(v: any, path: (string | number)[], value: unknown): any {
  if (path.length === 0) return value;
  const copy = Array.isArray(v) ? [...v] : { ...v };
  copy[path[0]!] = setAt(v?.[path[0]!], path.slice(1), value);
  return copy;
}

describe('webhook configurations: bad input', () => {
  const full = hook({
    clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/v', port: 443 }, caBundle: 'AAAA' },
    matchConditions: [{ name: 'a', expression: 'true' }],
    namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] },
    objectSelector: { matchLabels: { a: 'b' } },
    reinvocationPolicy: 'Never',
    timeoutSeconds: 5,
  });
  const PATHS = pathsOf([full]);

  it('a webhook with any one value replaced by any JSON value is answered below 500, a refusal with a Status', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(fc.tuple(fc.constantFrom(...PATHS), fc.jsonValue({ maxDepth: 2 })), {
          minLength: 1,
          maxLength: 3,
        }),
        async (mutating, changes) => {
          let webhooks: any = [full];
          for (const [path, value] of changes) webhooks = setAt(webhooks, path, value);
          const r = await ts.req('POST', pathOf(mutating), {
            ...config(kindOf(mutating), uniqueName('fz'), []),
            webhooks,
          });
          expect(r.status, JSON.stringify({ webhooks, answer: r.json })).toBeLessThan(500);
          if (r.status >= 400) expect(r.json?.kind).toBe('Status');
        },
      ),
      { numRuns: 300 },
    );
  });
});
