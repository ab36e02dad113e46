// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.orch.io
// v1beta1 and v1alpha1; doc3's plugin table row ValidatingAdmissionPolicy, doc2's expression
// language; Kubernetes 1.28 where they are silent): off unless --runtime-config switches the
// group versions on, the policy plugin idle unless the ValidatingAdmissionPolicy gate is on;
// 1.28's defaults and validation; Deny, Warn and Audit; parameters; failure policy; variables;
// message expressions and reasons; audit annotations; the runtime cost budget.
// Expected values come from Kubernetes 1.28's behaviour, never from the server's output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/config.ts';
import { configMap, startServer, type TestServer, uniqueName } from './helpers.ts';

const GROUP = 'admissionregistration.orch.io';
const POLICIES = `/apis/${GROUP}/v1beta1/validatingadmissionpolicies`;
const BINDINGS = `/apis/${GROUP}/v1beta1/validatingadmissionpolicybindings`;
const ON = {
  runtimeConfig: `${GROUP}/v1beta1=true,${GROUP}/v1alpha1=true`,
  featureGates: { ...DEFAULTS.featureGates, ValidatingAdmissionPolicy: true },
  auditInMemory: 200,
};

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer(ON);
});
afterAll(async () => {
  await ts?.close();
});

type Rec = Record<string, unknown>;

function policy(name: string, spec: Rec = {}): Rec {
  return {
    apiVersion: `${GROUP}/v1beta1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            operations: ['CREATE', 'UPDATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
      },
      validations: [{ expression: "!has(object.data) || !('forbidden' in object.data)" }],
      ...spec,
    },
  };
}

function binding(name: string, policyName: string, spec: Rec = {}): Rec {
  return {
    apiVersion: `${GROUP}/v1beta1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'], ...spec },
  };
}

async function ns(labels: Record<string, string> = {}): Promise<string> {
  const name = uniqueName('vap');
  const r = await ts.req('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels },
  });
  expect(r.status).toBe(201);
  return name;
}

/** A policy and binding, both created, scoped to one namespace by a label. */
async function install(p: Rec, b: Rec): Promise<void> {
  const rp = await ts.req('POST', POLICIES, p);
  expect(rp.status, rp.text).toBe(201);
  const rb = await ts.req('POST', BINDINGS, b);
  expect(rb.status, rb.text).toBe(201);
}

const only = (n: string) => ({ namespaceSelector: { matchLabels: { 'orch.io/metadata.name': n } } });

describe('served only when switched on (Kubernetes 1.28: beta, off by default)', () => {
  it('a default server serves neither version, nor lists them in discovery', async () => {
    const plain = await startServer();
    try {
      expect((await plain.req('GET', POLICIES)).status).toBe(404);
      expect(
        (await plain.req('GET', `/apis/${GROUP}/v1alpha1/validatingadmissionpolicybindings`)).status,
      ).toBe(404);
      const g = await plain.req('GET', `/apis/${GROUP}`);
      expect(g.json.versions.map((v: Rec) => v.version)).toEqual(['v1']);
    } finally {
      await plain.close();
    }
  });

  it('--runtime-config serves both versions; v1 stays preferred', async () => {
    const g = await ts.req('GET', `/apis/${GROUP}`);
    expect(g.json.versions.map((v: Rec) => v.version)).toEqual(['v1', 'v1beta1', 'v1alpha1']);
    expect(g.json.preferredVersion.version).toBe('v1');
    const rl = await ts.req('GET', `/apis/${GROUP}/v1beta1`);
    const names = rl.json.resources.map((r: Rec) => r.name).sort();
    expect(names).toEqual([
      'validatingadmissionpolicies',
      'validatingadmissionpolicies/status',
      'validatingadmissionpolicybindings',
    ]);
  });

  it('without the gate, stored policies are not enforced', async () => {
    const off = await startServer({ runtimeConfig: ON.runtimeConfig });
    try {
      const n = uniqueName('p');
      expect((await off.req('POST', POLICIES, policy(n))).status).toBe(201);
      expect((await off.req('POST', BINDINGS, binding(n, n))).status).toBe(201);
      const r = await off.req(
        'POST',
        '/api/v1/namespaces/default/configmaps',
        configMap(uniqueName('cm'), { forbidden: 'x' }),
      );
      expect(r.status).toBe(201);
    } finally {
      await off.close();
    }
  });
});

describe('defaults and validation (Kubernetes 1.28)', () => {
  it('defaults failurePolicy, matchPolicy, selectors, rule scope; parameterNotFoundAction in v1alpha1 only', async () => {
    const n = uniqueName('p');
    const r = await ts.req(
      'POST',
      POLICIES,
      policy(n, { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.failurePolicy).toBe('Fail');
    expect(r.json.spec.matchConstraints.matchPolicy).toBe('Equivalent');
    expect(r.json.spec.matchConstraints.namespaceSelector).toEqual({});
    expect(r.json.spec.matchConstraints.objectSelector).toEqual({});
    expect(r.json.spec.matchConstraints.resourceRules[0].scope).toBe('*');
    expect(r.json.metadata.generation).toBe(1);
    // v1beta1 has no default: the field is required
    const beta = await ts.req(
      'POST',
      BINDINGS,
      binding(n, n, { paramRef: { name: 'x', namespace: 'default' }, matchResources: {} }),
    );
    expect(beta.status, beta.text).toBe(422);
    expect(beta.json.details.causes).toContainEqual({
      reason: 'FieldValueRequired',
      field: 'spec.paramRef.parameterNotFoundAction',
      message: 'Required value',
    });
    const b = await ts.req('POST', BINDINGS.replace('/v1beta1/', '/v1alpha1/'), {
      ...binding(n, n, { paramRef: { name: 'x', namespace: 'default' }, matchResources: {} }),
      apiVersion: `${GROUP}/v1alpha1`,
    });
    expect(b.status, b.text).toBe(201);
    expect(b.json.spec.paramRef.parameterNotFoundAction).toBe('Deny');
    expect(b.json.spec.matchResources.matchPolicy).toBe('Equivalent');
    const read = await ts.req('GET', `${BINDINGS}/${n}`);
    expect(read.json.spec.paramRef.parameterNotFoundAction).toBe('Deny');
    // the binding would refuse every configmap write (its parameter is missing): gone again
    expect((await ts.req('DELETE', `${BINDINGS}/${n}`)).status).toBe(200);
  });

  const bad: [string, Rec, string, string, string][] = [
    [
      'no matchConstraints',
      { matchConstraints: undefined },
      'spec.matchConstraints',
      'FieldValueRequired',
      'Required value',
    ],
    [
      'no resourceRules',
      { matchConstraints: {} },
      'spec.matchConstraints.resourceRules',
      'FieldValueRequired',
      'Required value',
    ],
    [
      'neither validations nor auditAnnotations',
      { validations: [] },
      'spec.validations',
      'FieldValueRequired',
      'Required value: validations or auditAnnotations must contain at least one item',
    ],
    [
      'an expression that does not compile',
      { validations: [{ expression: 'object.' }] },
      'spec.validations[0].expression',
      'FieldValueInvalid',
      'Invalid value: "object.": compilation failed: ERROR:',
    ],
    [
      'an expression that is not a bool',
      { validations: [{ expression: "'a'" }] },
      'spec.validations[0].expression',
      'FieldValueInvalid',
      `Invalid value: "'a'": must evaluate to bool`,
    ],
    [
      'params without paramKind',
      { validations: [{ expression: 'params.x == 1' }] },
      'spec.validations[0].expression',
      'FieldValueInvalid',
      "undeclared reference to 'params'",
    ],
    [
      'an unknown reason',
      { validations: [{ expression: 'true', reason: 'Teapot' }] },
      'spec.validations[0].reason',
      'FieldValueNotSupported',
      'Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"',
    ],
    [
      'a message with a line break',
      { validations: [{ expression: 'true', message: 'a\nb' }] },
      'spec.validations[0].message',
      'FieldValueInvalid',
      'message must not contain line breaks',
    ],
    [
      'a messageExpression that is not a string',
      { validations: [{ expression: 'true', messageExpression: '1' }] },
      'spec.validations[0].messageExpression',
      'FieldValueInvalid',
      'Invalid value: "1": must evaluate to string',
    ],
    [
      'authorizer in a messageExpression',
      {
        validations: [
          { expression: 'true', messageExpression: "authorizer.path('/x').check('get').reason()" },
        ],
      },
      'spec.validations[0].messageExpression',
      'FieldValueInvalid',
      "undeclared reference to 'authorizer'",
    ],
    [
      'an unknown failurePolicy',
      { failurePolicy: 'Sometimes' },
      'spec.failurePolicy',
      'FieldValueNotSupported',
      'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
    ],
    [
      'a variable that is not an identifier',
      { variables: [{ name: 'a-b', expression: '1' }] },
      'spec.variables[0].name',
      'FieldValueInvalid',
      'Invalid value: "a-b": name is not a valid CEL identifier',
    ],
    [
      'a variable used before it is declared',
      {
        variables: [
          { name: 'a', expression: 'variables.b' },
          { name: 'b', expression: '1' },
        ],
      },
      'spec.variables[0].expression',
      'FieldValueInvalid',
      "undefined field 'b'",
    ],
    [
      'an audit annotation key that is not a qualified name',
      { auditAnnotations: [{ key: 'bad key', valueExpression: "'v'" }] },
      'spec.auditAnnotations[0].key',
      'FieldValueInvalid',
      'Invalid value:',
    ],
    [
      'an audit annotation value that is not a string',
      { auditAnnotations: [{ key: 'k', valueExpression: '1' }] },
      'spec.auditAnnotations[0].valueExpression',
      'FieldValueInvalid',
      'must evaluate to one of [string null_type]',
    ],
    [
      'a paramKind without a kind',
      { paramKind: { apiVersion: 'v1' } },
      'spec.paramKind.kind',
      'FieldValueRequired',
      'Required value',
    ],
    [
      'an unknown operation in a rule',
      {
        matchConstraints: {
          resourceRules: [
            { operations: ['READ'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
          ],
        },
      },
      'spec.matchConstraints.resourceRules[0].operations[0]',
      'FieldValueNotSupported',
      'Unsupported value: "READ"',
    ],
    [
      'a resource name with a slash',
      {
        matchConstraints: {
          resourceRules: [
            {
              resourceNames: ['a/b'],
              operations: ['*'],
              apiGroups: [''],
              apiVersions: ['v1'],
              resources: ['configmaps'],
            },
          ],
        },
      },
      'spec.matchConstraints.resourceRules[0].resourceNames[0]',
      'FieldValueInvalid',
      `Invalid value: "a/b": may not contain '/'`,
    ],
  ];
  it.each(bad)('a policy with %s is refused (422)', async (_what, spec, field, reason, message) => {
    const r = await ts.req('POST', POLICIES, policy(uniqueName('p'), spec));
    expect(r.status, r.text).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    const c = (r.json.details?.causes ?? []).find((x: Rec) => x.field === field);
    expect(c, r.text).toBeDefined();
    expect(c.reason).toBe(reason);
    expect(c.message).toContain(message);
  });

  const badBindings: [string, Rec, string, string, string][] = [
    ['no policyName', { policyName: '' }, 'spec.policyName', 'FieldValueRequired', 'Required value'],
    [
      'no validationActions',
      { validationActions: [] },
      'spec.validationActions',
      'FieldValueRequired',
      'Required value: at least one validation action is required',
    ],
    [
      'Deny with Warn',
      { validationActions: ['Deny', 'Warn'] },
      'spec.validationActions',
      'FieldValueInvalid',
      'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ],
    [
      'an unknown action',
      { validationActions: ['Block'] },
      'spec.validationActions[0]',
      'FieldValueNotSupported',
      'Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"',
    ],
    [
      'a paramRef with name and selector',
      { paramRef: { name: 'a', selector: {} } },
      'spec.paramRef.name',
      'FieldValueForbidden',
      'Forbidden: name and selector are mutually exclusive',
    ],
    [
      'a paramRef with neither name nor selector',
      { paramRef: { namespace: 'default' } },
      'spec.paramRef',
      'FieldValueRequired',
      'Required value: one of name or selector must be specified',
    ],
    [
      'an unknown parameterNotFoundAction',
      { paramRef: { name: 'a', parameterNotFoundAction: 'Maybe' } },
      'spec.paramRef.parameterNotFoundAction',
      'FieldValueNotSupported',
      'Unsupported value: "Maybe": supported values: "Deny", "Allow"',
    ],
  ];
  it.each(badBindings)('a binding with %s is refused (422)', async (_what, spec, field, reason, message) => {
    const r = await ts.req('POST', BINDINGS, binding(uniqueName('b'), 'some-policy', spec));
    expect(r.status, r.text).toBe(422);
    const c = (r.json.details?.causes ?? []).find((x: Rec) => x.field === field);
    expect(c, r.text).toBeDefined();
    expect(c.reason).toBe(reason);
    expect(c.message).toContain(message);
  });
});

describe('enforcement (gate on)', () => {
  it('Deny: 422 Invalid, NewForbidden wording, the message as the cause', async () => {
    const n = await ns();
    const p = uniqueName('p');
    await install(
      policy(p, {
        validations: [{ expression: "!('forbidden' in object.data)", message: 'no forbidden key' }],
      }),
      binding(p, p, { matchResources: only(n) }),
    );
    const r = await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('c1', { forbidden: 'x' }));
    expect(r.status, r.text).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    const msg = `ValidatingAdmissionPolicy '${p}' with binding '${p}' denied request: no forbidden key`;
    expect(r.json.message).toBe(`configmaps "c1" is forbidden: ${msg}`);
    expect(r.json.details).toMatchObject({ name: 'c1', kind: 'configmaps', causes: [{ message: msg }] });
    expect(
      (await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('c2', { ok: 'x' }))).status,
    ).toBe(201);
  });

  it('no message: `failed expression: <expression>`; a reason gives its code', async () => {
    const n = await ns();
    const p = uniqueName('p');
    await install(
      policy(p, { validations: [{ expression: "  !('forbidden' in object.data)  ", reason: 'Forbidden' }] }),
      binding(p, p, { matchResources: only(n) }),
    );
    const r = await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('c1', { forbidden: 'x' }));
    expect(r.status).toBe(403);
    expect(r.json.reason).toBe('Forbidden');
    expect(r.json.message).toContain("denied request: failed expression: !('forbidden' in object.data)");
  });

  it('messageExpression is used; a failing one falls back to message', async () => {
    const n = await ns();
    const p = uniqueName('p');
    await install(
      policy(p, {
        validations: [
          {
            expression: "!('a' in object.data)",
            message: 'static',
            messageExpression: "'key a in ' + object.metadata.name",
          },
          // a string (a dynamic field is no string: refused), failing at run time
          {
            expression: "!('b' in object.data)",
            message: 'static b',
            messageExpression: "'b: ' + object.missing",
          },
        ],
      }),
      binding(p, p, { matchResources: only(n) }),
    );
    const a = await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('ca', { a: '1' }));
    expect(a.json.message).toContain('denied request: key a in ca');
    const b = await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('cb', { b: '1' }));
    expect(b.json.message).toContain('denied request: static b');
  });

  it('Warn: admitted with a Warning header; Audit: admitted with the validation_failure annotation', async () => {
    const n = await ns();
    const p = uniqueName('p');
    await install(
      policy(p, { validations: [{ expression: "!('forbidden' in object.data)", message: 'bad key' }] }),
      binding(p, p, { matchResources: only(n), validationActions: ['Warn', 'Audit'] }),
    );
    const r = await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('c1', { forbidden: 'x' }));
    expect(r.status).toBe(201);
    const w = String(r.headers.warning ?? '');
    expect(w).toContain(
      `Validation failed for ValidatingAdmissionPolicy '${p}' with binding '${p}': bad key`,
    );
    const ev = ts.server
      .audit!.events.filter(
        (e: any) =>
          e.verb === 'create' && e.objectRef?.resource === 'configmaps' && e.objectRef?.namespace === n,
      )
      .at(-1) as any;
    const v = ev?.annotations?.['validation.policy.admission.orch.io/validation_failure'];
    expect(JSON.parse(v)).toEqual([
      { message: 'bad key', policy: p, binding: p, expressionIndex: 0, validationActions: ['Warn', 'Audit'] },
    ]);
  });

  it('audit annotations: `<policy>/<key>`, null excluded', async () => {
    const n = await ns();
    const p = uniqueName('p');
    await install(
      policy(p, {
        validations: [],
        auditAnnotations: [
          { key: 'name', valueExpression: "'seen ' + object.metadata.name" },
          { key: 'none', valueExpression: 'null' },
        ],
      }),
      binding(p, p, { matchResources: only(n) }),
    );
    const r = await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('c1'));
    expect(r.status).toBe(201);
    const ev = ts.server
      .audit!.events.filter(
        (e: any) =>
          e.verb === 'create' && e.objectRef?.resource === 'configmaps' && e.objectRef?.namespace === n,
      )
      .at(-1) as any;
    expect(ev?.annotations?.[`${p}/name`]).toBe('seen c1');
    expect(ev?.annotations?.[`${p}/none`]).toBeUndefined();
  });

  it('params: by name (namespace of the request), by selector, not found with Deny and Allow', async () => {
    const n = await ns();
    const p = uniqueName('p');
    const cm = await ts.req(
      'POST',
      `/api/v1/namespaces/${n}/configmaps`,
      configMap('limits', { max: '2' }, { metadata: { labels: { role: 'limit' } } }),
    );
    expect(cm.status).toBe(201);
    await install(
      policy(p, {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: {
          resourceRules: [
            { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] },
          ],
        },
        validations: [
          {
            expression: 'size(object.data) <= int(params.data.max)',
            messageExpression: "'at most ' + params.data.max",
          },
        ],
      }),
      binding(p, p, {
        matchResources: only(n),
        paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' },
      }),
    );
    const secret = (name: string, keys: number) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name },
      data: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 'eA=='])),
    });
    expect((await ts.req('POST', `/api/v1/namespaces/${n}/secrets`, secret('s1', 2))).status).toBe(201);
    const r = await ts.req('POST', `/api/v1/namespaces/${n}/secrets`, secret('s2', 3));
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('denied request: at most 2');
    // a second binding whose parameters are missing: Deny refuses with the configuration error
    const b2 = uniqueName('b');
    expect(
      (
        await ts.req(
          'POST',
          BINDINGS,
          binding(b2, p, {
            matchResources: only(n),
            paramRef: { name: 'nope', parameterNotFoundAction: 'Deny' },
          }),
        )
      ).status,
    ).toBe(201);
    const m = await ts.req('POST', `/api/v1/namespaces/${n}/secrets`, secret('s3', 1));
    expect(m.status).toBe(422);
    expect(m.json.message).toContain(
      `ValidatingAdmissionPolicy '${p}' with binding '${b2}' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`,
    );
    // Allow: the binding is skipped
    const upd = await ts.req('GET', `${BINDINGS}/${b2}`);
    upd.json.spec.paramRef = { name: 'nope', parameterNotFoundAction: 'Allow' };
    expect((await ts.req('PUT', `${BINDINGS}/${b2}`, upd.json)).status).toBe(200);
    expect((await ts.req('POST', `/api/v1/namespaces/${n}/secrets`, secret('s4', 1))).status).toBe(201);
    // selector: every matching object is a parameter
    upd.json = (await ts.req('GET', `${BINDINGS}/${b2}`)).json;
    upd.json.spec.paramRef = {
      selector: { matchLabels: { role: 'limit' } },
      parameterNotFoundAction: 'Deny',
    };
    expect((await ts.req('PUT', `${BINDINGS}/${b2}`, upd.json)).status).toBe(200);
    expect((await ts.req('POST', `/api/v1/namespaces/${n}/secrets`, secret('s5', 3))).status).toBe(422);
  });

  it('failurePolicy: an evaluation error refuses under Fail, admits under Ignore', async () => {
    const n = await ns();
    for (const fp of ['Fail', 'Ignore']) {
      const p = uniqueName('p');
      await install(
        policy(p, { failurePolicy: fp, validations: [{ expression: "object.data.missing == 'x'" }] }),
        binding(p, p, { matchResources: only(n) }),
      );
      const r = await ts.req(
        'POST',
        `/api/v1/namespaces/${n}/configmaps`,
        configMap(uniqueName('c'), { a: '1' }),
      );
      if (fp === 'Fail') {
        expect(r.status).toBe(422);
        expect(r.json.message).toContain(
          `denied request: expression 'object.data.missing == 'x'' resulted in error: no such key: missing`,
        );
        await ts.req('DELETE', `${BINDINGS}/${p}`);
      } else expect(r.status).toBe(201);
    }
  });

  it('variables are composed and usable in validations and messages', async () => {
    const n = await ns();
    const p = uniqueName('p');
    await install(
      policy(p, {
        variables: [
          { name: 'keys', expression: 'has(object.data) ? object.data.size() : 0' },
          { name: 'tooMany', expression: 'variables.keys > 1' },
        ],
        validations: [
          {
            expression: '!variables.tooMany',
            messageExpression: "'has ' + string(variables.keys) + ' keys'",
          },
        ],
      }),
      binding(p, p, { matchResources: only(n) }),
    );
    expect(
      (await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('c1', { a: '1' }))).status,
    ).toBe(201);
    const r = await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('c2', { a: '1', b: '2' }));
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('denied request: has 2 keys');
  });

  it('match conditions: false skips the policy', async () => {
    const n = await ns();
    const p = uniqueName('p');
    await install(
      policy(p, {
        matchConditions: [{ name: 'only-named-x', expression: "object.metadata.name.startsWith('x')" }],
        validations: [{ expression: 'false', message: 'no' }],
      }),
      binding(p, p, { matchResources: only(n) }),
    );
    expect((await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('a1'))).status).toBe(201);
    expect((await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('x1'))).status).toBe(422);
  });

  it('excludeResourceRules and objectSelector narrow what a policy matches', async () => {
    const n = await ns();
    const p = uniqueName('p');
    await install(
      policy(p, {
        matchConstraints: {
          resourceRules: [
            { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
          ],
          excludeResourceRules: [
            {
              resourceNames: ['exempt'],
              operations: ['*'],
              apiGroups: [''],
              apiVersions: ['v1'],
              resources: ['configmaps'],
            },
          ],
          objectSelector: { matchLabels: { checked: 'yes' } },
        },
        validations: [{ expression: 'false', message: 'no' }],
      }),
      binding(p, p, { matchResources: only(n) }),
    );
    const labelled = (name: string) => configMap(name, {}, { metadata: { labels: { checked: 'yes' } } });
    expect((await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('plain'))).status).toBe(201);
    expect((await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, labelled('exempt'))).status).toBe(201);
    expect((await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, labelled('other'))).status).toBe(422);
  });

  it('authorizer: checks are asked of the server authorizers', async () => {
    const n = await ns();
    const p = uniqueName('p');
    await install(
      policy(p, {
        validations: [
          {
            expression:
              "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('delete').allowed()",
            message: 'admin only',
          },
          {
            expression:
              "!authorizer.serviceAccount('default', 'nobody').group('').resource('secrets').check('delete').allowed()",
            message: 'sa may not',
          },
        ],
      }),
      binding(p, p, { matchResources: only(n) }),
    );
    // the admin (system:masters) may delete secrets; an unknown service account may not
    expect((await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('c1'))).status).toBe(201);
  });

  it('the runtime cost budget: an expression over the per-call limit is an evaluation error', async () => {
    const n = await ns();
    const p = uniqueName('p');
    await install(
      policy(p, {
        validations: [
          {
            expression:
              '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))',
          },
        ],
      }),
      binding(p, p, { matchResources: only(n) }),
    );
    const r = await ts.req('POST', `/api/v1/namespaces/${n}/configmaps`, configMap('c1'));
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('resulted in error: operation cancelled: actual cost limit exceeded');
  });

  it('requests on policies and bindings are not evaluated', async () => {
    const p = uniqueName('p');
    await install(
      policy(p, {
        matchConstraints: {
          resourceRules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
        },
        validations: [
          { expression: "request.resource.resource != 'validatingadmissionpolicybindings'", message: 'no' },
        ],
      }),
      binding(p, p, { matchResources: only('nowhere') }),
    );
    // the binding is created, and can be deleted again
    expect((await ts.req('DELETE', `${BINDINGS}/${p}`)).status).toBe(200);
  });
});

describe('status: type checking (the policy status controller)', () => {
  async function statusOf(name: string): Promise<Rec> {
    for (let i = 0; i < 50; i++) {
      const r = await ts.req('GET', `${POLICIES}/${name}`);
      if (r.json?.status?.observedGeneration === r.json?.metadata?.generation) return r.json;
      await new Promise((res) => setTimeout(res, 20));
    }
    throw new Error(`no status for ${name}`);
  }

  it('a field the matched kind does not have is a warning naming the kind; observedGeneration follows', async () => {
    const p = uniqueName('p');
    const created = await ts.req(
      'POST',
      POLICIES,
      policy(p, {
        validations: [
          { expression: 'object.spec.replicas < 5' },
          { expression: "object.data.all(k, k != 'x')", messageExpression: "'in ' + object.metadata.name" },
        ],
      }),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.json.status).toBeUndefined();
    const got = (await statusOf(p)) as any;
    expect(got.status.observedGeneration).toBe(1);
    const warnings = got.status.typeChecking.expressionWarnings;
    expect(warnings).toHaveLength(1);
    expect(warnings[0].fieldRef).toBe('spec.validations[0].expression');
    expect(warnings[0].warning).toMatch(/^\/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'/);
    // a new generation is checked again
    got.spec.validations = [{ expression: "object.data.all(k, k != 'x')" }];
    const upd = await ts.req('PUT', `${POLICIES}/${p}`, got);
    expect(upd.status, upd.text).toBe(200);
    const again = (await statusOf(p)) as any;
    expect(again.metadata.generation).toBe(2);
    expect(again.status.typeChecking).toEqual({});
    await ts.req('DELETE', `${POLICIES}/${p}`);
  });

  it('an update of the main resource keeps the status; the spec is untouched by a status update', async () => {
    const p = uniqueName('p');
    expect((await ts.req('POST', POLICIES, policy(p))).status).toBe(201);
    const got = (await statusOf(p)) as any;
    got.status = { observedGeneration: 99 };
    got.spec.failurePolicy = 'Ignore';
    const r = await ts.req('PUT', `${POLICIES}/${p}/status`, got);
    expect(r.status, r.text).toBe(200);
    expect(r.json.status.observedGeneration).toBe(99);
    expect(r.json.spec.failurePolicy).toBe('Fail');
    await ts.req('DELETE', `${POLICIES}/${p}`);
  });
});

describe('table columns (Kubernetes 1.28 printers)', () => {
  it('policies: Name, Validations, ParamKind, Age; bindings: Name, PolicyName, ParamRef, Age', async () => {
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' };
    const p = await ts.req('GET', POLICIES, undefined, accept);
    expect(p.json.columnDefinitions.map((c: Rec) => c.name)).toEqual([
      'Name',
      'Validations',
      'ParamKind',
      'Age',
    ]);
    const b = await ts.req('GET', BINDINGS, undefined, accept);
    expect(b.json.columnDefinitions.map((c: Rec) => c.name)).toEqual([
      'Name',
      'PolicyName',
      'ParamRef',
      'Age',
    ]);
  });
});
