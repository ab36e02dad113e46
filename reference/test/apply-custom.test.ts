// Server-side apply on custom resources (doc2 "Merge strategy markers": "Custom resources
// are treated as unstructured by default: all keys act like struct fields and all lists are
// atomic, unless their schema carries the markers above"), over HTTP against a definition
// whose schema has lists and maps with and without the markers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, entry, owners, RFC3339 } from './apply-helpers.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
const GROUP = `apply${process.pid}.example.com`;
const API_VERSION = `${GROUP}/v1`;
const THINGS = `/apis/${GROUP}/v1/namespaces/default/things`;

const str = { type: 'string' };
const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: str,
        replicas: { type: 'integer', default: 1 },
        // with markers
        tags: { type: 'array', items: str, 'x-orch-list-type': 'set' },
        ports: {
          type: 'array',
          'x-orch-list-type': 'map',
          'x-orch-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: str, port: { type: 'integer' } } },
        },
        selector: { type: 'object', 'x-orch-map-type': 'atomic', properties: { a: str, b: str } },
        // without markers
        items: { type: 'array', items: str },
        objs: { type: 'array', items: { type: 'object', properties: { name: str, v: str } } },
        labels: { type: 'object', additionalProperties: str },
        free: { type: 'object', 'x-orch-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { phase: str } },
  },
};

let ts: TestServer;

beforeAll(async () => {
  ts = await startServer();
  const crd = {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `things.${GROUP}` },
    spec: {
      group: GROUP,
      names: { plural: 'things', singular: 'thing', kind: 'Thing' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {} },
        },
      ],
    },
  };
  const r = await ts.req('POST', CRDS, crd);
  expect(r.status, r.text).toBe(201);
  const until = Date.now() + 10_000;
  for (;;) {
    const g = await ts.req('GET', `${CRDS}/things.${GROUP}`);
    if ((g.json?.status?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True'))
      break;
    if (Date.now() > until) throw new Error('the definition did not become Established');
    await new Promise((res) => setTimeout(res, 20));
  }
});
afterAll(async () => {
  await ts?.close();
});

const thing = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: API_VERSION,
  kind: 'Thing',
  metadata: { name },
  spec,
  ...extra,
});

async function created(manager: string, spec: Record<string, unknown>) {
  const name = uniqueName('t');
  const path = `${THINGS}/${name}`;
  const r = await apply(ts, path, thing(name, spec), { manager });
  expect(r.status, r.text).toBe(201);
  return { name, path, obj: r.json };
}

describe('custom resources: lists with markers', () => {
  it('a set (x-orch-list-type: set): each applier owns its values, no conflict (MUST)', async () => {
    const { name, path, obj } = await created('manager-a', { tags: ['red'] });
    expect(entry(obj, 'manager-a')).toEqual({
      manager: 'manager-a',
      operation: 'Apply',
      apiVersion: API_VERSION,
      time: expect.stringMatching(RFC3339),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:tags': { 'v:"red"': {} } } },
    });
    const r = await apply(ts, path, thing(name, { tags: ['blue'] }), { manager: 'manager-b' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.tags).toEqual(['red', 'blue']);
    expect(owners(r.json, ['f:spec', 'f:tags', 'v:"blue"'])).toEqual(['manager-b/Apply']);
  });

  it("a map list (x-orch-list-type: map, keys name): items owned separately, a field of another's item conflicts (MUST)", async () => {
    const { name, path } = await created('manager-a', { ports: [{ name: 'http', port: 80 }] });
    const r = await apply(ts, path, thing(name, { ports: [{ name: 'https', port: 443 }] }), {
      manager: 'manager-b',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.ports).toEqual([
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
    ]);
    expect(owners(r.json, ['f:spec', 'f:ports', 'k:{"name":"https"}'])).toEqual(['manager-b/Apply']);
    const x = await apply(ts, path, thing(name, { ports: [{ name: 'http', port: 8080 }] }), {
      manager: 'manager-b',
    });
    expect(x.status, x.text).toBe(409);
    expect(x.json.details.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "manager-a"',
        field: '.spec.ports[name="http"].port',
      },
    ]);
  });

  it('an atomic map (x-orch-map-type: atomic) is replaced whole and conflicts whole (MUST)', async () => {
    const { name, path } = await created('manager-a', { selector: { a: '1' } });
    const x = await apply(ts, path, thing(name, { selector: { b: '2' } }), { manager: 'manager-b' });
    expect(x.status, x.text).toBe(409);
    expect(x.json.details.causes.map((c: any) => c.field)).toEqual(['.spec.selector']);
    const f = await apply(ts, path, thing(name, { selector: { b: '2' } }), {
      manager: 'manager-b',
      force: true,
    });
    expect(f.status, f.text).toBe(200);
    expect(f.json.spec.selector).toEqual({ b: '2' });
    expect(owners(f.json, ['f:spec', 'f:selector'])).toEqual(['manager-b/Apply']);
  });
});

describe('custom resources: without markers', () => {
  it("a list of scalars is atomic: another applier's list conflicts on the whole list (MUST)", async () => {
    const { name, path, obj } = await created('manager-a', { items: ['x'] });
    expect(entry(obj, 'manager-a')?.fieldsV1).toEqual({ 'f:spec': { 'f:items': {} } });
    const x = await apply(ts, path, thing(name, { items: ['y'] }), { manager: 'manager-b' });
    expect(x.status, x.text).toBe(409);
    expect(x.json.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "manager-a"', field: '.spec.items' },
    ]);
    const f = await apply(ts, path, thing(name, { items: ['y'] }), { manager: 'manager-b', force: true });
    expect(f.status, f.text).toBe(200);
    // replaced, not merged
    expect(f.json.spec.items).toEqual(['y']);
    expect(entry(f.json, 'manager-a')).toBeUndefined();
  });

  it('a list of objects is atomic too (MUST)', async () => {
    const { name, path } = await created('manager-a', { objs: [{ name: 'one', v: '1' }] });
    const same = await apply(ts, path, thing(name, { objs: [{ name: 'one', v: '1' }] }), {
      manager: 'manager-b',
    });
    expect(same.status, same.text).toBe(200);
    expect(owners(same.json, ['f:spec', 'f:objs'])).toEqual(['manager-a/Apply', 'manager-b/Apply']);
    const x = await apply(ts, path, thing(name, { objs: [{ name: 'two', v: '2' }] }), {
      manager: 'manager-c',
    });
    expect(x.status).toBe(409);
    expect(x.json.details.causes.map((c: any) => `${c.field} ${c.message}`)).toEqual([
      '.spec.objs conflict with "manager-a"',
      '.spec.objs conflict with "manager-b"',
    ]);
  });

  it('maps are granular: each applier owns its keys (MUST)', async () => {
    const { name, path } = await created('manager-a', { labels: { x: '1' }, size: 's' });
    const r = await apply(ts, path, thing(name, { labels: { y: '2' } }), { manager: 'manager-b' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.labels).toEqual({ x: '1', y: '2' });
    expect(owners(r.json, ['f:spec', 'f:labels', 'f:x'])).toEqual(['manager-a/Apply']);
    expect(owners(r.json, ['f:spec', 'f:labels', 'f:y'])).toEqual(['manager-b/Apply']);
  });

  it('preserved unknown fields: every key is an entry, owned with `.` when it has children (beyond the text)', async () => {
    const { obj } = await created('manager-a', { free: { a: { b: 1 }, c: 'x' } });
    expect(entry(obj, 'manager-a')?.fieldsV1).toEqual({
      'f:spec': { 'f:free': { 'f:a': { '.': {}, 'f:b': {} }, 'f:c': {} } },
    });
  });
});

describe('custom resources: Strict field validation words refusals as an apply does', () => {
  const strict = { manager: 'strict', query: 'fieldValidation=Strict' };

  // (the walk of a map stops at its first undeclared key, so the fields before it are walked)
  it('an undeclared field: `failed to create typed patch object (...): .spec.x: field not declared in schema`', async () => {
    const name = uniqueName('strict');
    const body = `apiVersion: ${API_VERSION}
kind: Thing
metadata:
  name: ${name}
spec:
  size: s
  ports:
  - name: a
    port: 1
    bogus: x
unknownField: unknown
`;
    const r = await apply(ts, `${THINGS}/${name}`, body, strict);
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toBe(
      `failed to create typed patch object (default/${name}; ${API_VERSION}, Kind=Thing): errors:\n  .spec.ports[name="a"].bogus: field not declared in schema\n  .unknownField: field not declared in schema`,
    );
    expect((await ts.req('GET', `${THINGS}/${name}`)).status).toBe(404);
  });

  it('unknown metadata is undeclared too; preserved and free-form fields are not', async () => {
    const name = uniqueName('strict');
    const r = await apply(
      ts,
      `${THINGS}/${name}`,
      { apiVersion: API_VERSION, kind: 'Thing', metadata: { name, unknownMeta: 'x' } },
      strict,
    );
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toContain('.metadata.unknownMeta: field not declared in schema');
    const ok = await apply(
      ts,
      `${THINGS}/${name}`,
      {
        apiVersion: API_VERSION,
        kind: 'Thing',
        metadata: { name },
        spec: { free: { any: { deep: 1 } }, labels: { k: 'v' } },
      },
      strict,
    );
    expect(ok.status, ok.text).toBe(201);
  });

  it('a key repeated in the YAML text: `error strict decoding YAML: ... line N: key "k" already set in map`', async () => {
    const name = uniqueName('strict');
    const body = `
apiVersion: ${API_VERSION}
kind: Thing
metadata:
  name: ${name}
spec:
  free:
    kept: 1
  size: a
  size: b
`;
    const r = await apply(ts, `${THINGS}/${name}`, body, strict);
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toBe(
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 10: key "size" already set in map',
    );
    // Warn keeps last-wins and warns
    const w = await apply(ts, `${THINGS}/${name}`, body, {
      manager: 'strict',
      query: 'fieldValidation=Warn',
    });
    expect(w.status, w.text).toBe(201);
    expect(w.json.spec.size).toBe('b');
  });
});

describe('custom resources: defaults, Update managers, status', () => {
  it('a field the sole applier drops is reset to the schema default (MUST)', async () => {
    const { name, path, obj } = await created('manager-a', { replicas: 3, size: 'm' });
    expect(obj.spec.replicas).toBe(3);
    const r = await apply(ts, path, thing(name, { size: 'm' }), { manager: 'manager-a' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.replicas).toBe(1);
    expect(owners(r.json, ['f:spec', 'f:replicas'])).toEqual([]);
  });

  it('a conflict with a creator names its apiVersion; a create owns the maps it made with `.` (beyond the text)', async () => {
    const name = uniqueName('t');
    const c = await ts.req(
      'POST',
      `${THINGS}?fieldManager=creator`,
      thing(name, { size: 's', labels: { x: '1' } }),
    );
    expect(c.status, c.text).toBe(201);
    expect(entry(c.json, 'creator', 'Update')?.fieldsV1).toEqual({
      'f:spec': { '.': {}, 'f:labels': { '.': {}, 'f:x': {} }, 'f:replicas': {}, 'f:size': {} },
    });
    const x = await apply(ts, `${THINGS}/${name}`, thing(name, { size: 'l' }), { manager: 'ssa' });
    expect(x.status).toBe(409);
    expect(x.json.message).toBe(
      `Apply failed with 1 conflict: conflict with "creator" using ${API_VERSION}: .spec.size`,
    );
  });

  it('status: not owned through the main resource; an apply to /status records `subresource: status` (MUST)', async () => {
    const name = uniqueName('t');
    const path = `${THINGS}/${name}`;
    const r = await apply(ts, path, thing(name, { size: 's' }, { status: { phase: 'Ignored' } }), {
      manager: 'user',
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.status).toBeUndefined();
    expect(entry(r.json, 'user')?.fieldsV1).toEqual({ 'f:spec': { 'f:size': {} } });
    const s = await apply(ts, path, thing(name, { size: 'xl' }, { status: { phase: 'Ready' } }), {
      manager: 'controller',
      subresource: 'status',
    });
    expect(s.status, s.text).toBe(200);
    expect(s.json.status).toEqual({ phase: 'Ready' });
    expect(s.json.spec.size).toBe('s');
    expect(entry(s.json, 'controller', 'Apply', 'status')?.fieldsV1).toEqual({
      'f:status': { 'f:phase': {} },
    });
  });
});

describe("doc2 ownership table, rows 10 and 11: a field's topology changed by a schema change", () => {
  const TOPO_GROUP = `topo${process.pid}.example.com`;
  const TOPOS = `/apis/${TOPO_GROUP}/v1/namespaces/default/topos`;
  const crdName = `topos.${TOPO_GROUP}`;
  const definition = (listType: 'set' | 'atomic') => ({
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName },
    spec: {
      group: TOPO_GROUP,
      names: { plural: 'topos', singular: 'topo', kind: 'Topo' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { topo: { type: 'array', items: str, 'x-orch-list-type': listType } },
                },
              },
            },
          },
        },
      ],
    },
  });
  const topo = (name: string, values: string[]) => ({
    apiVersion: `${TOPO_GROUP}/v1`,
    kind: 'Topo',
    metadata: { name },
    spec: { topo: values },
  });

  /** Sets the list type and waits until it is in force: a set refuses a duplicate in an intent, an atomic list does not. */
  async function listType(t: 'set' | 'atomic') {
    const cur = await ts.req('GET', `${CRDS}/${crdName}`);
    const body = cur.status === 404 ? definition(t) : { ...definition(t), metadata: cur.json.metadata };
    const w = await ts.req(
      cur.status === 404 ? 'POST' : 'PUT',
      cur.status === 404 ? CRDS : `${CRDS}/${crdName}`,
      body,
    );
    expect(w.status, w.text).toBeLessThan(300);
    const until = Date.now() + 10_000;
    for (;;) {
      const probe = await apply(ts, `${TOPOS}/probe`, topo('probe', ['d', 'd']), {
        manager: 'probe',
        dryRun: true,
      });
      if ((t === 'set' && probe.status === 400) || (t === 'atomic' && probe.status === 201)) return;
      if (Date.now() > until)
        throw new Error(`spec.topo is not a ${t} list 10 s after the change (${probe.status})`);
      await new Promise((res) => setTimeout(res, 20));
    }
  }

  it('row 10: set to atomic: the owners of any element own the whole list; a change conflicts with each (MUST)', async () => {
    await listType('set');
    const name = uniqueName('topo');
    const path = `${TOPOS}/${name}`;
    expect((await apply(ts, path, topo(name, ['a']), { manager: 'alice' })).status).toBe(201);
    const both = await apply(ts, path, topo(name, ['b']), { manager: 'bob' });
    expect(both.status, both.text).toBe(200);
    expect(both.json.spec.topo).toEqual(['a', 'b']);
    await listType('atomic');
    const x = await apply(ts, path, topo(name, ['c']), { manager: 'carol' });
    expect(x.status, x.text).toBe(409);
    expect(x.json.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.topo' },
      { reason: 'FieldManagerConflict', message: 'conflict with "bob"', field: '.spec.topo' },
    ]);
    const f = await apply(ts, path, topo(name, ['c']), { manager: 'carol', force: true });
    expect(f.status, f.text).toBe(200);
    expect(f.json.spec.topo).toEqual(['c']);
    expect(f.json.metadata.managedFields.map((e: any) => e.manager)).toEqual(['carol']);
    expect(entry(f.json, 'carol')?.fieldsV1).toEqual({ 'f:spec': { 'f:topo': {} } });
  });

  it('row 11: atomic to set: inner ownership cannot be inferred, a later item change does not conflict (MUST)', async () => {
    await listType('atomic');
    const name = uniqueName('topo');
    const path = `${TOPOS}/${name}`;
    expect((await apply(ts, path, topo(name, ['a', 'b']), { manager: 'alice' })).status).toBe(201);
    expect((await apply(ts, path, topo(name, ['c']), { manager: 'bob' })).status).toBe(409);
    await listType('set');
    const r = await apply(ts, path, topo(name, ['c']), { manager: 'bob' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.spec.topo).toEqual(['a', 'b', 'c']);
    expect(owners(r.json, ['f:spec', 'f:topo', 'v:"c"'])).toEqual(['bob/Apply']);
    expect(owners(r.json, ['f:spec', 'f:topo'])).toEqual(['alice/Apply']);
  });
});
