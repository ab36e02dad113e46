// /openapi/v2 and /openapi/v3: generated from the registry, consistent with what the server
// serves, in the encodings clients ask for, cacheable, and regenerated when resources change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaticTokenAuthenticator } from '../src/authentication/token-file.ts';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_REPLY } from '../src/http/openapi/index.ts';
import { SERVER_VERSION } from '../src/index.ts';
import type { ResourceDef } from '../src/registry/types.ts';
import { mapOf, str } from '../src/schema/dsl.ts';
import { objectSchema } from '../src/schema/meta.ts';
import { startServer, type TestServer } from './helpers.ts';

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer();
});
afterAll(async () => {
  await ts?.close();
});

type Json = Record<string, any>;

const v2 = async (): Promise<Json> => {
  const r = await ts.req('GET', '/openapi/v2', undefined, { accept: 'application/json' });
  expect(r.status).toBe(200);
  return r.json;
};

/** Every `$ref` in a document, with where it points. */
function refs(x: unknown, out: string[] = []): string[] {
  if (Array.isArray(x)) for (const e of x) refs(e, out);
  else if (x && typeof x === 'object')
    for (const [k, v] of Object.entries(x)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  return out;
}

function keysNamed(x: unknown, name: string, path = '', out: string[] = []): string[] {
  if (Array.isArray(x)) {
    for (const [i, e] of x.entries()) keysNamed(e, name, `${path}[${i}]`, out);
  } else if (x && typeof x === 'object')
    for (const [k, v] of Object.entries(x)) {
      if (k === name) out.push(`${path}.${k}`);
      keysNamed(v, name, `${path}.${k}`, out);
    }
  return out;
}

/** Top-level fields of a Protobuf message: field number -> raw values (varints or bytes). */
function protoFields(buf: Buffer): Map<number, (Buffer | number)[]> {
  const out = new Map<number, (Buffer | number)[]>();
  let i = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = buf[i++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
      shift += 7;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    let value: Buffer | number;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = varint();
      value = buf.subarray(i, i + len);
      i += len;
    } else if (wire === 1) {
      value = buf.subarray(i, i + 8);
      i += 8;
    } else if (wire === 5) {
      value = buf.subarray(i, i + 4);
      i += 4;
    } else throw new Error(`unexpected wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

describe('/openapi/v2', () => {
  it('describes the built-in kinds from their registry schemas', async () => {
    const doc = await v2();
    expect(doc.swagger).toBe('2.0');
    expect(doc.info.version).toBe(SERVER_VERSION.gitVersion);
    const cm = doc.definitions['io.orch.api.core.v1.ConfigMap'];
    expect(cm['x-orch-group-version-kind']).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    expect(cm.properties.data).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    expect(cm.properties.immutable).toMatchObject({ type: 'boolean' });
    expect(cm.properties.metadata).toEqual({
      $ref: '#/definitions/io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
    const meta = doc.definitions['io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
    expect(meta.properties.finalizers).toMatchObject({
      type: 'array',
      'x-orch-list-type': 'set',
      'x-orch-patch-strategy': 'merge',
    });
    const list = doc.definitions['io.orch.api.core.v1.ConfigMapList'];
    expect(list.properties.items.items).toEqual({ $ref: '#/definitions/io.orch.api.core.v1.ConfigMap' });
    expect(list['x-orch-group-version-kind']).toEqual([{ group: '', kind: 'ConfigMapList', version: 'v1' }]);
    expect(doc.definitions['io.orch.api.core.v1.Namespace']).toBeDefined();
  });

  it('is self-consistent: references resolve, operation ids are unique, no internal markers, no nullable', async () => {
    const doc = await v2();
    for (const r of refs(doc)) {
      expect(r.startsWith('#/definitions/')).toBe(true);
      expect(doc.definitions[r.slice('#/definitions/'.length)], r).toBeDefined();
    }
    const ids: string[] = [];
    for (const item of Object.values(doc.paths) as Json[])
      for (const op of Object.values(item) as Json[]) ids.push(op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(keysNamed(doc, 'x-proto')).toEqual([]);
    expect(keysNamed(doc, 'x-proto-message')).toEqual([]);
    expect(keysNamed(doc.definitions, 'nullable')).toEqual([]);
  });

  it('lists the operations of namespaced and cluster-scoped resources with their parameters', async () => {
    const doc = await v2();
    const coll = doc.paths['/api/v1/namespaces/{namespace}/configmaps'];
    expect(coll.get).toMatchObject({ operationId: 'listCoreV1NamespacedConfigMap', 'x-orch-action': 'list' });
    expect(coll.get['x-orch-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    const names = (op: Json) => op.parameters.map((p: Json) => p.name);
    expect(names(coll.get)).toEqual(
      expect.arrayContaining([
        'namespace',
        'limit',
        'continue',
        'watch',
        'labelSelector',
        'resourceVersionMatch',
      ]),
    );
    expect(coll.post['x-orch-action']).toBe('post');
    expect(names(coll.post)).toEqual(
      expect.arrayContaining(['body', 'namespace', 'dryRun', 'fieldManager', 'fieldValidation']),
    );
    expect(coll.post.parameters.find((p: Json) => p.in === 'body').schema).toEqual({
      $ref: '#/definitions/io.orch.api.core.v1.ConfigMap',
    });
    expect(coll.delete['x-orch-action']).toBe('deletecollection');
    const item = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
    expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'patch', 'put']);
    expect(item.patch.consumes).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
    expect(doc.paths['/api/v1/configmaps'].get.operationId).toBe('listCoreV1ConfigMapForAllNamespaces');
    expect(doc.paths['/api/v1/watch/namespaces/{namespace}/configmaps'].get['x-orch-action']).toBe(
      'watchlist',
    );
    // a cluster-scoped kind and its subresources
    expect(doc.paths['/api/v1/namespaces/{name}'].get.operationId).toBe('readCoreV1Namespace');
    expect(Object.keys(doc.paths['/api/v1/namespaces/{name}/finalize'])).toEqual(['put']);
    expect(Object.keys(doc.paths['/api/v1/namespaces/{name}/status']).sort()).toEqual([
      'get',
      'patch',
      'put',
    ]);
    expect(doc.paths['/api/'].get.operationId).toBe('getCoreAPIVersions');
    expect(doc.paths['/version/'].get.operationId).toBe('getCodeVersion');
  });

  it('matches what the server serves: every discovered resource has its paths, and listing them works', async () => {
    const doc = await v2();
    const groupVersions = [
      'v1',
      ...((await ts.req('GET', '/apis')).json.groups as Json[]).flatMap((g) =>
        g.versions.map((v: Json) => v.groupVersion),
      ),
    ];
    let checked = 0;
    for (const gv of groupVersions) {
      const base = gv === 'v1' ? '/api/v1' : `/apis/${gv}`;
      const rl = (await ts.req('GET', base)).json;
      for (const r of rl.resources as Json[]) {
        if (r.name.includes('/')) {
          const [plural, sub] = r.name.split('/');
          const path = r.namespaced
            ? `${base}/namespaces/{namespace}/${plural}/{name}/${sub}`
            : `${base}/${plural}/{name}/${sub}`;
          expect(doc.paths[path], path).toBeDefined();
          continue;
        }
        const coll = r.namespaced ? `${base}/namespaces/{namespace}/${r.name}` : `${base}/${r.name}`;
        if (r.verbs.includes('list')) {
          expect(doc.paths[coll]?.get?.['x-orch-action'], coll).toBe('list');
          const res = await ts.req('GET', coll.replace('{namespace}', 'default'));
          expect(res.status, coll).toBe(200);
          checked++;
        }
        if (r.verbs.includes('create')) expect(doc.paths[coll]?.post, coll).toBeDefined();
        if (r.verbs.includes('get')) expect(doc.paths[`${coll}/{name}`]?.get, coll).toBeDefined();
      }
    }
    expect(checked).toBeGreaterThanOrEqual(2);
    // and nothing more: every list path names a served collection
    for (const [path, item] of Object.entries(doc.paths) as [string, Json][]) {
      if (item.get?.['x-orch-action'] !== 'list') continue;
      const res = await ts.req('GET', `${path.replace('{namespace}', 'default')}?limit=1`);
      expect(res.status, path).toBe(200);
    }
  });

  it('serves the gnostic Protobuf form kubectl asks for, with a media type Go can parse', async () => {
    const doc = await v2();
    const r = await ts.req('GET', '/openapi/v2', undefined, { accept: OPENAPI_V2_PROTOBUF });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(OPENAPI_V2_PROTOBUF_REPLY);
    expect(OPENAPI_V2_PROTOBUF_REPLY).not.toContain('@');
    const top = protoFields(r.body);
    expect((top.get(1)![0] as Buffer).toString()).toBe('2.0'); // swagger
    const info = protoFields(top.get(2)![0] as Buffer);
    expect((info.get(2)![0] as Buffer).toString()).toBe(SERVER_VERSION.gitVersion);
    const paths = protoFields(top.get(8)![0] as Buffer).get(2)!; // Paths.path
    expect(paths.length).toBe(Object.keys(doc.paths).length);
    const definitions = protoFields(top.get(9)![0] as Buffer).get(1)!; // Definitions.additional_properties
    expect(definitions.length).toBe(Object.keys(doc.definitions).length);
    const names = definitions.map((d) => (protoFields(d as Buffer).get(1)![0] as Buffer).toString());
    expect(names).toEqual(Object.keys(doc.definitions));
    // ConfigMap: its vendor extension carries the group-version-kind as YAML (JSON is YAML)
    const cm = definitions[names.indexOf('io.orch.api.core.v1.ConfigMap')] as Buffer;
    const schema = protoFields(protoFields(cm).get(2)![0] as Buffer);
    const ext = schema.get(31)!.map((e) => protoFields(e as Buffer));
    const gvk = ext.find((e) => (e.get(1)![0] as Buffer).toString() === 'x-orch-group-version-kind')!;
    const yaml = (protoFields(gvk.get(2)![0] as Buffer).get(2)![0] as Buffer).toString();
    expect(JSON.parse(yaml)).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    // the older spelling is understood too
    const old = await ts.req('GET', '/openapi/v2', undefined, { accept: OPENAPI_V2_PROTOBUF_REPLY });
    expect(old.body.equals(r.body)).toBe(true);
  });

  it('ETag and If-None-Match; 406 for what it cannot produce; 405 for writes', async () => {
    const r = await ts.req('GET', '/openapi/v2');
    expect(r.headers['content-type']).toBe('application/json');
    const etag = r.headers.etag as string;
    expect(etag).toMatch(/^"[0-9A-F]+"$/);
    const again = await ts.req('GET', '/openapi/v2', undefined, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const bad = await ts.req('GET', '/openapi/v2', undefined, { accept: 'application/xml' });
    expect(bad.status).toBe(406);
    expect(bad.json).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    const post = await ts.req('POST', '/openapi/v2', {});
    expect(post.status).toBe(405);
    expect((await ts.req('GET', '/openapi/v4')).status).toBe(404);
  });
});

describe('/openapi/v3', () => {
  it('an index of group-version documents at content-addressed URLs', async () => {
    const idx = await ts.req('GET', '/openapi/v3');
    expect(idx.status).toBe(200);
    const paths = idx.json.paths as Record<string, { serverRelativeURL: string }>;
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(['api', 'api/v1', 'apis', 'version']));
    expect(paths['api/v1']!.serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);

    const r = await ts.req('GET', paths['api/v1']!.serverRelativeURL);
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('public, immutable');
    const doc = r.json;
    expect(doc.openapi).toBe('3.0.0');
    const cm = doc.components.schemas['io.orch.api.core.v1.ConfigMap'];
    expect(cm['x-orch-group-version-kind']).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    expect(cm.properties.metadata).toEqual({
      $ref: '#/components/schemas/io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
    // OpenAPI 3 keeps nullable
    expect(
      doc.components.schemas['io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.creationTimestamp
        .nullable,
    ).toBe(true);
    for (const ref of refs(doc))
      expect(doc.components.schemas[ref.replace('#/components/schemas/', '')], ref).toBeDefined();
    // only this group version's operations
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/v1/'))).toBe(true);
    const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
    expect(patch.parameters.find((p: Json) => p.name === 'fieldValidation')).toMatchObject({
      in: 'query',
      schema: { type: 'string' },
    });
    expect(Object.keys(patch.requestBody.content)).toContain('application/strategic-merge-patch+json');
    expect(patch.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/io.orch.api.core.v1.ConfigMap',
    });

    // without the hash: revalidate; with an old hash: sent to the current document
    const plain = await ts.req('GET', '/openapi/v3/api/v1');
    expect(plain.status).toBe(200);
    expect(plain.headers['cache-control']).toBe('no-cache, private');
    const stale = await ts.req('GET', '/openapi/v3/api/v1?hash=0123');
    expect(stale.status).toBe(301);
    expect(stale.headers.location).toBe(paths['api/v1']!.serverRelativeURL);
    expect((await ts.req('GET', '/openapi/v3/apis/nothing.example.com/v1')).status).toBe(404);
    expect(
      (
        await ts.req('GET', '/openapi/v3/api/v1', undefined, {
          accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf',
        })
      ).status,
    ).toBe(406);
  });

  it('follows the registry: a resource added at run time appears, and goes again', async () => {
    const widget: ResourceDef = {
      group: 'widgets.example.com',
      versions: ['v1'],
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      singular: 'widget',
      namespaced: true,
      verbs: ['get', 'list', 'create'],
      subresources: [],
      custom: true,
      schema: objectSchema({ spec: { type: 'object', properties: { size: str(), tags: mapOf(str()) } } }),
      strategy: {},
    };
    const before = (await ts.req('GET', '/openapi/v3')).json.paths;
    ts.server.registry.add(widget);
    try {
      const doc = await v2();
      expect(doc.definitions['com.example.widgets.v1.Widget'].properties.spec.properties.size).toEqual({
        type: 'string',
      });
      const item = doc.paths['/apis/widgets.example.com/v1/namespaces/{namespace}/widgets/{name}'];
      expect(Object.keys(item)).toEqual(['get']);
      const coll = doc.paths['/apis/widgets.example.com/v1/namespaces/{namespace}/widgets'];
      expect(Object.keys(coll).sort()).toEqual(['get', 'post']);
      const idx = (await ts.req('GET', '/openapi/v3')).json.paths;
      expect(idx['apis/widgets.example.com/v1']).toBeDefined();
      expect(idx['apis/widgets.example.com']).toBeDefined();
      // other documents did not change, so their URLs did not either
      expect(idx['api/v1']).toEqual(before['api/v1']);
    } finally {
      ts.server.registry.remove('widgets.example.com', 'widgets');
    }
    const doc = await v2();
    expect(doc.definitions['com.example.widgets.v1.Widget']).toBeUndefined();
    expect((await ts.req('GET', '/openapi/v3')).json.paths['apis/widgets.example.com/v1']).toBeUndefined();
  });

  it('custom resources: the standard fields with their descriptions; a root that keeps unknown fields is a bare object in Swagger 2.0', async () => {
    const group = `pub${process.pid}.example.com`;
    const crd = (plural: string, kind: string, schema: Json) => ({
      apiVersion: 'apiextensions.orch.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        names: { plural, singular: kind.toLowerCase(), kind },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
      },
    });
    const typed = crd('typeds', 'Typed', {
      type: 'object',
      description: 'A typed thing',
      properties: {
        spec: { type: 'object', description: 'Its spec', properties: { a: { type: 'string' } } },
      },
    });
    const open = crd('opens', 'Open', { type: 'object', 'x-orch-preserve-unknown-fields': true });
    const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
    for (const c of [typed, open]) expect((await ts.req('POST', CRDS, c)).status).toBe(201);
    try {
      const prefix = `com.example.pub${process.pid}.v1`;
      let doc: Json = {};
      for (let i = 0; i < 500; i++) {
        doc = await v2();
        if (doc.definitions[`${prefix}.Typed`] && doc.definitions[`${prefix}.Open`]) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const gvk = (kind: string) => ({ 'x-orch-group-version-kind': [{ group, kind, version: 'v1' }] });
      const t = doc.definitions[`${prefix}.Typed`];
      expect(t.description).toBe('A typed thing');
      expect(t.properties.apiVersion.description).toMatch(/^APIVersion defines the versioned schema/);
      expect(t.properties.kind.description).toMatch(/^Kind is a string value/);
      expect(t.properties.metadata).toEqual({
        $ref: '#/definitions/io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta',
        description: "Standard object's metadata.",
      });
      expect(t.properties.spec.description).toBe('Its spec');
      expect(
        doc.definitions['io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.creationTimestamp
          .description,
      ).toMatch(/^CreationTimestamp is a timestamp/);
      // Swagger 2.0: nothing a client would check fields against
      expect(doc.definitions[`${prefix}.Open`]).toEqual({ type: 'object', ...gvk('Open') });
      // OpenAPI 3.0 keeps the schema: preserve-unknown-fields and the standard fields
      const idx = (await ts.req('GET', '/openapi/v3')).json.paths;
      const v3 = (await ts.req('GET', idx[`apis/${group}/v1`].serverRelativeURL)).json.components.schemas;
      expect(v3[`${prefix}.Open`]['x-orch-preserve-unknown-fields']).toBe(true);
      expect(v3[`${prefix}.Open`].properties.metadata).toEqual({
        allOf: [{ $ref: '#/components/schemas/io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
        description: "Standard object's metadata.",
      });
    } finally {
      for (const c of [typed, open]) await ts.req('DELETE', `${CRDS}/${c.metadata.name}`);
    }
  });

  it('authenticated users may read it, as they may read discovery (system:discovery); anonymous clients may not', async () => {
    const anon = await ts.req('GET', '/openapi/v3', undefined, { authorization: '' });
    expect(anon.status).toBe(403);
    ts.server.authentication.add(
      new StaticTokenAuthenticator(new Map([['openapi-reader', { username: 'openapi-reader', groups: [] }]])),
    );
    const r = await ts.req('GET', '/openapi/v3', undefined, { authorization: 'Bearer openapi-reader' });
    expect(r.status, r.text).toBe(200);
  });
});
