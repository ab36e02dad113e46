// Validation rules in custom definitions (doc2 "Expression language inputs" and "Limits";
// behaviour and wording of Kubernetes 1.28): rules compiled and fully type checked when a
// definition is written (422 naming the rule), evaluated at every write of a custom resource
// (create, update, merge patch, apply, status) with every violation in one 422, transition
// rules with oldSelf, messageExpression, reason and fieldPath, property-name escaping, cost
// limits at definition time and at run time, and evaluation errors answered 422, never 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, startServer, type TestServer } from './helpers.ts';

const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';

let srv: TestServer;
let counter = 0;

beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function group(): string {
  counter++;
  return `cel${counter}-${process.pid}.example.com`;
}

function crd(g: string, schema: unknown, subresources?: unknown) {
  const version: Record<string, unknown> = {
    name: 'v1',
    served: true,
    storage: true,
    schema: { openAPIV3Schema: schema },
  };
  if (subresources) version.subresources = subresources;
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${g}` },
    spec: {
      group: g,
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [version],
    },
  };
}

async function established(g: string, schema: unknown, subresources?: unknown): Promise<string> {
  const body = crd(g, schema, subresources);
  const r = await srv.req('POST', CRDS, body);
  expect(r.status, r.text).toBe(201);
  const until = Date.now() + 10_000;
  for (;;) {
    const got = await srv.req('GET', `${CRDS}/${body.metadata.name}`);
    const c = (got.json?.status?.conditions ?? []).find((x: { type: string }) => x.type === 'Established');
    if (c?.status === 'True') break;
    if (Date.now() > until) throw new Error('not Established');
    await sleep(20);
  }
  return `/apis/${g}/v1/namespaces/default/widgets`;
}

const widget = (g: string, name: string, spec: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: `${g}/v1`,
  kind: 'Widget',
  metadata: { name },
  spec,
  ...extra,
});

const causes = (r: Reply) =>
  (r.json?.details?.causes ?? []) as { reason: string; field: string; message: string }[];

const spec = (props: Record<string, unknown>, rules: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties: {
    spec: { type: 'object', properties: props, 'x-orch-validations': rules, ...extra },
  },
});

describe('rules at definition time', () => {
  it('refuses a rule naming an unknown field: 422 at the rule with "compilation failed"', async () => {
    const g = group();
    const r = await srv.req(
      'POST',
      CRDS,
      crd(
        g,
        spec({ replicas: { type: 'integer' } }, [{ rule: 'self.replicas > 0' }, { rule: 'self.nope > 0' }]),
      ),
    );
    expect(r.status, r.text).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    const c = causes(r);
    expect(c).toHaveLength(1);
    expect(c[0]!.field).toBe('spec.validation.openAPIV3Schema.properties[spec].x-orch-validations[1].rule');
    expect(c[0]!.reason).toBe('FieldValueInvalid');
    // cel-go's report: position of the dot, the detail, the line and a caret under it
    expect(c[0]!.message).toContain(
      "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 0\n | ....^",
    );
    expect(c[0]!.message).toContain('Rule:"self.nope > 0"');
  });

  it.each([
    ['comparing int with string', "self.replicas == 'three'", 'compilation failed: '],
    ['a syntax error', 'self.replicas >', 'compilation failed: '],
    ['an unknown function', 'self.replicas.frobnicate()', 'compilation failed: '],
    ['an undeclared variable', 'other.replicas > 0', 'compilation failed: '],
    // compiled, but of another type (Kubernetes says so without "compilation failed")
    ['a result that is not a bool', 'self.replicas + 1', '}: cel expression must evaluate to a bool'],
    ['a result of no known type', 'self.any', '}: cel expression must evaluate to a bool'],
    ['an unknown field of a nested object', 'self.template.nope == 1', 'compilation failed: '],
  ])('refuses %s', async (_what, rule, fragment) => {
    const g = group();
    const r = await srv.req(
      'POST',
      CRDS,
      crd(
        g,
        spec(
          {
            replicas: { type: 'integer' },
            template: { type: 'object', properties: { a: { type: 'integer' } } },
            any: { 'x-orch-int-or-string': true },
          },
          [{ rule }],
        ),
      ),
    );
    expect(r.status, r.text).toBe(422);
    expect(causes(r)[0]!.field).toBe(
      'spec.validation.openAPIV3Schema.properties[spec].x-orch-validations[0].rule',
    );
    expect(causes(r)[0]!.message).toContain(fragment);
  });

  it('names the version of a refused rule when versions have different schemas', async () => {
    const body = crd(group(), spec({ a: { type: 'integer' } }, [{ rule: 'self.a > 0' }]));
    const v2 = {
      name: 'v2',
      served: true,
      storage: false,
      schema: { openAPIV3Schema: spec({ b: { type: 'integer' } }, [{ rule: 'self.a > 0' }]) },
    };
    body.spec.versions.push(v2);
    const r = await srv.req('POST', CRDS, body);
    expect(r.status, r.text).toBe(422);
    expect(causes(r).map((c) => c.field)).toEqual([
      'spec.versions[1].schema.openAPIV3Schema.properties[spec].x-orch-validations[0].rule',
    ]);
  });

  it('refuses a messageExpression that is not a string, and a reason that is not supported', async () => {
    const g = group();
    const r = await srv.req(
      'POST',
      CRDS,
      crd(
        g,
        spec({ replicas: { type: 'integer' } }, [
          { rule: 'self.replicas > 0', messageExpression: 'self.replicas' },
          { rule: 'self.replicas > 0', reason: 'FieldValueWrong' },
        ]),
      ),
    );
    expect(r.status, r.text).toBe(422);
    const fields = causes(r).map((c) => c.field);
    expect(fields).toContain(
      'spec.validation.openAPIV3Schema.properties[spec].x-orch-validations[0].messageExpression',
    );
    expect(fields).toContain('spec.validation.openAPIV3Schema.properties[spec].x-orch-validations[1].reason');
    const msg = causes(r).find((c) => c.field.endsWith('[0].messageExpression'))!;
    expect(msg.message).toContain('messageExpression must evaluate to a string');
    const reason = causes(r).find((c) => c.field.endsWith('[1].reason'))!;
    expect(reason.reason).toBe('FieldValueNotSupported');
  });

  it('refuses oldSelf inside a list whose items have no old counterpart (not a map list)', async () => {
    const r = await srv.req(
      'POST',
      CRDS,
      crd(
        group(),
        spec(
          {
            xs: {
              type: 'array',
              maxItems: 5,
              items: {
                type: 'object',
                properties: { a: { type: 'integer' } },
                'x-orch-validations': [{ rule: 'self.a == oldSelf.a' }],
              },
            },
          },
          [],
        ),
      ),
    );
    expect(r.status, r.text).toBe(422);
    expect(causes(r)[0]).toEqual({
      reason: 'FieldValueInvalid',
      field:
        'spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-orch-validations[0].rule',
      message:
        'Invalid value: "self.a == oldSelf.a": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[xs]',
    });
  });

  it('refuses a fieldPath the node does not declare', async () => {
    const g = group();
    const r = await srv.req(
      'POST',
      CRDS,
      crd(g, spec({ replicas: { type: 'integer' } }, [{ rule: 'self.replicas > 0', fieldPath: '.nope' }])),
    );
    expect(r.status, r.text).toBe(422);
    expect(causes(r)[0]!.field).toBe(
      'spec.validation.openAPIV3Schema.properties[spec].x-orch-validations[0].fieldPath',
    );
  });

  it('refuses a rule whose worst case exceeds the per-expression estimate limit (Forbidden), accepts it once the list is bounded', async () => {
    const rule = 'self.xs.all(a, self.xs.all(b, a != b || a == b))';
    const unbounded = spec({ xs: { type: 'array', items: { type: 'integer' } } }, [{ rule }]);
    const r = await srv.req('POST', CRDS, crd(group(), unbounded));
    expect(r.status, r.text).toBe(422);
    const c = causes(r).find((x) => x.field.endsWith('x-orch-validations[0].rule'))!;
    expect(c.reason).toBe('FieldValueForbidden');
    expect(c.message).toMatch(
      /^Forbidden: estimated rule cost exceeds budget by factor of (more than 100x|\d+\.\d+x) \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)$/,
    );
    const bounded = spec({ xs: { type: 'array', maxItems: 10, items: { type: 'integer' } } }, [{ rule }]);
    await established(group(), bounded);
  });

  it('limits a rule estimate, times how often the rule can run, to 10,000,000 (not to the per-call 1,000,000)', async () => {
    const rule = 'self.xs.all(a, self.xs.all(b, a != b || a == b))';
    // 1,753,003 once: beyond one call's runtime limit, within the estimate limit
    const once = spec({ xs: { type: 'array', maxItems: 500, items: { type: 'integer' } } }, [{ rule }]);
    await established(group(), once);
    // 439,003 per item, 100 items: 43,900,300
    const many = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              maxItems: 100,
              items: {
                type: 'object',
                properties: { xs: { type: 'array', maxItems: 250, items: { type: 'integer' } } },
                'x-orch-validations': [{ rule }],
              },
            },
          },
        },
      },
    };
    const r = await srv.req('POST', CRDS, crd(group(), many));
    expect(r.status, r.text).toBe(422);
    expect(causes(r)).toContainEqual({
      reason: 'FieldValueForbidden',
      field:
        'spec.validation.openAPIV3Schema.properties[spec].properties[items].items.x-orch-validations[0].rule',
      message: expect.stringMatching(/^Forbidden: estimated rule cost exceeds budget by factor of 4\.4x /),
    });
  });

  it('refuses a definition whose rules together may cost more than the per-definition limit', async () => {
    // 5000 items of a rule of about 100,000 are over 100,000,000
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              maxItems: 5000,
              items: {
                type: 'object',
                properties: { xs: { type: 'array', maxItems: 100, items: { type: 'integer' } } },
                'x-orch-validations': [{ rule: 'self.xs.all(a, self.xs.all(b, a != b || a == b))' }],
              },
            },
          },
        },
      },
    };
    const r = await srv.req('POST', CRDS, crd(group(), schema));
    expect(r.status, r.text).toBe(422);
    const total = causes(r).find((x) => x.field === 'spec.validation.openAPIV3Schema')!;
    expect(total.reason).toBe('FieldValueForbidden');
    expect(total.message).toMatch(
      /^Forbidden: x-orch-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of (more than 100x|\d+\.\d+x) \(/,
    );
  });
});

describe('rules at write time', () => {
  const schema = {
    type: 'object',
    'x-orch-validations': [{ rule: "self.metadata.name.startsWith('w')", message: 'name must start with w' }],
    properties: {
      spec: {
        type: 'object',
        'x-orch-validations': [
          { rule: 'self.min <= self.max' },
          // a message of bounded length: string(int) has no bound, and a messageExpression that may be
          // any length is refused (as Kubernetes 1.28 estimates it)
          {
            rule: 'self.max < 100',
            messageExpression: "'max is ' + (self.max >= 500 ? 'far' : 'just') + ' over 99'",
          },
          {
            rule: "!has(self.mode) || self.mode != 'off'",
            reason: 'FieldValueForbidden',
            message: 'mode off is forbidden',
          },
          {
            rule: '!has(self.tags) || self.tags.all(t, t.size() <= 5)',
            fieldPath: '.tags',
            message: 'tags are at most 5 long',
          },
        ],
        properties: {
          min: { type: 'integer' },
          max: { type: 'integer' },
          mode: { type: 'string' },
          tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 64 } },
          name: {
            type: 'string',
            maxLength: 64,
            'x-orch-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }],
          },
          'x-prop': { type: 'integer' },
          namespace: { type: 'string', maxLength: 64 },
          ratio: { type: 'number' },
          when: { type: 'string', format: 'date-time' },
          timeout: { type: 'string', format: 'duration' },
          divisor: { type: 'integer' },
        },
      },
    },
  };
  let g: string;
  let base: string;
  beforeAll(async () => {
    g = group();
    base = await established(g, schema);
  });

  it('accepts an object that keeps every rule', async () => {
    const r = await srv.req('POST', base, widget(g, 'w-ok', { min: 1, max: 2, tags: ['a'], name: 'n' }));
    expect(r.status, r.text).toBe(201);
  });

  it('answers every violated rule in one 422, each with its path, reason and message', async () => {
    const r = await srv.req(
      'POST',
      base,
      widget(g, 'bad', { min: 300, max: 200, mode: 'off', tags: ['toolong'] }),
    );
    expect(r.status, r.text).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    const c = causes(r);
    expect(c).toContainEqual({
      reason: 'FieldValueInvalid',
      field: '<nil>',
      message: 'Invalid value: "object": name must start with w',
    });
    expect(c).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec',
      message: 'Invalid value: "object": failed rule: self.min <= self.max',
    });
    expect(c).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec',
      message: 'Invalid value: "object": max is just over 99',
    });
    expect(c).toContainEqual({
      reason: 'FieldValueForbidden',
      field: 'spec',
      message: 'Forbidden: mode off is forbidden',
    });
    expect(c).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.tags',
      message: 'Invalid value: "object": tags are at most 5 long',
    });
    expect(c).toHaveLength(5);
    expect(r.json.message).toContain(`Widget.${g} "bad" is invalid: [`);
    expect(r.json.message).toContain('spec: Invalid value: "object": failed rule: self.min <= self.max');
  });

  it('runs a transition rule only on update, with oldSelf', async () => {
    const created = await srv.req('POST', base, widget(g, 'w-tr', { min: 1, max: 2, name: 'first' }));
    expect(created.status, created.text).toBe(201);
    const put = await srv.req('PUT', `${base}/w-tr`, {
      ...created.json,
      spec: { ...created.json.spec, name: 'second' },
    });
    expect(put.status, put.text).toBe(422);
    expect(causes(put)).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.name',
        message: 'Invalid value: "string": name is immutable',
      },
    ]);
    const same = await srv.req('PUT', `${base}/w-tr`, {
      ...created.json,
      spec: { ...created.json.spec, max: 3 },
    });
    expect(same.status, same.text).toBe(200);
  });

  it('evaluates rules on a merge patch and on apply', async () => {
    const created = await srv.req('POST', base, widget(g, 'w-patch', { min: 1, max: 2 }));
    expect(created.status, created.text).toBe(201);
    const patched = await srv.req(
      'PATCH',
      `${base}/w-patch`,
      { spec: { min: 9 } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(patched.status, patched.text).toBe(422);
    expect(causes(patched).map((c) => c.message)).toContain(
      'Invalid value: "object": failed rule: self.min <= self.max',
    );
    const applied = await srv.req(
      'PATCH',
      `${base}/w-apply?fieldManager=test`,
      widget(g, 'w-apply', { min: 1, max: 500 }),
      { 'content-type': 'application/apply-patch+yaml' },
    );
    expect(applied.status, applied.text).toBe(422);
    expect(causes(applied).map((c) => c.message)).toContain('Invalid value: "object": max is far over 99');
  });

  it('reaches escaped property names: __dash__, reserved words', async () => {
    const g2 = group();
    const b = await established(
      g2,
      spec({ 'x-prop': { type: 'integer' }, namespace: { type: 'string', maxLength: 20 } }, [
        { rule: 'self.x__dash__prop > 0' },
        { rule: "self.__namespace__ != 'kube-system'" },
      ]),
    );
    const bad = await srv.req('POST', b, widget(g2, 'x', { 'x-prop': 0, namespace: 'kube-system' }));
    expect(bad.status, bad.text).toBe(422);
    expect(causes(bad).map((c) => c.message)).toEqual([
      'Invalid value: "object": failed rule: self.x__dash__prop > 0',
      'Invalid value: "object": failed rule: self.__namespace__ != \'kube-system\'',
    ]);
    const ok = await srv.req('POST', b, widget(g2, 'y', { 'x-prop': 1, namespace: 'apps' }));
    expect(ok.status, ok.text).toBe(201);
  });

  it('types values by schema: number as double, date-time as timestamp, duration as duration', async () => {
    const g2 = group();
    const b = await established(
      g2,
      spec(
        {
          ratio: { type: 'number' },
          when: { type: 'string', format: 'date-time' },
          timeout: { type: 'string', format: 'duration' },
          port: { 'x-orch-int-or-string': true },
          labels: {
            type: 'object',
            maxProperties: 5,
            additionalProperties: { type: 'string', maxLength: 10 },
          },
        },
        [
          { rule: 'self.ratio < 1.0' },
          { rule: "self.when > timestamp('2020-01-01T00:00:00Z')" },
          { rule: "self.timeout <= duration('1h')" },
          { rule: "type(self.port) == int ? self.port > 0 : self.port.startsWith('http')" },
          { rule: "self.labels.all(k, self.labels[k] != 'forbidden')" },
        ],
      ),
    );
    const ok = await srv.req(
      'POST',
      b,
      widget(g2, 'ok', {
        ratio: 0.5,
        when: '2024-05-01T10:00:00Z',
        timeout: '30m',
        port: 8080,
        labels: { a: 'b' },
      }),
    );
    expect(ok.status, ok.text).toBe(201);
    const bad = await srv.req(
      'POST',
      b,
      widget(g2, 'bad', {
        ratio: 1.5,
        when: '2019-05-01T10:00:00Z',
        timeout: '2h',
        port: 'ftp',
        labels: { a: 'forbidden' },
      }),
    );
    expect(bad.status, bad.text).toBe(422);
    expect(causes(bad)).toHaveLength(5);
  });

  it('compares set lists regardless of order, unions them with +, and merges map lists by key', async () => {
    const g2 = group();
    const b = await established(
      g2,
      spec(
        {
          tags: {
            type: 'array',
            maxItems: 10,
            'x-orch-list-type': 'set',
            items: { type: 'string', maxLength: 10 },
          },
          ports: {
            type: 'array',
            maxItems: 10,
            'x-orch-list-type': 'map',
            'x-orch-list-map-keys': ['name'],
            items: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string', maxLength: 10 }, port: { type: 'integer' } },
            },
            'x-orch-validations': [{ rule: '(oldSelf + self).size() <= 3', message: 'at most 3 ports ever' }],
          },
        },
        [{ rule: "self.tags == ['b', 'a']" }, { rule: "self.tags + ['a', 'c'] == ['a', 'b', 'c']" }],
      ),
    );
    const created = await srv.req(
      'POST',
      b,
      widget(g2, 'x', {
        tags: ['a', 'b'],
        ports: [
          { name: 'http', port: 80 },
          { name: 'metrics', port: 9090 },
        ],
      }),
    );
    expect(created.status, created.text).toBe(201);
    // old + new merged by name: http (replaced), metrics, admin = 3 (a plain concatenation has 4)
    const merged = await srv.req('PUT', `${b}/x`, {
      ...created.json,
      spec: {
        ...created.json.spec,
        ports: [
          { name: 'http', port: 81 },
          { name: 'admin', port: 1 },
        ],
      },
    });
    expect(merged.status, merged.text).toBe(200);
    const tooMany = await srv.req('PUT', `${b}/x`, {
      ...merged.json,
      spec: {
        ...merged.json.spec,
        ports: [
          { name: 'a', port: 1 },
          { name: 'b', port: 2 },
        ],
      },
    });
    expect(tooMany.status, tooMany.text).toBe(422);
    expect(causes(tooMany)).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.ports',
        message: 'Invalid value: "array": at most 3 ports ever',
      },
    ]);
    const wrongSet = await srv.req('POST', b, widget(g2, 'y', { tags: ['a', 'c'], ports: [] }));
    expect(wrongSet.status, wrongSet.text).toBe(422);
  });

  it('gives an embedded resource apiVersion, kind and metadata.name implicitly; unknown fields are not reachable', async () => {
    const g2 = group();
    const embedded = {
      type: 'object',
      'x-orch-embedded-resource': true,
      'x-orch-preserve-unknown-fields': true,
      properties: {
        data: { type: 'object', additionalProperties: { type: 'string', maxLength: 10 }, maxProperties: 5 },
      },
    };
    const b = await established(
      g2,
      spec({ template: embedded }, [
        { rule: "self.template.kind == 'ConfigMap' && self.template.metadata.name.startsWith('cm-')" },
      ]),
    );
    const ok = await srv.req(
      'POST',
      b,
      widget(g2, 'x', {
        template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-1' }, data: { a: 'b' } },
      }),
    );
    expect(ok.status, ok.text).toBe(201);
    const bad = await srv.req(
      'POST',
      b,
      widget(g2, 'y', { template: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cm-1' } } }),
    );
    expect(bad.status, bad.text).toBe(422);
    const unknown = await srv.req(
      'POST',
      CRDS,
      crd(group(), spec({ template: embedded }, [{ rule: 'self.template.extra == 1' }])),
    );
    expect(unknown.status, unknown.text).toBe(422);
    expect(causes(unknown)[0]!.message).toContain("undefined field 'extra'");
  });

  it('applies rules added by an update of the definition', async () => {
    const g2 = group();
    const b = await established(g2, spec({ n: { type: 'integer' } }, []));
    expect((await srv.req('POST', b, widget(g2, 'before', { n: -1 }))).status).toBe(201);
    const name = `widgets.${g2}`;
    const cur = (await srv.req('GET', `${CRDS}/${name}`)).json;
    cur.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-orch-validations'] = [
      { rule: 'self.n >= 0', message: 'n is never negative' },
    ];
    const put = await srv.req('PUT', `${CRDS}/${name}`, cur);
    expect(put.status, put.text).toBe(200);
    const until = Date.now() + 10_000;
    let r: Reply;
    for (;;) {
      r = await srv.req('POST', b, widget(g2, `after-${Date.now()}`, { n: -1 }));
      if (r.status === 422 || Date.now() > until) break;
      await srv.req('DELETE', `${b}/${r.json?.metadata?.name}`);
      await sleep(20);
    }
    expect(r.status, r.text).toBe(422);
    expect(causes(r)).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": n is never negative' },
    ]);
    // an int-or-string node has no schema type: Kubernetes shows it as ""
    const g3 = group();
    const b3 = await established(
      g3,
      spec(
        { port: { 'x-orch-int-or-string': true, 'x-orch-validations': [{ rule: "self != 'none'" }] } },
        [],
      ),
    );
    const none = await srv.req('POST', b3, widget(g3, 'x', { port: 'none' }));
    expect(causes(none)).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.port',
        message: 'Invalid value: "": failed rule: self != \'none\'',
      },
    ]);
  });

  it('does not run rules on an object with a value outside its enum, and says so', async () => {
    const g2 = group();
    const b = await established(
      g2,
      spec({ color: { type: 'string', enum: ['red', 'green'] }, n: { type: 'integer' } }, [
        { rule: 'self.n > 0' },
      ]),
    );
    const r = await srv.req('POST', b, widget(g2, 'x', { color: 'blue', n: 0 }));
    expect(r.status, r.text).toBe(422);
    const c = causes(r);
    expect(c.map((x) => x.reason)).toEqual(['FieldValueNotSupported', 'FieldValueInvalid']);
    expect(c[1]).toEqual({
      reason: 'FieldValueInvalid',
      field: '<nil>',
      message:
        'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    });
  });

  it('answers an int-or-string value of the wrong kind for its rule as a signature mismatch', async () => {
    const g2 = group();
    const b = await established(
      g2,
      spec({ port: { 'x-orch-int-or-string': true } }, [{ rule: 'self.port > 0' }]),
    );
    const r = await srv.req('POST', b, widget(g2, 'x', { port: 'http' }));
    expect(r.status, r.text).toBe(422);
    expect(causes(r)).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message:
          'Invalid value: "object": \'no such overload\': call arguments did not match a supported operator, function or macro signature for rule: self.port > 0',
      },
    ]);
  });

  it('tests a field of any operand with has(): an item of a list', async () => {
    const g2 = group();
    const b = await established(
      g2,
      spec(
        {
          xs: {
            type: 'array',
            maxItems: 5,
            items: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } },
          },
        },
        [{ rule: 'size(self.xs) == 0 || has(self.xs[0].name)', message: 'the first item needs a name' }],
      ),
    );
    expect((await srv.req('POST', b, widget(g2, 'ok', { xs: [{ name: 'a' }, {}] }))).status).toBe(201);
    const bad = await srv.req('POST', b, widget(g2, 'bad', { xs: [{}, { name: 'a' }] }));
    expect(causes(bad)).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message: 'Invalid value: "object": the first item needs a name',
      },
    ]);
  });

  it('reads a null of a nullable field as absent', async () => {
    const g2 = group();
    const b = await established(
      g2,
      spec({ note: { type: 'string', nullable: true, maxLength: 10 } }, [
        { rule: "!has(self.note) || self.note != 'bad'" },
      ]),
    );
    const r = await srv.req('POST', b, widget(g2, 'x', { note: null }));
    expect(r.status, r.text).toBe(201);
    const bad = await srv.req('POST', b, widget(g2, 'y', { note: 'bad' }));
    expect(bad.status, bad.text).toBe(422);
  });

  it('refuses a rule nested too deep to parse with a 422', async () => {
    const rule = `${'('.repeat(400)}true${')'.repeat(400)}`;
    const r = await srv.req('POST', CRDS, crd(group(), spec({ a: { type: 'integer' } }, [{ rule }])));
    expect(r.status, r.text).toBe(422);
    expect(causes(r)[0]!.message).toContain('compilation failed: ');
  });

  it('answers a division by zero or an index out of range as 422 naming the rule, never 500', async () => {
    const g2 = group();
    const b = await established(
      g2,
      spec({ n: { type: 'integer' }, xs: { type: 'array', maxItems: 5, items: { type: 'integer' } } }, [
        { rule: '10 / self.n > 1' },
        { rule: 'self.xs[3] > 0' },
        { rule: '9223372036854775807 + self.n > 0' },
      ]),
    );
    const r = await srv.req('POST', b, widget(g2, 'x', { n: 0, xs: [1] }));
    expect(r.status, r.text).toBe(422);
    const m = causes(r).map((c) => c.message);
    expect(m).toContain('Invalid value: "object": division by zero evaluating rule: 10 / self.n > 1');
    expect(m.some((x) => x.endsWith('evaluating rule: self.xs[3] > 0'))).toBe(true);
    const over = await srv.req('POST', b, widget(g2, 'y', { n: 1, xs: [1, 2, 3, 4] }));
    expect(over.status, over.text).toBe(422);
    expect(causes(over).map((c) => c.message)).toContain(
      'Invalid value: "object": integer overflow evaluating rule: 9223372036854775807 + self.n > 0',
    );
  });

  it("stops at the per-validation runtime budget with Kubernetes' message", async () => {
    const g2 = group();
    const b = await established(g2, {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            // each rule, times 12 items, is within the per-expression estimate limit; the three
            // rules over 12 full items are beyond one validation's runtime budget
            items: {
              type: 'array',
              maxItems: 12,
              items: {
                type: 'object',
                properties: { xs: { type: 'array', maxItems: 250, items: { type: 'integer' } } },
                'x-orch-validations': [
                  { rule: 'self.xs.all(a, self.xs.all(b, a != b || a == b))' },
                  { rule: 'self.xs.all(a, self.xs.all(b, a != b || a + 1 == b + 1))' },
                  { rule: 'self.xs.all(a, self.xs.all(b, a != b || a + 2 == b + 2))' },
                ],
              },
            },
          },
        },
      },
    });
    const xs = Array.from({ length: 250 }, (_, i) => i);
    const r = await srv.req(
      'POST',
      b,
      widget(g2, 'x', { items: Array.from({ length: 12 }, () => ({ xs })) }),
    );
    expect(r.status, r.text).toBe(422);
    const last = causes(r).at(-1)!;
    expect(last.message).toBe(
      'Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    );
    // one item costs well under the budget
    const one = await srv.req('POST', b, widget(g2, 'y', { items: [{ xs }] }));
    expect(one.status, one.text).toBe(201);
  });

  it('evaluates rules of the status on the status subresource', async () => {
    const g2 = group();
    const b = await established(
      g2,
      {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { n: { type: 'integer' } } },
          status: {
            type: 'object',
            properties: { ready: { type: 'integer' } },
            'x-orch-validations': [{ rule: 'self.ready >= 0', message: 'ready is never negative' }],
          },
        },
      },
      { status: {} },
    );
    const created = await srv.req('POST', b, widget(g2, 'x', { n: 1 }));
    expect(created.status, created.text).toBe(201);
    const bad = await srv.req('PUT', `${b}/x/status`, { ...created.json, status: { ready: -1 } });
    expect(bad.status, bad.text).toBe(422);
    expect(causes(bad)).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'status',
        message: 'Invalid value: "object": ready is never negative',
      },
    ]);
    const ok = await srv.req('PUT', `${b}/x/status`, { ...created.json, status: { ready: 1 } });
    expect(ok.status, ok.text).toBe(200);
  });
});
