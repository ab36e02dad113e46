// Field validation (doc1 "Field validation rules", the fieldValidation parameter and the
// 400 row of the error table): unknown fields and fields duplicated in the body are
// dropped with a `Warning: 299 - "..."` header per field under Warn (the default), dropped
// silently under Ignore, and fail the request with one 400 that lists them all under
// Strict. A field of the wrong type is a 400 whatever the level, without unknown-field
// detail; a missing required field is a 422. The same holds for POST, PUT and PATCH, for
// JSON and YAML bodies. An unsupported fieldValidation value is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMap, makeNamespace, type Reply, startServer, type TestServer, uniqueName } from './helpers.ts';
import { WIDGETS, widget, widgetDef } from './patch-kinds.ts';

const YAML = { 'content-type': 'application/yaml' };
const JSONP = { 'content-type': 'application/json-patch+json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };

const LEVELS = ['Strict', 'Warn', 'Ignore'] as const;

/** The Warning headers of a reply, as sent. */
function warnings(r: Reply): string[] {
  const h = r.headers.warning;
  if (h === undefined) return [];
  return Array.isArray(h) ? h : [h];
}

const unknownWarning = (p: string) => `299 - "unknown field \\"${p}\\""`;
const duplicateWarning = (p: string) => `299 - "duplicate field \\"${p}\\""`;

describe('field validation', () => {
  let srv: TestServer;
  let ns: string;

  beforeAll(async () => {
    srv = await startServer();
    srv.server.registry.add(widgetDef);
    ns = await makeNamespace(srv, 'fv');
  });
  afterAll(async () => {
    await srv?.close();
  });

  const coll = () => `/api/v1/namespaces/${ns}/configmaps`;
  const cmPath = (name: string) => `${coll()}/${name}`;
  const q = (level: string | undefined) => (level ? `?fieldValidation=${level}` : '');

  /** A ConfigMap body with unknown fields at the top and in metadata, and duplicate keys. */
  function dirtyJson(name: string): string {
    return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","name":"${name}","foo":"x"},"data":{"a":"1","a":"2"},"bogus":true}`;
  }
  const dirtyProblems = [
    'unknown field "bogus"',
    'unknown field "metadata.foo"',
    'duplicate field "metadata.name"',
    'duplicate field "data.a"',
  ];
  const dirtyWarnings = [
    unknownWarning('bogus'),
    unknownWarning('metadata.foo'),
    duplicateWarning('metadata.name'),
    duplicateWarning('data.a'),
  ];

  describe('POST', () => {
    it('Strict: one 400 listing every unknown and duplicate field; nothing created', async () => {
      const name = uniqueName('cm');
      const r = await srv.req('POST', coll() + q('Strict'), dirtyJson(name));
      expect(r.status, r.text).toBe(400);
      expect(r.json.reason).toBe('BadRequest');
      for (const p of dirtyProblems) expect(r.json.message).toContain(p);
      expect(r.json.message).toContain('strict decoding error');
      expect((await srv.req('GET', cmPath(name))).status).toBe(404);
    });

    it.each([undefined, 'Warn'])(
      'Warn (%s): created, unknown fields dropped, one Warning per field',
      async (level) => {
        const name = uniqueName('cm');
        const r = await srv.req('POST', coll() + q(level), dirtyJson(name));
        expect(r.status, r.text).toBe(201);
        expect(warnings(r).sort()).toEqual([...dirtyWarnings].sort());
        expect(r.json.bogus).toBeUndefined();
        expect(r.json.metadata.foo).toBeUndefined();
        // the last of duplicate keys wins, as in Go's decoder
        expect(r.json.data).toEqual({ a: '2' });
        const g = await srv.req('GET', cmPath(name));
        expect(g.json.bogus).toBeUndefined();
        expect(g.json.metadata.foo).toBeUndefined();
      },
    );

    it('Ignore: created, unknown fields dropped, no Warning', async () => {
      const name = uniqueName('cm');
      const r = await srv.req('POST', coll() + q('Ignore'), dirtyJson(name));
      expect(r.status, r.text).toBe(201);
      expect(warnings(r)).toEqual([]);
      expect(r.json.bogus).toBeUndefined();
      expect(r.json.metadata.foo).toBeUndefined();
    });

    it('nested unknown and duplicate fields are named by their full path', async () => {
      const body = `{"apiVersion":"test.orch.io/v1","kind":"Widget","metadata":{"name":"w1","labels":{"a":"1","a":"2"}},"spec":{"foo":1,"containers":[{"name":"c","image":"x","image":"y","bar":true}],"nodeSelector":{"k":"v"}}}`;
      const strict = await srv.req('POST', `${WIDGETS}/${ns}/widgets?fieldValidation=Strict`, body);
      expect(strict.status, strict.text).toBe(400);
      for (const p of [
        'unknown field "spec.foo"',
        'unknown field "spec.containers[0].bar"',
        'duplicate field "metadata.labels.a"',
        'duplicate field "spec.containers[0].image"',
      ])
        expect(strict.json.message).toContain(p);
      const warn = await srv.req('POST', `${WIDGETS}/${ns}/widgets`, body);
      expect(warn.status, warn.text).toBe(201);
      expect(warnings(warn).sort()).toEqual(
        [
          unknownWarning('spec.foo'),
          unknownWarning('spec.containers[0].bar'),
          duplicateWarning('metadata.labels.a'),
          duplicateWarning('spec.containers[0].image'),
        ].sort(),
      );
      expect(warn.json.spec).toEqual({ containers: [{ name: 'c', image: 'y' }], nodeSelector: { k: 'v' } });
    });

    it.each(LEVELS)('%s: a field of the wrong type is a 400 without unknown-field detail', async (level) => {
      for (const bad of [
        { data: { a: 1 } },
        { data: ['a'] },
        { metadata: { name: 'x', labels: 'l' } },
        { data: { a: true }, bogus: 1 },
      ]) {
        const name = uniqueName('cm');
        const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, bogus: 'x', ...bad };
        const r = await srv.req('POST', coll() + q(level), body);
        expect(r.status, JSON.stringify(bad)).toBe(400);
        expect(r.json.reason).toBe('BadRequest');
        expect(r.json.message).not.toContain('unknown field');
        expect(warnings(r)).toEqual([]);
        expect((await srv.req('GET', cmPath(name))).status).toBe(404);
      }
    });

    it.each(LEVELS)('%s: a missing required field is a 422', async (level) => {
      // metadata.name (or generateName) is required
      const noName = await srv.req('POST', coll() + q(level), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {},
        data: {},
      });
      expect(noName.status).toBe(422);
      expect(noName.json.details.causes).toContainEqual(expect.objectContaining({ field: 'metadata.name' }));
      // an owner reference needs apiVersion, kind, name and uid
      const name = uniqueName('cm');
      const r = await srv.req(
        'POST',
        coll() + q(level),
        configMap(
          name,
          {},
          { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Thing', name: 'o' }] } },
        ),
      );
      expect(r.status, r.text).toBe(422);
      expect(r.json.reason).toBe('Invalid');
      expect(r.json.details.causes).toContainEqual(
        expect.objectContaining({ field: 'metadata.ownerReferences[0].uid', reason: 'FieldValueRequired' }),
      );
      expect((await srv.req('GET', cmPath(name))).status).toBe(404);
      // a container needs a name (the test kind's schema requires it)
      const w = await srv.req(
        'POST',
        `${WIDGETS}/${ns}/widgets${q(level)}`,
        widget(uniqueName('w'), { containers: [{ image: 'x' }] }),
      );
      expect(w.status, w.text).toBe(422);
      expect(w.json.details.causes).toContainEqual(
        expect.objectContaining({ field: 'spec.containers[0].name' }),
      );
    });
  });

  describe('PUT', () => {
    async function existing() {
      const name = uniqueName('cm');
      const r = await srv.req('POST', coll(), configMap(name, { a: '1' }));
      expect(r.status).toBe(201);
      return { name, obj: r.json };
    }

    it('Strict: 400 listing the fields, the object unchanged', async () => {
      const { name, obj } = await existing();
      const body = JSON.stringify({ ...obj, data: { a: '2' }, bogus: 1 }).replace(
        '"data":{',
        '"data":{"b":"x","b":"y",',
      );
      const r = await srv.req('PUT', cmPath(name) + q('Strict'), body);
      expect(r.status, r.text).toBe(400);
      expect(r.json.message).toContain('unknown field "bogus"');
      expect(r.json.message).toContain('duplicate field "data.b"');
      const g = await srv.req('GET', cmPath(name));
      expect(g.json).toEqual(obj);
    });

    it('Warn: updated with Warnings; Ignore: updated silently', async () => {
      const { name, obj } = await existing();
      const w = await srv.req('PUT', cmPath(name), {
        ...obj,
        data: { a: '2' },
        bogus: 1,
        metadata: { ...obj.metadata, zz: 1 },
      });
      expect(w.status, w.text).toBe(200);
      expect(warnings(w).sort()).toEqual([unknownWarning('bogus'), unknownWarning('metadata.zz')].sort());
      expect(w.json.bogus).toBeUndefined();
      expect(w.json.data).toEqual({ a: '2' });
      const i = await srv.req('PUT', cmPath(name) + q('Ignore'), { ...w.json, data: { a: '3' }, bogus: 1 });
      expect(i.status, i.text).toBe(200);
      expect(warnings(i)).toEqual([]);
      expect(i.json.data).toEqual({ a: '3' });
    });

    it.each(LEVELS)('%s: a wrong type is a 400', async (level) => {
      const { name, obj } = await existing();
      const r = await srv.req('PUT', cmPath(name) + q(level), { ...obj, data: { a: 2 }, bogus: 1 });
      expect(r.status).toBe(400);
      expect(r.json.message).not.toContain('unknown field');
      expect(warnings(r)).toEqual([]);
    });
  });

  describe('PATCH', () => {
    async function existing() {
      const name = uniqueName('cm');
      const r = await srv.req('POST', coll(), configMap(name, { a: '1' }));
      expect(r.status).toBe(201);
      return { name, obj: r.json };
    }
    const unknownPatches: [string, Record<string, string>, string][] = [
      ['merge patch', MERGE, '{"data":{"b":"2"},"bogus":1,"metadata":{"zz":1}}'],
      ['strategic merge patch', SMP, '{"data":{"b":"2"},"bogus":1,"metadata":{"zz":1}}'],
      [
        'json patch',
        JSONP,
        '[{"op":"add","path":"/data/b","value":"2"},{"op":"add","path":"/bogus","value":1},{"op":"add","path":"/metadata/zz","value":1}]',
      ],
    ];

    it.each(unknownPatches)('%s: unknown fields in the patched object, by level', async (_n, h, body) => {
      const { name, obj } = await existing();
      const strict = await srv.req('PATCH', cmPath(name) + q('Strict'), body, h);
      expect(strict.status, strict.text).toBe(400);
      expect(strict.json.message).toContain('unknown field "bogus"');
      expect(strict.json.message).toContain('unknown field "metadata.zz"');
      expect((await srv.req('GET', cmPath(name))).json).toEqual(obj);

      const warn = await srv.req('PATCH', cmPath(name), body, h);
      expect(warn.status, warn.text).toBe(200);
      expect(warnings(warn).sort()).toEqual([unknownWarning('bogus'), unknownWarning('metadata.zz')].sort());
      expect(warn.json.data).toEqual({ a: '1', b: '2' });
      expect(warn.json.bogus).toBeUndefined();

      const ignore = await srv.req('PATCH', cmPath(name) + q('Ignore'), body, h);
      expect(ignore.status, ignore.text).toBe(200);
      expect(warnings(ignore)).toEqual([]);
    });

    it.each([
      ['merge patch', MERGE],
      ['strategic merge patch', SMP],
    ])('%s: duplicate keys in the patch body, by level', async (_n, h) => {
      const { name, obj } = await existing();
      const body = '{"data":{"b":"1","b":"2"},"metadata":{"labels":{"x":"1","x":"2"}}}';
      const strict = await srv.req('PATCH', cmPath(name) + q('Strict'), body, h);
      expect(strict.status, strict.text).toBe(400);
      expect(strict.json.message).toContain('duplicate field "data.b"');
      expect(strict.json.message).toContain('duplicate field "metadata.labels.x"');
      expect((await srv.req('GET', cmPath(name))).json).toEqual(obj);
      const warn = await srv.req('PATCH', cmPath(name) + q('Warn'), body, h);
      expect(warn.status, warn.text).toBe(200);
      expect(warnings(warn).sort()).toEqual(
        [duplicateWarning('data.b'), duplicateWarning('metadata.labels.x')].sort(),
      );
      expect(warn.json.data).toEqual({ a: '1', b: '2' });
      const ignore = await srv.req('PATCH', cmPath(name) + q('Ignore'), body, h);
      expect(ignore.status).toBe(200);
      expect(warnings(ignore)).toEqual([]);
    });

    it.each(LEVELS)('%s: a patch giving a field the wrong type is a 400', async (level) => {
      const { name, obj } = await existing();
      for (const [h, body] of [
        [MERGE, { data: { a: 5 }, bogus: 1 }],
        [SMP, { data: { a: [1] } }],
        [JSONP, [{ op: 'replace', path: '/data', value: 'text' }]],
      ] as const) {
        const r = await srv.req('PATCH', cmPath(name) + q(level), body, h);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.json.message).not.toContain('unknown field');
        expect(warnings(r)).toEqual([]);
      }
      expect((await srv.req('GET', cmPath(name))).json).toEqual(obj);
    });

    it('a patch removing a required field is a 422', async () => {
      const name = uniqueName('cm');
      const c = await srv.req(
        'POST',
        coll(),
        configMap(
          name,
          {},
          { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'T', name: 'o', uid: 'u1' }] } },
        ),
      );
      expect(c.status, c.text).toBe(201);
      const r = await srv.req(
        'PATCH',
        cmPath(name),
        [{ op: 'remove', path: '/metadata/ownerReferences/0/uid' }],
        JSONP,
      );
      expect(r.status, r.text).toBe(422);
      expect((await srv.req('GET', cmPath(name))).json).toEqual(c.json);
    });
  });

  describe('YAML bodies', () => {
    const dirtyYaml = (name: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  name: ${name}
  foo: x
data:
  a: "1"
  a: "2"
bogus: true
`;

    it('Strict: duplicate keys and unknown fields are listed in one 400', async () => {
      const name = uniqueName('cm');
      const r = await srv.req('POST', coll() + q('Strict'), dirtyYaml(name), YAML);
      expect(r.status, r.text).toBe(400);
      for (const p of dirtyProblems) expect(r.json.message).toContain(p);
      expect((await srv.req('GET', cmPath(name))).status).toBe(404);
    });

    it('Warn (default): created with a Warning per field; Ignore: silent', async () => {
      const name = uniqueName('cm');
      const w = await srv.req('POST', coll(), dirtyYaml(name), YAML);
      expect(w.status, w.text).toBe(201);
      expect(warnings(w).sort()).toEqual([...dirtyWarnings].sort());
      expect(w.json.bogus).toBeUndefined();
      const name2 = uniqueName('cm');
      const i = await srv.req('POST', coll() + q('Ignore'), dirtyYaml(name2), YAML);
      expect(i.status, i.text).toBe(201);
      expect(warnings(i)).toEqual([]);
    });

    it('PUT with YAML gets the same treatment', async () => {
      const name = uniqueName('cm');
      const c = await srv.req('POST', coll(), configMap(name, { a: '1' }));
      expect(c.status).toBe(201);
      const body = `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  resourceVersion: "${c.json.metadata.resourceVersion}"
data:
  a: "2"
  a: "3"
extra: 1
`;
      const strict = await srv.req('PUT', cmPath(name) + q('Strict'), body, YAML);
      expect(strict.status, strict.text).toBe(400);
      expect(strict.json.message).toContain('duplicate field "data.a"');
      expect(strict.json.message).toContain('unknown field "extra"');
      const warn = await srv.req('PUT', cmPath(name), body, YAML);
      expect(warn.status, warn.text).toBe(200);
      expect(warnings(warn).sort()).toEqual([duplicateWarning('data.a'), unknownWarning('extra')].sort());
      expect(warn.json.data).toEqual({ a: '3' });
    });

    it.each(LEVELS)('%s: a wrong type in YAML is a 400; a missing required field a 422', async (level) => {
      const name = uniqueName('cm');
      const wrong = await srv.req(
        'POST',
        coll() + q(level),
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: 1\nbogus: x\n`,
        YAML,
      );
      expect(wrong.status, wrong.text).toBe(400);
      expect(wrong.json.message).not.toContain('unknown field');
      expect(warnings(wrong)).toEqual([]);
      const missing = await srv.req(
        'POST',
        coll() + q(level),
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  ownerReferences:\n  - apiVersion: v1\n    kind: T\n    uid: u1\n`,
        YAML,
      );
      expect(missing.status, missing.text).toBe(422);
      expect(missing.json.details.causes).toContainEqual(
        expect.objectContaining({ field: 'metadata.ownerReferences[0].name' }),
      );
    });
  });

  describe('the fieldValidation parameter', () => {
    // Kubernetes validates the request options: an unsupported value is a 422 naming the
    // options kind (`CreateOptions.meta.orch.io "" is invalid: fieldValidation: ...`)
    it.each(['strict', 'warn', 'None', 'true'])(
      'fieldValidation=%s is refused on POST, PUT and PATCH',
      async (v) => {
        const name = uniqueName('cm');
        const post = await srv.req('POST', `${coll()}?fieldValidation=${v}`, configMap(name));
        const c = await srv.req('POST', coll(), configMap(uniqueName('cm'), { a: '1' }));
        const p = cmPath(c.json.metadata.name);
        const put = await srv.req('PUT', `${p}?fieldValidation=${v}`, { ...c.json, data: { a: '2' } });
        const patch = await srv.req('PATCH', `${p}?fieldValidation=${v}`, { data: { a: '3' } }, MERGE);
        const kinds = ['CreateOptions', 'UpdateOptions', 'PatchOptions'];
        [post, put, patch].forEach((r, i) => {
          expect(r.status, r.text).toBe(422);
          expect(r.json.reason).toBe('Invalid');
          expect(r.json.details).toMatchObject({ group: 'meta.orch.io', kind: kinds[i] });
          expect(r.json.details.causes).toEqual([
            expect.objectContaining({ field: 'fieldValidation', reason: 'FieldValueNotSupported' }),
          ]);
        });
        expect((await srv.req('GET', cmPath(name))).status).toBe(404);
        expect((await srv.req('GET', p)).json).toEqual(c.json);
      },
    );

    it('an empty fieldValidation means the default (Warn)', async () => {
      const r = await srv.req('POST', `${coll()}?fieldValidation=`, {
        ...configMap(uniqueName('cm')),
        bogus: 1,
      });
      expect(r.status).toBe(201);
      expect(warnings(r)).toEqual([unknownWarning('bogus')]);
    });
  });
});
