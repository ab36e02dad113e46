// CustomResourceDefinitions and the custom resources they serve: validation of definitions,
// names acceptance and the Established condition, discovery, every verb on custom resources,
// pruning, value validation, defaulting, int-or-string, embedded resources, the status and
// scale subresources, printer columns, versions, deletion with cleanup, and a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goSyntax, validateValue } from '../src/schema/validate.ts';
import { type Reply, startServer, type TestServer } from './helpers.ts';

const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
const TABLE = 'application/json;as=Table;g=meta.orch.io;v=v1';

let srv: TestServer;
let counter = 0;

beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually<T>(f: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function cond(o: any, type: string): any {
  return (o?.status?.conditions ?? []).find((c: any) => c.type === type);
}

/** A fresh group for a test, so definitions never collide across tests. */
function group(): string {
  counter++;
  return `g${counter}-${process.pid}.example.com`;
}

const widgetSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'string', maxLength: 5 },
        replicas: { type: 'integer', minimum: 1, maximum: 10 },
        color: { type: 'string', enum: ['red', 'green'], default: 'red' },
        code: { type: 'string', pattern: '^[0-9]+$' },
        port: { 'x-orch-int-or-string': true },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3, 'x-orch-list-type': 'set' },
        ports: {
          type: 'array',
          'x-orch-list-type': 'map',
          'x-orch-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
          },
        },
        free: { type: 'object', 'x-orch-preserve-unknown-fields': true },
        template: {
          type: 'object',
          'x-orch-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
        },
        when: { type: 'string', format: 'date-time' },
      },
    },
    status: {
      type: 'object',
      properties: { replicas: { type: 'integer' }, selector: { type: 'string' }, phase: { type: 'string' } },
    },
  },
};

interface CrdOpts {
  group?: string;
  plural?: string;
  kind?: string;
  scope?: string;
  shortNames?: string[];
  versions?: unknown[];
  subresources?: boolean;
  columns?: unknown[];
  schema?: unknown;
}

function crd(o: CrdOpts = {}) {
  const g = o.group ?? group();
  const plural = o.plural ?? 'widgets';
  const kind = o.kind ?? 'Widget';
  const version: Record<string, unknown> = {
    name: 'v1',
    served: true,
    storage: true,
    schema: { openAPIV3Schema: o.schema ?? widgetSchema },
  };
  if (o.subresources)
    version.subresources = {
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    };
  if (o.columns) version.additionalPrinterColumns = o.columns;
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${g}` },
    spec: {
      group: g,
      names: {
        plural,
        singular: kind.toLowerCase(),
        kind,
        shortNames: o.shortNames ?? ['wd'],
        categories: ['all'],
      },
      scope: o.scope ?? 'Namespaced',
      versions: o.versions ?? [version],
    },
  };
}

async function createEstablished(body: ReturnType<typeof crd>): Promise<any> {
  const r = await srv.req('POST', CRDS, body);
  expect(r.status, r.text).toBe(201);
  return eventually(async () => {
    const g = await srv.req('GET', `${CRDS}/${body.metadata.name}`);
    return cond(g.json, 'Established')?.status === 'True' ? g.json : undefined;
  }, `${body.metadata.name} Established`);
}

function widget(
  g: string,
  name: string,
  spec: Record<string, unknown> = { size: 's' },
  extra: Record<string, unknown> = {},
) {
  return { apiVersion: `${g}/v1`, kind: 'Widget', metadata: { name }, spec, ...extra };
}

const warnings = (r: Reply): string[] => {
  const w = r.headers.warning;
  return (Array.isArray(w) ? w : w ? [w] : []) as string[];
};

// ---------------------------------------------------------------------------------------

describe('CustomResourceDefinition: the kind', () => {
  it('is served at apiextensions.orch.io/v1 with its short names and status subresource', async () => {
    const r = await srv.req('GET', '/apis/apiextensions.orch.io/v1');
    expect(r.status).toBe(200);
    const res = r.json.resources.find((x: any) => x.name === 'customresourcedefinitions');
    expect(res).toMatchObject({
      kind: 'CustomResourceDefinition',
      namespaced: false,
      singularName: 'customresourcedefinition',
    });
    expect(res.shortNames).toEqual(['crd', 'crds']);
    expect(r.json.resources.some((x: any) => x.name === 'customresourcedefinitions/status')).toBe(true);
  });

  it('creates a definition, accepts its names and becomes Established', async () => {
    const body = crd();
    const r = await srv.req('POST', CRDS, body);
    expect(r.status, r.text).toBe(201);
    expect(r.json.metadata.generation).toBe(1);
    expect(r.json.status.storedVersions).toEqual(['v1']);
    expect(r.json.spec.names.listKind).toBe('WidgetList');
    expect(r.json.spec.conversion).toEqual({ strategy: 'None' });
    const got = await eventually(async () => {
      const g = await srv.req('GET', `${CRDS}/${body.metadata.name}`);
      return cond(g.json, 'Established')?.status === 'True' ? g.json : undefined;
    }, 'Established');
    const names = cond(got, 'NamesAccepted');
    expect(names).toMatchObject({ status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    expect(names.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(cond(got, 'Established')).toMatchObject({
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    });
    expect(got.status.acceptedNames).toEqual({
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wd'],
      kind: 'Widget',
      listKind: 'WidgetList',
      categories: ['all'],
    });
  });

  it('lists definitions', async () => {
    const r = await srv.req('GET', CRDS);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('CustomResourceDefinitionList');
  });
});

describe('CustomResourceDefinition: validation', () => {
  const invalid = async (body: unknown) => {
    const r = await srv.req('POST', CRDS, body);
    expect(r.status, r.text).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    return r.json.details.causes as { field: string; message: string; reason: string }[];
  };
  const has = (causes: { field: string; message: string }[], field: string, msg: string) =>
    expect(
      causes.some((c) => c.field === field && c.message.includes(msg)),
      JSON.stringify(causes),
    ).toBe(true);

  it('requires metadata.name to be <plural>.<group>', async () => {
    const b = crd();
    b.metadata.name = 'other.example.com';
    has(await invalid(b), 'metadata.name', 'must be spec.names.plural+"."+spec.group');
  });

  it('requires a group with a dot', async () => {
    const b = crd({ group: 'nodot' });
    has(await invalid(b), 'spec.group', 'should be a domain with at least one dot');
  });

  it('requires a scope of Namespaced or Cluster', async () => {
    const b = crd();
    (b.spec as any).scope = undefined;
    delete (b.spec as any).scope;
    has(await invalid(b), 'spec.scope', 'Required value');
    const c = crd({ scope: 'Galaxy' });
    has(
      await invalid(c),
      'spec.scope',
      'Unsupported value: "Galaxy": supported values: "Cluster", "Namespaced"',
    );
  });

  it('requires exactly one storage version and valid version names', async () => {
    has(
      await invalid(crd({ versions: [] })),
      'spec.versions',
      'must have exactly one version marked as storage version',
    );
    const two = crd({
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
    });
    has(await invalid(two), 'spec.versions', 'must have exactly one version marked as storage version');
    const bad = crd({
      versions: [
        { name: 'V_1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
    });
    has(
      await invalid(bad),
      'spec.versions[0].name',
      'a DNS-1035 label must consist of lower case alphanumeric characters',
    );
  });

  it('requires a structural schema in every version', async () => {
    has(
      await invalid(crd({ versions: [{ name: 'v1', served: true, storage: true }] })),
      'spec.versions[0].schema.openAPIV3Schema',
      'Required value: schemas are required',
    );
    const untyped = crd({
      schema: { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } },
    });
    has(
      await invalid(untyped),
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].type',
      'Required value: must not be empty for specified object fields',
    );
    const both = crd({
      schema: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: { a: { type: 'string' } },
            additionalProperties: { type: 'string' },
          },
        },
      },
    });
    has(
      await invalid(both),
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].additionalProperties',
      'additionalProperties and properties are mutual exclusive',
    );
    const root = crd({ schema: { type: 'string' } });
    has(await invalid(root), 'spec.versions[0].schema.openAPIV3Schema.type', 'must be object at the root');
    const items = crd({ schema: { type: 'object', properties: { list: { type: 'array' } } } });
    has(
      await invalid(items),
      'spec.versions[0].schema.openAPIV3Schema.properties[list].items',
      'Required value: must be specified',
    );
  });

  it('accepts a schema without types under preserve-unknown-fields and int-or-string', async () => {
    const b = crd({
      schema: {
        type: 'object',
        properties: {
          any: { 'x-orch-preserve-unknown-fields': true },
          port: { 'x-orch-int-or-string': true },
        },
      },
    });
    const r = await srv.req('POST', CRDS, b);
    expect(r.status, r.text).toBe(201);
  });

  it('refuses spec.preserveUnknownFields: true', async () => {
    const b = crd();
    (b.spec as any).preserveUnknownFields = true;
    has(
      await invalid(b),
      'spec.preserveUnknownFields',
      'Invalid value: true: cannot set to true, set x-orch-preserve-unknown-fields to true in spec.versions[*].schema instead',
    );
  });

  it('checks names, scale paths and printer columns', async () => {
    const b = crd({
      kind: 'Bad_Kind',
      subresources: true,
      columns: [{ name: 'X', type: 'float', jsonPath: 'spec.x' }],
    });
    (b.spec.versions as any)[0].subresources.scale.specReplicasPath = '.status.replicas';
    const causes = await invalid(b);
    has(causes, 'spec.names.kind', 'may have mixed case, but should otherwise match');
    has(causes, 'spec.versions[0].subresources.scale.specReplicasPath', 'should be a json path under .spec');
    has(
      causes,
      'spec.versions[0].additionalPrinterColumns[0].type',
      'must be one of boolean,date,integer,number,string',
    );
    has(
      causes,
      'spec.versions[0].additionalPrinterColumns[0].JSONPath',
      'must be a simple json path starting with .',
    );
  });

  it('rejects a keyword of the wrong JSON type as a bad request', async () => {
    const r = await srv.req(
      'POST',
      CRDS,
      crd({ schema: { type: 'object', properties: { a: { type: 'string', maxLength: 'five' } } } }),
    );
    expect(r.status, r.text).toBe(400);
  });

  it('keeps group, plural, and (once established) scope and kind immutable', async () => {
    const b = crd();
    const got = await createEstablished(b);
    const upd = structuredClone(got);
    upd.spec.scope = 'Cluster';
    upd.spec.names.kind = 'Gadget';
    const r = await srv.req('PUT', `${CRDS}/${b.metadata.name}`, upd);
    expect(r.status, r.text).toBe(422);
    const fields = r.json.details.causes.map((c: any) => c.field);
    expect(fields).toContain('spec.scope');
    expect(fields).toContain('spec.names.kind');
    expect(r.json.details.causes.find((c: any) => c.field === 'spec.scope').message).toBe(
      'Invalid value: "Cluster": field is immutable',
    );
  });
});

describe('CustomResourceDefinition: names and discovery', () => {
  it('is absent from discovery before, present at every served version after', async () => {
    const g = group();
    expect((await srv.req('GET', `/apis/${g}`)).status).toBe(404);
    expect((await srv.req('GET', '/apis')).json.groups.some((x: any) => x.name === g)).toBe(false);
    const sch = { openAPIV3Schema: { type: 'object', 'x-orch-preserve-unknown-fields': true } };
    const b = crd({
      group: g,
      versions: [
        { name: 'v1beta1', served: true, storage: false, schema: sch },
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: sch,
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
          },
        },
        { name: 'v1alpha1', served: false, storage: false, schema: sch },
      ],
    });
    await createEstablished(b);
    const apis = await srv.req('GET', '/apis');
    const entry = apis.json.groups.find((x: any) => x.name === g);
    expect(entry.versions.map((v: any) => v.version)).toEqual(['v1', 'v1beta1']);
    expect(entry.preferredVersion).toEqual({ groupVersion: `${g}/v1`, version: 'v1' });
    const one = await srv.req('GET', `/apis/${g}`);
    expect(one.json).toMatchObject({ kind: 'APIGroup', name: g });
    const list = await srv.req('GET', `/apis/${g}/v1`);
    expect(list.status).toBe(200);
    const res = list.json.resources.find((x: any) => x.name === 'widgets');
    expect(res).toMatchObject({
      singularName: 'widget',
      namespaced: true,
      kind: 'Widget',
      shortNames: ['wd'],
      categories: ['all'],
    });
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
    expect(list.json.resources.find((x: any) => x.name === 'widgets/status')).toMatchObject({
      kind: 'Widget',
      verbs: ['get', 'patch', 'update'],
    });
    expect(list.json.resources.find((x: any) => x.name === 'widgets/scale')).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    // v1beta1 served (without subresources there), v1alpha1 not served
    const beta = await srv.req('GET', `/apis/${g}/v1beta1`);
    expect(beta.json.resources.map((x: any) => x.name)).toContain('widgets');
    expect((await srv.req('GET', `/apis/${g}/v1alpha1`)).status).toBe(404);
    expect((await srv.req('GET', `/apis/${g}/v1alpha1/namespaces/default/widgets`)).status).toBe(404);
    // None conversion: written at one version, read at another with only apiVersion changed
    const c = await srv.req('POST', `/apis/${g}/v1beta1/namespaces/default/widgets`, {
      apiVersion: `${g}/v1beta1`,
      kind: 'Widget',
      metadata: { name: 'a' },
      spec: { x: 1 },
    });
    expect(c.status, c.text).toBe(201);
    const at = await srv.req('GET', `/apis/${g}/v1/namespaces/default/widgets/a`);
    expect(at.json.apiVersion).toBe(`${g}/v1`);
    expect(at.json.spec).toEqual({ x: 1 });
  });

  it('refuses names already used by another definition of the group (NamesAccepted False)', async () => {
    const g = group();
    await createEstablished(crd({ group: g }));
    const clash = crd({ group: g, plural: 'gadgets', kind: 'Widget', shortNames: ['gd'] });
    (clash.spec.names as Record<string, unknown>).listKind = 'GadgetList';
    const r = await srv.req('POST', CRDS, clash);
    expect(r.status, r.text).toBe(201);
    const got = await eventually(async () => {
      const x = await srv.req('GET', `${CRDS}/${clash.metadata.name}`);
      return cond(x.json, 'NamesAccepted') ? x.json : undefined;
    }, 'NamesAccepted');
    expect(cond(got, 'NamesAccepted')).toMatchObject({
      status: 'False',
      reason: 'KindConflict',
      message: '"Widget" is already in use',
    });
    expect(cond(got, 'Established')).toMatchObject({
      status: 'False',
      reason: 'NotAccepted',
      message: 'not all names are accepted',
    });
    expect((await srv.req('GET', `/apis/${g}/v1/namespaces/default/gadgets`)).status).toBe(404);
    // with several conflicts the last one checked (list kind after kind) is reported
    const both = crd({ group: g, plural: 'gizmos', kind: 'Widget', shortNames: [] });
    await srv.req('POST', CRDS, both);
    const got3 = await eventually(async () => {
      const x = await srv.req('GET', `${CRDS}/${both.metadata.name}`);
      return cond(x.json, 'NamesAccepted') ? x.json : undefined;
    }, 'NamesAccepted');
    expect(cond(got3, 'NamesAccepted')).toMatchObject({
      status: 'False',
      reason: 'ListKindConflict',
      message: '"WidgetList" is already in use',
    });
    // the singular "widget" is taken too: only the free names are accepted
    expect(got3.status.acceptedNames).toEqual({ plural: 'gizmos', kind: '', categories: ['all'] });
    const short = crd({ group: g, plural: 'things', kind: 'Thing', shortNames: ['wd'] });
    await srv.req('POST', CRDS, short);
    const got2 = await eventually(async () => {
      const x = await srv.req('GET', `${CRDS}/${short.metadata.name}`);
      return cond(x.json, 'NamesAccepted') ? x.json : undefined;
    }, 'NamesAccepted');
    expect(cond(got2, 'NamesAccepted')).toMatchObject({
      status: 'False',
      reason: 'ShortNamesConflict',
      message: '"wd" is already in use',
    });
  });
});

describe('custom resources', () => {
  let g: string;
  let base: string;
  beforeAll(async () => {
    g = group();
    await createEstablished(
      crd({
        group: g,
        subresources: true,
        columns: [
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Color', type: 'string', jsonPath: '.spec.color', description: 'the colour' },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
        ],
      }),
    );
    base = `/apis/${g}/v1/namespaces/default/widgets`;
  });

  it('create, get, list, update, patch and delete', async () => {
    const c = await srv.req('POST', base, widget(g, 'w1', { size: 's', replicas: 2 }));
    expect(c.status, c.text).toBe(201);
    expect(c.json).toMatchObject({
      apiVersion: `${g}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'default', generation: 1 },
    });
    expect(c.json.spec.color).toBe('red'); // defaulted
    const got = await srv.req('GET', `${base}/w1`);
    expect(got.status).toBe(200);
    expect(got.json.metadata.uid).toBe(c.json.metadata.uid);
    const list = await srv.req('GET', base);
    expect(list.json.kind).toBe('WidgetList');
    expect(list.json.apiVersion).toBe(`${g}/v1`);
    expect(list.json.items.map((i: any) => i.metadata.name)).toContain('w1');
    const all = await srv.req('GET', `/apis/${g}/v1/widgets`);
    expect(all.status).toBe(200);
    // update of spec: a new generation; of metadata only: the same
    const u = await srv.req('PUT', `${base}/w1`, { ...got.json, spec: { ...got.json.spec, replicas: 3 } });
    expect(u.status, u.text).toBe(200);
    expect(u.json.metadata.generation).toBe(2);
    const m = await srv.req('PUT', `${base}/w1`, {
      ...u.json,
      metadata: { ...u.json.metadata, labels: { a: 'b' } },
    });
    expect(m.json.metadata.generation).toBe(2);
    // PUT without resourceVersion is refused (no unconditional update), stale one conflicts
    const norv = structuredClone(m.json);
    delete norv.metadata.resourceVersion;
    expect((await srv.req('PUT', `${base}/w1`, norv)).status).toBe(422);
    expect((await srv.req('PUT', `${base}/w1`, c.json)).status).toBe(409);
    // patches: merge and JSON patch
    const mp = await srv.req(
      'PATCH',
      `${base}/w1`,
      { spec: { replicas: 4 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(mp.status, mp.text).toBe(200);
    expect(mp.json.spec.replicas).toBe(4);
    expect(mp.json.metadata.generation).toBe(3);
    const jp = await srv.req('PATCH', `${base}/w1`, [{ op: 'replace', path: '/spec/size', value: 'm' }], {
      'content-type': 'application/json-patch+json',
    });
    expect(jp.status, jp.text).toBe(200);
    expect(jp.json.spec.size).toBe('m');
    // strategic merge patch is not for custom resources
    const smp = await srv.req(
      'PATCH',
      `${base}/w1`,
      { spec: { replicas: 5 } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    expect(smp.status).toBe(415);
    expect(smp.json.reason).toBe('UnsupportedMediaType');
    // PUT may not create
    expect((await srv.req('PUT', `${base}/nope`, widget(g, 'nope'))).status).toBe(404);
    const d = await srv.req('DELETE', `${base}/w1`);
    expect(d.status).toBe(200);
    expect(d.json).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await srv.req('GET', `${base}/w1`)).status).toBe(404);
  });

  it('deletecollection with a label selector', async () => {
    for (const n of ['dc1', 'dc2', 'dc3'])
      await srv.req(
        'POST',
        base,
        widget(
          g,
          n,
          { size: 's' },
          { metadata: { name: n, labels: { set: n === 'dc3' ? 'keep' : 'drop' } } },
        ),
      );
    const r = await srv.req('DELETE', `${base}?labelSelector=set%3Ddrop`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.items.map((i: any) => i.metadata.name).sort()).toEqual(['dc1', 'dc2']);
    const left = await srv.req('GET', `${base}?labelSelector=set`);
    expect(left.json.items.map((i: any) => i.metadata.name)).toEqual(['dc3']);
  });

  it('answers 406 when only Protobuf is acceptable, JSON when it is a fallback', async () => {
    await srv.req('POST', base, widget(g, 'pb'));
    const r = await srv.req('GET', `${base}/pb`, undefined, { accept: 'application/vnd.orch.protobuf' });
    expect(r.status).toBe(406);
    expect(r.json.reason).toBe('NotAcceptable');
    const ok = await srv.req('GET', `${base}/pb`, undefined, {
      accept: 'application/vnd.orch.protobuf, application/json',
    });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toContain('application/json');
  });

  it('watches custom resources', async () => {
    const list = await srv.req('GET', base);
    const events = watch(`${base}?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`);
    await sleep(50);
    await srv.req('POST', base, widget(g, 'watched', { size: 'xs' }));
    const ev = await events.next((e) => e.object?.metadata?.name === 'watched');
    expect(ev.type).toBe('ADDED');
    expect(ev.object.kind).toBe('Widget');
    expect(ev.object.apiVersion).toBe(`${g}/v1`);
    await srv.req('DELETE', `${base}/watched`);
    const del = await events.next((e) => e.type === 'DELETED');
    expect(del.object.metadata.name).toBe('watched');
    events.close();
  });

  it('prunes unknown fields (Warning under Warn, 400 under Strict), keeps preserved ones', async () => {
    const body = widget(g, 'pr', { size: 's', extra: 1, free: { any: { thing: [1] } } }, { top: true });
    (body.metadata as any).bogus = 'x';
    const r = await srv.req('POST', base, body);
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.extra).toBeUndefined();
    expect(r.json.top).toBeUndefined();
    expect(r.json.metadata.bogus).toBeUndefined();
    expect(r.json.spec.free).toEqual({ any: { thing: [1] } });
    const w = warnings(r).join('\n');
    expect(w).toContain('unknown field \\"spec.extra\\"');
    expect(w).toContain('unknown field \\"top\\"');
    const strict = await srv.req(
      'POST',
      `${base}?fieldValidation=Strict`,
      widget(g, 'pr2', { size: 's', extra: 1 }),
    );
    expect(strict.status).toBe(400);
    expect(strict.json.message).toContain('unknown field "spec.extra"');
    const ignore = await srv.req(
      'POST',
      `${base}?fieldValidation=Ignore`,
      widget(g, 'pr3', { size: 's', extra: 1 }),
    );
    expect(ignore.status).toBe(201);
    expect(warnings(ignore)).toEqual([]);
    expect(ignore.json.spec.extra).toBeUndefined();
  });

  it('a wrong type is a 400', async () => {
    const r = await srv.req('POST', base, widget(g, 'ty', { size: 's', replicas: 'three' }));
    expect(r.status, r.text).toBe(400);
    expect(r.json.reason).toBe('BadRequest');
    const arr = await srv.req('POST', base, widget(g, 'ty2', { size: 's', tags: 'a' }));
    expect(arr.status).toBe(400);
  });

  it('value rules are a 422 with causes in Kubernetes wording', async () => {
    const r = await srv.req(
      'POST',
      base,
      widget(g, 'vr', {
        size: 'toolong',
        replicas: 0,
        color: 'purple',
        code: 'abc',
        tags: ['a', 'b', 'a', 'c'],
        when: 'yesterday',
      }),
    );
    expect(r.status, r.text).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(r.json.details).toMatchObject({ name: 'vr', group: g, kind: 'Widget' });
    const causes = r.json.details.causes as any[];
    const by = (f: string) => causes.filter((c) => c.field === f).map((c) => c.message);
    expect(by('spec.replicas')).toEqual([
      'Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
    ]);
    expect(by('spec.color')).toEqual(['Unsupported value: "purple": supported values: "red", "green"']);
    expect(by('spec.code')).toEqual(['Invalid value: "abc": spec.code in body should match \'^[0-9]+$\'']);
    expect(by('spec.size')).toEqual(['Too long: may not be longer than 5']);
    expect(by('spec.tags')).toEqual(['Too many: 4: must have at most 3 items']);
    expect(by('spec.tags[2]')).toEqual(['Duplicate value: "a"']);
    expect(by('spec.when')).toEqual([
      'Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
    ]);
    expect(causes.find((c) => c.field === 'spec.replicas').reason).toBe('FieldValueInvalid');
    expect(causes.find((c) => c.field === 'spec.color').reason).toBe('FieldValueNotSupported');
    const max = await srv.req('POST', base, widget(g, 'vr2', { size: 's', replicas: 11 }));
    expect(max.json.details.causes[0].message).toBe(
      'Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    );
  });

  it('a missing required field is a 422', async () => {
    const r = await srv.req('POST', base, widget(g, 'rq', { replicas: 2 }));
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toContainEqual({
      reason: 'FieldValueRequired',
      field: 'spec.size',
      message: 'Required value',
    });
  });

  it('list-type map items are unique by their keys', async () => {
    const r = await srv.req(
      'POST',
      base,
      widget(g, 'lm', {
        size: 's',
        ports: [
          { name: 'a', port: 1 },
          { name: 'a', port: 2 },
        ],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toContainEqual({
      reason: 'FieldValueDuplicate',
      field: 'spec.ports[1]',
      message: 'Duplicate value: map[string]interface {}{"name":"a"}',
    });
    const ok = await srv.req(
      'POST',
      base,
      widget(g, 'lm2', {
        size: 's',
        ports: [
          { name: 'a', port: 1 },
          { name: 'b', port: 1 },
        ],
      }),
    );
    expect(ok.status, ok.text).toBe(201);
  });

  it('int-or-string takes integers and strings only', async () => {
    expect((await srv.req('POST', base, widget(g, 'is1', { size: 's', port: 8080 }))).status).toBe(201);
    const s = await srv.req('POST', base, widget(g, 'is2', { size: 's', port: 'http' }));
    expect(s.status).toBe(201);
    expect(s.json.spec.port).toBe('http');
    expect((await srv.req('POST', base, widget(g, 'is3', { size: 's', port: true }))).status).toBe(400);
    expect((await srv.req('POST', base, widget(g, 'is4', { size: 's', port: 1.5 }))).status).toBe(400);
  });

  it('embedded resources keep apiVersion, kind and metadata (pruned to ObjectMeta) and are validated', async () => {
    const tpl = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { a: 'b' }, junk: 1 },
      spec: { x: 'y', z: 1 },
      other: 2,
    };
    const r = await srv.req('POST', base, widget(g, 'em', { size: 's', template: tpl }));
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.template).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { a: 'b' } },
      spec: { x: 'y' },
    });
    const noKind = await srv.req(
      'POST',
      base,
      widget(g, 'em2', { size: 's', template: { apiVersion: 'v1', spec: {} } }),
    );
    expect(noKind.status).toBe(422);
    expect(noKind.json.details.causes).toContainEqual({
      reason: 'FieldValueRequired',
      field: 'spec.template.kind',
      message: 'Required value: must not be empty',
    });
    const badLabel = await srv.req(
      'POST',
      base,
      widget(g, 'em3', {
        size: 's',
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { 'a b': 'c' } } },
      }),
    );
    expect(badLabel.status).toBe(422);
    expect(badLabel.json.details.causes[0].field).toBe('spec.template.metadata.labels');
  });

  it('status subresource: the main resource ignores status, /status ignores the rest', async () => {
    const c = await srv.req(
      'POST',
      base,
      widget(g, 'st', { size: 's', replicas: 1 }, { status: { phase: 'Set' } }),
    );
    expect(c.status).toBe(201);
    expect(c.json.status).toBeUndefined();
    const s1 = await srv.req('PUT', `${base}/st/status`, {
      ...c.json,
      spec: { size: 'l', replicas: 9 },
      status: { phase: 'Running', replicas: 1 },
    });
    expect(s1.status, s1.text).toBe(200);
    expect(s1.json.status).toEqual({ phase: 'Running', replicas: 1 });
    expect(s1.json.spec.size).toBe('s');
    expect(s1.json.metadata.generation).toBe(1);
    const m1 = await srv.req('PUT', `${base}/st`, { ...s1.json, status: { phase: 'Hacked' } });
    expect(m1.status).toBe(200);
    expect(m1.json.status.phase).toBe('Running');
    const p = await srv.req(
      'PATCH',
      `${base}/st/status`,
      { status: { phase: 'Done' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(p.status, p.text).toBe(200);
    expect(p.json.status.phase).toBe('Done');
    const gs = await srv.req('GET', `${base}/st/status`);
    expect(gs.json.status.phase).toBe('Done');
  });

  it('scale subresource reads and writes the replicas paths', async () => {
    const c = await srv.req('POST', base, widget(g, 'sc', { size: 's', replicas: 2 }));
    await srv.req(
      'PATCH',
      `${base}/sc/status`,
      { status: { replicas: 1, selector: 'app=sc' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    const s = await srv.req('GET', `${base}/sc/scale`);
    expect(s.status, s.text).toBe(200);
    expect(s.json).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'sc', namespace: 'default', uid: c.json.metadata.uid },
      spec: { replicas: 2 },
      status: { replicas: 1, selector: 'app=sc' },
    });
    const u = await srv.req('PUT', `${base}/sc/scale`, { ...s.json, spec: { replicas: 5 } });
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec.replicas).toBe(5);
    const after = await srv.req('GET', `${base}/sc`);
    expect(after.json.spec.replicas).toBe(5);
    expect(after.json.metadata.generation).toBe(2);
    const p = await srv.req(
      'PATCH',
      `${base}/sc/scale`,
      { spec: { replicas: 7 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(p.status, p.text).toBe(200);
    expect((await srv.req('GET', `${base}/sc`)).json.spec.replicas).toBe(7);
    // stale resourceVersion: conflict; negative: invalid; beyond the schema's maximum: invalid
    expect((await srv.req('PUT', `${base}/sc/scale`, { ...s.json, spec: { replicas: 3 } })).status).toBe(409);
    const neg = await srv.req('PUT', `${base}/sc/scale`, {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'sc' },
      spec: { replicas: -1 },
    });
    expect(neg.status).toBe(422);
    expect(neg.json.details.causes[0]).toMatchObject({
      field: 'spec.replicas',
      message: 'Invalid value: -1: must be greater than or equal to 0',
    });
    const big = await srv.req(
      'PATCH',
      `${base}/sc/scale`,
      { spec: { replicas: 50 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(big.status).toBe(422);
  });

  it('Table form uses the printer columns', async () => {
    await srv.req('POST', base, widget(g, 'tb', { size: 's', replicas: 3, color: 'green' }));
    const r = await srv.req('GET', `${base}/tb`, undefined, { accept: TABLE });
    expect(r.status, r.text).toBe(200);
    expect(r.json.kind).toBe('Table');
    expect(r.json.columnDefinitions.map((c: any) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Replicas', 'integer', 0],
      ['Color', 'string', 0],
      ['Phase', 'string', 1],
    ]);
    expect(r.json.columnDefinitions[1].description).toBe(
      'Custom resource definition column (in JSONPath format): .spec.replicas',
    );
    expect(r.json.columnDefinitions[2].description).toBe('the colour');
    expect(r.json.rows[0].cells).toEqual(['tb', 3, 'green', null]);
    const list = await srv.req('GET', `${base}?labelSelector=`, undefined, { accept: TABLE });
    expect(list.json.rows.length).toBeGreaterThan(0);
  });
});

describe('custom resources without printer columns', () => {
  it('Table form has the default Name and Created At columns; cluster scope works', async () => {
    const g = group();
    await createEstablished(
      crd({ group: g, scope: 'Cluster', schema: { type: 'object', 'x-orch-preserve-unknown-fields': true } }),
    );
    const base = `/apis/${g}/v1/widgets`;
    const c = await srv.req('POST', base, {
      apiVersion: `${g}/v1`,
      kind: 'Widget',
      metadata: { name: 'c1' },
      anything: { goes: true },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json.metadata.namespace).toBeUndefined();
    expect(c.json.anything).toEqual({ goes: true });
    expect((await srv.req('GET', `/apis/${g}/v1/namespaces/default/widgets`)).status).toBe(404);
    const t = await srv.req('GET', `${base}/c1`, undefined, { accept: TABLE });
    expect(t.json.columnDefinitions.map((x: any) => [x.name, x.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect(t.json.rows[0].cells).toEqual(['c1', c.json.metadata.creationTimestamp]);
  });
});

describe('CustomResourceDefinition: updates', () => {
  it('a schema change changes what is served', async () => {
    const g = group();
    const b = crd({
      group: g,
      schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
      },
    });
    const got = await createEstablished(b);
    const base = `/apis/${g}/v1/namespaces/default/widgets`;
    const before = await srv.req('POST', base, {
      apiVersion: `${g}/v1`,
      kind: 'Widget',
      metadata: { name: 'u1' },
      spec: { a: 'x', b: 'y' },
    });
    expect(before.json.spec).toEqual({ a: 'x' });
    const upd = structuredClone(got);
    upd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.b = { type: 'string' };
    const r = await srv.req('PUT', `${CRDS}/${b.metadata.name}`, upd);
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.generation).toBe(2);
    const after = await eventually(async () => {
      const x = await srv.req('POST', base, {
        apiVersion: `${g}/v1`,
        kind: 'Widget',
        metadata: { generateName: 'u-' },
        spec: { a: 'x', b: 'y' },
      });
      return x.json.spec?.b === 'y' ? x : undefined;
    }, 'new schema served');
    expect(after.status).toBe(201);
  });

  it('a default added to the schema reaches objects stored before it when read: get, list, watch', async () => {
    const g = group();
    const b = crd({
      group: g,
      schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
        },
      },
    });
    const got = await createEstablished(b);
    const base = `/apis/${g}/v1/namespaces/default/widgets`;
    const c = await srv.req('POST', base, widget(g, 'old', {}));
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec).toEqual({});
    const upd = structuredClone(got);
    upd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.a.default = 'A';
    const r = await srv.req('PUT', `${CRDS}/${b.metadata.name}`, upd);
    expect(r.status, r.text).toBe(200);
    const read = await eventually(async () => {
      const x = await srv.req('GET', `${base}/old`);
      return x.json.spec?.a === 'A' ? x : undefined;
    }, 'the default on read');
    // read only: the stored object keeps its resourceVersion
    expect(read.json.metadata.resourceVersion).toBe(c.json.metadata.resourceVersion);
    const list = await srv.req('GET', base);
    expect(list.json.items.map((o: any) => o.spec)).toEqual([{ a: 'A' }]);
    const w = watch(`${base}?watch=true&resourceVersion=0`);
    try {
      const e = await w.next((x) => x.object?.metadata?.name === 'old');
      expect(e.object.spec).toEqual({ a: 'A' });
    } finally {
      w.close();
    }
    // a later default for b joins it; removing a's default keeps what was written with it
    const c2 = await srv.req('POST', base, widget(g, 'new', {}));
    expect(c2.json.spec).toEqual({ a: 'A' });
    const upd2 = structuredClone(r.json);
    const props = upd2.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    delete props.a.default;
    props.b.default = 'B';
    expect((await srv.req('PUT', `${CRDS}/${b.metadata.name}`, upd2)).status).toBe(200);
    const read2 = await eventually(async () => {
      const x = await srv.req('GET', `${base}/new`);
      return x.json.spec?.b === 'B' ? x : undefined;
    }, 'the second default on read');
    expect(read2.json.spec).toEqual({ a: 'A', b: 'B' });
    expect((await srv.req('GET', `${base}/old`)).json.spec).toEqual({ b: 'B' });
  });

  it('a new storage version is added to storedVersions; removing a stored version is refused', async () => {
    const g = group();
    const sch = { openAPIV3Schema: { type: 'object', 'x-orch-preserve-unknown-fields': true } };
    const b = crd({ group: g, versions: [{ name: 'v1', served: true, storage: true, schema: sch }] });
    const got = await createEstablished(b);
    const upd = structuredClone(got);
    upd.spec.versions = [
      { name: 'v1', served: true, storage: false, schema: sch },
      { name: 'v2', served: true, storage: true, schema: sch },
    ];
    const r = await srv.req('PUT', `${CRDS}/${b.metadata.name}`, upd);
    expect(r.status, r.text).toBe(200);
    expect(r.json.status.storedVersions).toEqual(['v1', 'v2']);
    await eventually(
      async () => ((await srv.req('GET', `/apis/${g}/v2`)).status === 200 ? true : undefined),
      'v2 served',
    );
    const drop = structuredClone(r.json);
    drop.spec.versions = [{ name: 'v2', served: true, storage: true, schema: sch }];
    const d = await srv.req('PUT', `${CRDS}/${b.metadata.name}`, drop);
    expect(d.status).toBe(422);
    expect(d.json.details.causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'status.storedVersions[0]',
      message: 'Invalid value: "v1": must appear in spec.versions',
    });
  });
});

describe('CustomResourceDefinition: deletion', () => {
  it('deletes every custom resource, stops serving, then goes', async () => {
    const g = group();
    const b = crd({ group: g });
    await createEstablished(b);
    await srv.req('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: `ns-${counter}` },
    });
    const base = `/apis/${g}/v1/namespaces/default/widgets`;
    await srv.req('POST', base, widget(g, 'd1'));
    await srv.req('POST', `/apis/${g}/v1/namespaces/ns-${counter}/widgets`, widget(g, 'd2'));
    // a custom resource with a finalizer holds the definition's deletion
    await srv.req(
      'POST',
      base,
      widget(g, 'held', { size: 's' }, { metadata: { name: 'held', finalizers: ['example.com/hold'] } }),
    );
    const d = await srv.req('DELETE', `${CRDS}/${b.metadata.name}`);
    expect(d.status, d.text).toBe(200);
    expect(d.json.metadata.deletionTimestamp).toBeTruthy();
    expect(d.json.metadata.finalizers).toContain('customresourcecleanup.apiextensions.orch.io');
    expect(cond(d.json, 'Terminating')).toMatchObject({ status: 'True', reason: 'InstanceDeletionPending' });
    // instances without finalizers go; the held one is marked
    await eventually(
      async () => ((await srv.req('GET', `${base}/d1`)).status === 404 ? true : undefined),
      'd1 deleted',
    );
    const held = await eventually(async () => {
      const x = await srv.req('GET', `${base}/held`);
      return x.json?.metadata?.deletionTimestamp ? x.json : undefined;
    }, 'held marked');
    const mid = await srv.req('GET', `${CRDS}/${b.metadata.name}`);
    expect(mid.status).toBe(200);
    expect(cond(mid.json, 'Terminating')).toMatchObject({
      status: 'True',
      reason: 'InstanceDeletionInProgress',
    });
    // no new instances while terminating
    const create = await srv.req('POST', base, widget(g, 'late'));
    expect(create.status).toBe(405);
    expect(create.json.message).toBe('create not allowed while custom resource definition is terminating');
    // releasing the finalizer lets everything go
    const rel = await srv.req('PUT', `${base}/held`, {
      ...held,
      metadata: { ...held.metadata, finalizers: [] },
    });
    expect(rel.status, rel.text).toBe(200);
    await eventually(
      async () => ((await srv.req('GET', `${CRDS}/${b.metadata.name}`)).status === 404 ? true : undefined),
      'definition removed',
    );
    expect((await srv.req('GET', `/apis/${g}/v1`)).status).toBe(404);
    expect((await srv.req('GET', base)).status).toBe(404);
    expect((await srv.req('GET', '/apis')).json.groups.some((x: any) => x.name === g)).toBe(false);
    // the same definition can be created again, and starts empty
    await createEstablished(crd({ group: g }));
    const again = await srv.req('GET', `/apis/${g}/v1/widgets`);
    expect(again.json.items).toEqual([]);
  });

  it('a definition that was never established goes at once', async () => {
    const g = group();
    await createEstablished(crd({ group: g }));
    const clash = crd({ group: g, plural: 'others', kind: 'Widget', shortNames: [] });
    await srv.req('POST', CRDS, clash);
    await eventually(async () => {
      const x = await srv.req('GET', `${CRDS}/${clash.metadata.name}`);
      return cond(x.json, 'NamesAccepted')?.status === 'False' ? true : undefined;
    }, 'conflict');
    const d = await srv.req('DELETE', `${CRDS}/${clash.metadata.name}`);
    expect(d.status).toBe(200);
    await eventually(
      async () =>
        (await srv.req('GET', `${CRDS}/${clash.metadata.name}`)).status === 404 ? true : undefined,
      'removed',
    );
  });
});

describe('nullable, defaults and metadata rules', () => {
  it('drops non-nullable nulls, keeps nullable ones, defaults nulls that have a default, checks metadata.name rules', async () => {
    const g = group();
    const schema = {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 8 } } },
        spec: {
          type: 'object',
          properties: {
            a: { type: 'string' },
            b: { type: 'string', nullable: true },
            c: { type: 'string', default: 'dflt' },
            nested: { type: 'object', default: {}, properties: { d: { type: 'integer', default: 7 } } },
          },
        },
      },
    };
    await createEstablished(crd({ group: g, schema }));
    const base = `/apis/${g}/v1/namespaces/default/widgets`;
    const r = await srv.req('POST', base, widget(g, 'n1', { a: null, b: null, c: null }));
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec).toEqual({ b: null, c: 'dflt', nested: { d: 7 } });
    const long = await srv.req('POST', base, widget(g, 'much-too-long'));
    expect(long.status).toBe(422);
    expect(long.json.details.causes).toContainEqual({
      reason: 'FieldValueTooLong',
      field: 'metadata.name',
      message: 'Too long: may not be longer than 8',
    });
  });
});

describe('value validation (schema/validate.ts)', () => {
  const msgs = (v: unknown, s: unknown) =>
    validateValue(v, s as never, 'spec.x').map((c) => `${c.field}: ${c.message}`);

  it('numbers: exclusive bounds, multipleOf, int32', () => {
    expect(msgs(5, { type: 'integer', minimum: 5, exclusiveMinimum: true })).toEqual([
      'spec.x: Invalid value: 5: spec.x in body should be greater than 5',
    ]);
    expect(msgs(10, { type: 'integer', maximum: 10, exclusiveMaximum: true })).toEqual([
      'spec.x: Invalid value: 10: spec.x in body should be less than 10',
    ]);
    expect(msgs(1.5, { type: 'number', maximum: 1.25 })).toEqual([
      'spec.x: Invalid value: 1.5: spec.x in body should be less than or equal to 1.25',
    ]);
    expect(msgs(7, { type: 'integer', multipleOf: 5 })).toEqual([
      'spec.x: Invalid value: 7: spec.x in body should be a multiple of 5',
    ]);
    expect(msgs(10, { type: 'integer', multipleOf: 5 })).toEqual([]);
    expect(msgs(2 ** 31, { type: 'integer', format: 'int32' })).toHaveLength(1);
    expect(msgs(2 ** 31 - 1, { type: 'integer', format: 'int32' })).toEqual([]);
  });

  it('strings: minLength (in characters), formats', () => {
    expect(msgs('ab', { type: 'string', minLength: 3 })).toEqual([
      'spec.x: Invalid value: "ab": spec.x in body should be at least 3 chars long',
    ]);
    expect(msgs('éé', { type: 'string', maxLength: 2 })).toEqual([]);
    expect(msgs('2024-02-30', { type: 'string', format: 'date' })).toEqual([
      'spec.x: Invalid value: "2024-02-30": spec.x in body must be of type date: "2024-02-30"',
    ]);
    expect(msgs('2024-02-29', { type: 'string', format: 'date' })).toEqual([]);
    expect(msgs('2024-02-29T10:00:00Z', { type: 'string', format: 'date-time' })).toEqual([]);
    expect(msgs('not base64!', { type: 'string', format: 'byte' })).toHaveLength(1);
    expect(msgs('aGVsbG8=', { type: 'string', format: 'byte' })).toEqual([]);
    expect(msgs('1h30m', { type: 'string', format: 'duration' })).toEqual([]);
    expect(msgs('soon', { type: 'string', format: 'duration' })).toHaveLength(1);
    expect(msgs('anything', { type: 'string', format: 'no-such-format' })).toEqual([]);
  });

  it('arrays and objects: minItems, uniqueItems, min/maxProperties, additionalProperties, required', () => {
    expect(msgs([1], { type: 'array', items: { type: 'integer' }, minItems: 2 })).toEqual([
      'spec.x: Invalid value: 1: spec.x in body should have at least 2 items',
    ]);
    expect(msgs([1, 1], { type: 'array', items: { type: 'integer' }, uniqueItems: true })).toEqual([
      'spec.x: Invalid value: "": spec.x in body shouldn\'t contain duplicates',
    ]);
    expect(
      msgs(
        { a: 1, b: 2, c: 3 },
        { type: 'object', maxProperties: 2, additionalProperties: { type: 'integer' } },
      ),
    ).toEqual(['spec.x: Too many: 3: must have at most 2 items']);
    expect(
      msgs({ a: 1, b: 20 }, { type: 'object', additionalProperties: { type: 'integer', maximum: 10 } }),
    ).toEqual(['spec.x.b: Invalid value: 20: spec.x.b in body should be less than or equal to 10']);
    expect(msgs({}, { type: 'object', required: ['constructor'] })).toEqual([
      'spec.x.constructor: Required value',
    ]);
    expect(
      msgs([{ k: 'a' }, { k: 'a' }], { type: 'array', 'x-orch-list-type': 'set', items: { type: 'object' } }),
    ).toEqual(['spec.x[1]: Duplicate value: map[string]interface {}{"k":"a"}']);
  });

  it('nullable and junctors (anyOf, oneOf, not)', () => {
    expect(msgs(null, { type: 'string', nullable: true })).toEqual([]);
    expect(msgs(null, { type: 'string' })).toEqual([
      'spec.x: Invalid value: "null": spec.x in body must be of type string: "null"',
    ]);
    expect(msgs(3, { type: 'integer', anyOf: [{ minimum: 5 }, { maximum: 1 }] })).toEqual([
      'spec.x: Invalid value: 3: spec.x in body must validate at least one schema (anyOf)',
    ]);
    expect(msgs(3, { type: 'integer', oneOf: [{ minimum: 1 }, { maximum: 5 }] })).toEqual([
      'spec.x: Invalid value: 3: spec.x in body must validate one and only one schema (oneOf)',
    ]);
    expect(msgs('a', { type: 'string', not: { enum: ['a'] } })).toEqual([
      'spec.x: Invalid value: "a": spec.x in body must not validate the schema (not)',
    ]);
  });

  it('prints values as Go does', () => {
    expect(goSyntax({ b: [1, 'x'], a: true })).toBe(
      'map[string]interface {}{"a":true, "b":[]interface {}{1, "x"}}',
    );
  });
});

describe('restart', () => {
  it('serves the custom resources of stored definitions right after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-crd-'));
    try {
      const a = await startServer({ inMemory: false, dataDir: dir, fsync: false });
      const g = group();
      const b = crd({ group: g });
      const r = await a.req('POST', CRDS, b);
      expect(r.status).toBe(201);
      await eventually(
        async () =>
          cond((await a.req('GET', `${CRDS}/${b.metadata.name}`)).json, 'Established')?.status === 'True'
            ? true
            : undefined,
        'established',
      );
      const c = await a.req('POST', `/apis/${g}/v1/namespaces/default/widgets`, widget(g, 'kept'));
      expect(c.status).toBe(201);
      await a.close();
      const bsrv = await startServer({ inMemory: false, dataDir: dir, fsync: false });
      try {
        const got = await bsrv.req('GET', `/apis/${g}/v1/namespaces/default/widgets/kept`);
        expect(got.status, got.text).toBe(200);
        expect(got.json.metadata.uid).toBe(c.json.metadata.uid);
        const disc = await bsrv.req('GET', `/apis/${g}/v1`);
        expect(disc.json.resources.map((x: any) => x.name)).toContain('widgets');
      } finally {
        await bsrv.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------

const agent = new Agent({ connect: { rejectUnauthorized: false } });

/** A watch stream; `next(pred)` resolves with the first event matching. */
function watch(path: string) {
  const events: any[] = [];
  const waiters: { pred: (e: any) => boolean; resolve: (e: any) => void }[] = [];
  const ac = new AbortController();
  const check = () => {
    for (const w of [...waiters]) {
      const i = events.findIndex(w.pred);
      if (i >= 0) {
        const [e] = events.splice(i, 1);
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
    }
  };
  void (async () => {
    try {
      const r = await request(srv.url + path, {
        headers: { authorization: `Bearer ${srv.token}` },
        dispatcher: agent,
        signal: ac.signal,
      });
      let buf = '';
      for await (const chunk of r.body) {
        buf += chunk.toString();
        let nl = buf.indexOf('\n');
        while (nl >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) events.push(JSON.parse(line));
          nl = buf.indexOf('\n');
        }
        check();
      }
    } catch {
      // aborted
    }
  })();
  return {
    next(pred: (e: any) => boolean): Promise<any> {
      return new Promise((resolve, reject) => {
        waiters.push({ pred, resolve });
        check();
        setTimeout(() => reject(new Error('no matching watch event')), 10_000).unref();
      });
    },
    close: () => ac.abort(),
  };
}
