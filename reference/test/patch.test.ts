// PATCH end to end: content types (415 lists the accepted ones), JSON Patch with `test`
// (a failed test is a 422 and changes nothing), JSON Merge Patch checked against a small
// model of RFC 7386 written here, 404 for a missing object, metadata.resourceVersion as a
// precondition, the retry of patches without one when another write gets in between, and
// the status subresource.
import { fc, test as fcTest } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdmissionAttributes } from '../src/admission/types.ts';
import { applyMergePatch } from '../src/patch/merge.ts';
import type { RequestContext } from '../src/registry/types.ts';
import type { KObject } from '../src/storage/types.ts';
import { configMap, makeNamespace, startServer, type TestServer, uniqueName } from './helpers.ts';
import { gadgetDef, WIDGETS, widget, widgetDef } from './patch-kinds.ts';

const JSONP = { 'content-type': 'application/json-patch+json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
const TYPES = [JSONP, MERGE, SMP];
const byType = (hs: Record<string, string>[]) => hs.map((h) => ({ h, type: h['content-type'] }));

// ------------------------------------------------------------------ RFC 7386 model

type Json = unknown;

const isObject = (v: unknown): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 7386 section 2, transcribed: the reference the merge patch is checked against. */
function rfc7386(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const result: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else result[name] = rfc7386(result[name], value);
  }
  return result;
}

// Appendix A of RFC 7386, as printed there.
const appendixA: [Json, Json, Json][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

// JSON values over a few short keys, so that patches often hit existing members.
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string({ maxLength: 3 }),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('json'), { maxKeys: 4 }),
  ),
}));
const jsonObject = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), json, { maxKeys: 4 });

describe('merge patch (RFC 7386)', () => {
  it('the model reproduces RFC 7386 Appendix A', () => {
    for (const [t, p, r] of appendixA) expect(rfc7386(t, p)).toEqual(r);
  });

  it.each(appendixA.map(([t, p, r]) => ({ t, p, r })))('applyMergePatch: $t + $p = $r', ({ t, p, r }) => {
    expect(applyMergePatch(t, p)).toEqual(r);
  });

  it('keys named like Object.prototype members are ordinary members', () => {
    const t = { data: { hasOwnProperty: 'x', keep: '1' } };
    const p = JSON.parse(
      '{"data":{"hasOwnProperty":null,"constructor":"c","prototype":"p"},"__proto__":{"polluted":1}}',
    );
    const r = applyMergePatch(t, p) as Record<string, any>;
    expect(r).toEqual({ data: { keep: '1', constructor: 'c', prototype: 'p' } });
    expect(Object.getPrototypeOf(r)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  fcTest.prop([json, json], { numRuns: 300 })('applyMergePatch agrees with the model', (t, p) => {
    const before = structuredClone(t);
    expect(applyMergePatch(t, p)).toEqual(rfc7386(structuredClone(t), p));
    expect(t).toEqual(before);
  });
});

// ------------------------------------------------------------------ HTTP

describe('PATCH over HTTP', () => {
  let srv: TestServer;
  let ns: string;
  /** Names whose next UPDATE gets a concurrent write slipped in by an admission plugin. */
  const race = new Map<string, Record<string, string>>();
  const system: RequestContext = {
    user: { username: 'system:test', groups: ['system:masters'] },
    warnings: [],
    dryRun: false,
  };

  beforeAll(async () => {
    srv = await startServer();
    srv.server.registry.add(widgetDef);
    srv.server.registry.add(gadgetDef);
    srv.server.admission.addSource(() => [
      {
        name: 'test-race',
        async mutate(a: AdmissionAttributes) {
          const extra = race.get(a.name);
          if (a.operation !== 'UPDATE' || a.resource.resource !== 'configmaps' || !extra) return;
          race.delete(a.name);
          const store = srv.server.registry.byResource('', 'configmaps')!.store;
          const cur = store.getStored(a.namespace, a.name)!;
          const next = structuredClone(cur.obj) as KObject;
          next.data = { ...((next.data as object) ?? {}), ...extra };
          await store.update(a.namespace, a.name, next, system, 'v1');
        },
      },
    ]);
    ns = await makeNamespace(srv, 'patch');
  });
  afterAll(async () => {
    await srv?.close();
  });

  const cmPath = (name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;

  async function newConfigMap(
    data: Record<string, string> = { a: '1' },
    extra: Record<string, unknown> = {},
  ) {
    const name = uniqueName('cm');
    const r = await srv.req('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap(name, data, extra));
    expect(r.status, r.text).toBe(201);
    return { name, obj: r.json };
  }

  async function expectUnchanged(
    name: string,
    before: { metadata: { resourceVersion: string }; data?: unknown },
  ) {
    const g = await srv.req('GET', cmPath(name));
    expect(g.status).toBe(200);
    expect(g.json.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(g.json.data).toEqual(before.data);
  }

  describe('content types', () => {
    it('an unsupported Content-Type is a 415 that lists the accepted types', async () => {
      const { name } = await newConfigMap();
      for (const ct of ['application/json', 'text/plain', 'application/yaml', 'application/foo+json']) {
        const r = await srv.req('PATCH', cmPath(name), { data: { b: '2' } }, { 'content-type': ct });
        expect(r.status, ct).toBe(415);
        expect(r.json.reason).toBe('UnsupportedMediaType');
        for (const t of [
          'application/json-patch+json',
          'application/merge-patch+json',
          'application/strategic-merge-patch+json',
          'application/apply-patch+yaml',
        ])
          expect(r.json.message).toContain(t);
      }
    });

    it('parameters of the media type are allowed', async () => {
      const { name } = await newConfigMap();
      const r = await srv.req(
        'PATCH',
        cmPath(name),
        { data: { b: '2' } },
        {
          'content-type': 'application/merge-patch+json; charset=utf-8',
        },
      );
      expect(r.status, r.text).toBe(200);
      expect(r.json.data).toEqual({ a: '1', b: '2' });
    });

    it('a custom resource takes no strategic merge patch: 415 without it in the list', async () => {
      const c = await srv.req('POST', `${WIDGETS}/${ns}/gadgets`, {
        apiVersion: 'test.orch.io/v1',
        kind: 'Gadget',
        metadata: { name: 'g1' },
        spec: {},
      });
      expect(c.status, c.text).toBe(201);
      const r = await srv.req(
        'PATCH',
        `${WIDGETS}/${ns}/gadgets/g1`,
        { spec: { nodeSelector: { a: 'b' } } },
        SMP,
      );
      expect(r.status).toBe(415);
      expect(r.json.message).toContain('application/merge-patch+json');
      expect(r.json.message).not.toContain('strategic');
      const m = await srv.req(
        'PATCH',
        `${WIDGETS}/${ns}/gadgets/g1`,
        { spec: { nodeSelector: { a: 'b' } } },
        MERGE,
      );
      expect(m.status, m.text).toBe(200);
      expect(m.json.spec.nodeSelector).toEqual({ a: 'b' });
    });

    it('an empty or unparsable body is a 400', async () => {
      const { name, obj } = await newConfigMap();
      for (const h of TYPES) {
        expect((await srv.req('PATCH', cmPath(name), '', h)).status).toBe(400);
        expect((await srv.req('PATCH', cmPath(name), '{"data": {', h)).status).toBe(400);
      }
      await expectUnchanged(name, obj);
    });

    it('a patch that builds an object nested deeper than a body may be is a 400', async () => {
      const { name, obj } = await newConfigMap();
      // 252 levels in a text of 254 (within the limit of 256), put 5 levels down: 257
      const deep = `${'['.repeat(252)}${']'.repeat(252)}`;
      const body = `[{"op":"add","path":"/metadata/managedFields/0/fieldsV1/x","value":${deep}}]`;
      const r = await srv.req('PATCH', cmPath(name), body, JSONP);
      expect(r.status, r.text).toBe(400);
      expect(r.json.message).toMatch(/exceeded max depth/);
      await expectUnchanged(name, obj);
    });
  });

  describe('missing objects', () => {
    it.each(byType(TYPES))('$type on a missing object is a 404', async ({ h }) => {
      const body = h === JSONP ? [{ op: 'add', path: '/data/x', value: 'y' }] : { data: { x: 'y' } };
      const r = await srv.req('PATCH', cmPath('does-not-exist'), body, h);
      expect(r.status).toBe(404);
      expect(r.json.reason).toBe('NotFound');
      expect(r.json.details).toMatchObject({ name: 'does-not-exist', kind: 'configmaps' });
      // and it was not created
      expect((await srv.req('GET', cmPath('does-not-exist'))).status).toBe(404);
    });
  });

  describe('JSON Patch', () => {
    it('add, replace, remove, copy, move', async () => {
      const { name } = await newConfigMap({ a: '1', b: '2', c: '3' });
      const r = await srv.req(
        'PATCH',
        cmPath(name),
        [
          { op: 'add', path: '/data/d', value: '4' },
          { op: 'replace', path: '/data/a', value: 'one' },
          { op: 'remove', path: '/data/b' },
          { op: 'copy', from: '/data/c', path: '/data/e' },
          { op: 'move', from: '/data/d', path: '/data/f' },
          { op: 'add', path: '/metadata/labels', value: { 'x.io/k': 'v' } },
          { op: 'add', path: '/metadata/labels/x.io~1k2', value: 'w' },
        ],
        JSONP,
      );
      expect(r.status, r.text).toBe(200);
      expect(r.json.data).toEqual({ a: 'one', c: '3', e: '3', f: '4' });
      expect(r.json.metadata.labels).toEqual({ 'x.io/k': 'v', 'x.io/k2': 'w' });
    });

    it('a passing test lets the patch through', async () => {
      const { name } = await newConfigMap({ a: '1' });
      const r = await srv.req(
        'PATCH',
        cmPath(name),
        [
          { op: 'test', path: '/data/a', value: '1' },
          { op: 'replace', path: '/data/a', value: '2' },
        ],
        JSONP,
      );
      expect(r.status, r.text).toBe(200);
      expect(r.json.data).toEqual({ a: '2' });
    });

    it('a failing test is a 422 and nothing of the patch is applied', async () => {
      const { name, obj } = await newConfigMap({ a: '1' });
      const r = await srv.req(
        'PATCH',
        cmPath(name),
        [
          { op: 'replace', path: '/data/a', value: 'changed-before-the-test' },
          { op: 'test', path: '/data/a', value: 'not-what-it-is' },
          { op: 'add', path: '/data/b', value: '2' },
        ],
        JSONP,
      );
      expect(r.status).toBe(422);
      expect(r.json.kind).toBe('Status');
      expect(r.json.reason).toBe('Invalid');
      expect(r.text).toContain('/data/a');
      await expectUnchanged(name, obj);
    });

    it('a test on metadata.resourceVersion is an optimistic lock', async () => {
      const { name, obj } = await newConfigMap({ a: '1' });
      const rv = obj.metadata.resourceVersion;
      const ok = await srv.req(
        'PATCH',
        cmPath(name),
        [
          { op: 'test', path: '/metadata/resourceVersion', value: rv },
          { op: 'add', path: '/data/b', value: '2' },
        ],
        JSONP,
      );
      expect(ok.status, ok.text).toBe(200);
      const stale = await srv.req(
        'PATCH',
        cmPath(name),
        [
          { op: 'test', path: '/metadata/resourceVersion', value: rv },
          { op: 'add', path: '/data/c', value: '3' },
        ],
        JSONP,
      );
      expect(stale.status).toBe(422);
      await expectUnchanged(name, ok.json);
    });

    it('operations that do not apply are a 422 (missing path, unknown op)', async () => {
      const { name, obj } = await newConfigMap({ a: '1' });
      for (const ops of [
        [{ op: 'remove', path: '/data/nope' }],
        [{ op: 'replace', path: '/data/nope', value: 'x' }],
        [{ op: 'add', path: '/spec/deep/x', value: 'x' }],
        [{ op: 'move', from: '/data/nope', path: '/data/b' }],
        [{ op: 'frobnicate', path: '/data/a' }],
        [{ op: 'add', path: '/data/b' }],
      ]) {
        const r = await srv.req('PATCH', cmPath(name), ops, JSONP);
        expect(r.status, JSON.stringify(ops)).toBe(422);
        expect(r.json.reason).toBe('Invalid');
      }
      await expectUnchanged(name, obj);
    });

    it('a document that is not a list of operations is a 400', async () => {
      const { name, obj } = await newConfigMap({ a: '1' });
      for (const doc of [
        { op: 'add', path: '/data/b', value: '2' },
        [1, 2],
        ['add'],
        'add',
        [[{ op: 'add' }]],
      ]) {
        const r = await srv.req('PATCH', cmPath(name), JSON.stringify(doc), JSONP);
        expect(r.status, JSON.stringify(doc)).toBe(400);
        expect(r.json.reason).toBe('BadRequest');
      }
      await expectUnchanged(name, obj);
    });

    it('more than 10000 operations is a 413', async () => {
      const { name } = await newConfigMap({ a: '1' });
      const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/data/a', value: '1' }));
      const r = await srv.req('PATCH', cmPath(name), ops, JSONP);
      expect(r.status).toBe(413);
    });

    it('a patch that replaces the whole document with a non-object is refused', async () => {
      const { name, obj } = await newConfigMap({ a: '1' });
      const r = await srv.req('PATCH', cmPath(name), [{ op: 'replace', path: '', value: 42 }], JSONP);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      await expectUnchanged(name, obj);
    });
  });

  describe('merge patch over HTTP follows RFC 7386', () => {
    it('fixed cases on data and labels', async () => {
      const { name } = await newConfigMap({ a: '1', b: '2' }, { metadata: { labels: { l1: 'x', l2: 'y' } } });
      let cur = (await srv.req('GET', cmPath(name))).json;
      for (const patch of [
        { data: { a: null, c: '3' } },
        { metadata: { labels: { l1: null } }, data: { b: 'two' } },
        { metadata: { labels: null } },
        { data: null },
        { data: { z: 'z' } },
      ]) {
        const want = rfc7386(cur, patch) as Record<string, any>;
        const r = await srv.req('PATCH', cmPath(name), patch, MERGE);
        expect(r.status, r.text).toBe(200);
        expect(r.json.data).toEqual(want.data);
        expect(r.json.metadata.labels).toEqual(want.metadata.labels);
        cur = r.json;
      }
    });

    it('a member named constructor does not stop the merge', async () => {
      const { name } = await newConfigMap({ a: '1' });
      const r = await srv.req(
        'PATCH',
        cmPath(name),
        { metadata: { labels: { constructor: 'y', b: 'c' } }, data: { z: '1' } },
        MERGE,
      );
      expect(r.status, r.text).toBe(200);
      expect(r.json.metadata.labels).toEqual({ constructor: 'y', b: 'c' });
      expect(r.json.data).toEqual({ a: '1', z: '1' });
    });

    it('lists are replaced, not merged (Pod-shaped object)', async () => {
      const c = await srv.req(
        'POST',
        `${WIDGETS}/${ns}/widgets`,
        widget('mp1', { containers: [{ name: 'a', image: 'a' }, { name: 'b' }], extra: { keep: 1 } }),
      );
      expect(c.status, c.text).toBe(201);
      const patch = {
        spec: { containers: [{ name: 'a', image: 'a2' }], extra: { keep: null, add: [1, null] } },
      };
      const want = rfc7386(c.json, patch) as Record<string, any>;
      const r = await srv.req('PATCH', `${WIDGETS}/${ns}/widgets/mp1`, patch, MERGE);
      expect(r.status, r.text).toBe(200);
      expect(r.json.spec).toEqual(want.spec);
      expect(r.json.spec.containers).toEqual([{ name: 'a', image: 'a2' }]);
    });

    fcTest.prop([jsonObject], { numRuns: 25 })('random patches of a free-form field', async (extra) => {
      const name = `mp-${Math.random().toString(36).slice(2, 9)}`;
      const c = await srv.req(
        'POST',
        `${WIDGETS}/${ns}/widgets`,
        widget(name, { extra: { a: 1, b: { c: [1] } } }),
      );
      expect(c.status, c.text).toBe(201);
      const patch = JSON.parse(JSON.stringify({ spec: { extra } }));
      const want = rfc7386(c.json, patch) as Record<string, any>;
      const r = await srv.req('PATCH', `${WIDGETS}/${ns}/widgets/${name}`, patch, MERGE);
      expect(r.status, r.text).toBe(200);
      expect(r.json.spec.extra).toEqual(want.spec.extra);
    });

    it('a merge patch that is not a JSON object is a 400', async () => {
      const { name, obj } = await newConfigMap();
      for (const body of ['[]', '"x"', '1', 'null']) {
        const r = await srv.req('PATCH', cmPath(name), body, MERGE);
        expect(r.status, body).toBe(400);
        const s = await srv.req('PATCH', cmPath(name), body, SMP);
        expect(s.status, body).toBe(400);
      }
      await expectUnchanged(name, obj);
    });
  });

  describe('resourceVersion', () => {
    it.each(byType([MERGE, SMP]))(
      '$type: a current resourceVersion in the patch passes, a stale one is a 409',
      async ({ h }) => {
        const { name, obj } = await newConfigMap({ a: '1' });
        const rv = obj.metadata.resourceVersion;
        const ok = await srv.req(
          'PATCH',
          cmPath(name),
          { metadata: { resourceVersion: rv }, data: { b: '2' } },
          h,
        );
        expect(ok.status, ok.text).toBe(200);
        expect(ok.json.metadata.resourceVersion).not.toBe(rv);
        const stale = await srv.req(
          'PATCH',
          cmPath(name),
          { metadata: { resourceVersion: rv }, data: { c: '3' } },
          h,
        );
        expect(stale.status).toBe(409);
        expect(stale.json.reason).toBe('Conflict');
        await expectUnchanged(name, ok.json);
      },
    );

    it('JSON Patch setting a stale resourceVersion is a 409', async () => {
      const { name, obj } = await newConfigMap({ a: '1' });
      const upd = await srv.req('PATCH', cmPath(name), { data: { b: '2' } }, MERGE);
      expect(upd.status).toBe(200);
      const r = await srv.req(
        'PATCH',
        cmPath(name),
        [
          { op: 'replace', path: '/metadata/resourceVersion', value: obj.metadata.resourceVersion },
          { op: 'add', path: '/data/c', value: '3' },
        ],
        JSONP,
      );
      expect(r.status).toBe(409);
      await expectUnchanged(name, upd.json);
    });

    it('a patch without a resourceVersion is re-applied when another write gets in first', async () => {
      for (const h of TYPES) {
        const { name } = await newConfigMap({ a: '1' });
        race.set(name, { concurrent: 'yes' });
        const body =
          h === JSONP ? [{ op: 'add', path: '/data/mine', value: 'yes' }] : { data: { mine: 'yes' } };
        const r = await srv.req('PATCH', cmPath(name), body, h);
        expect(race.has(name), 'the concurrent write happened').toBe(false);
        expect(r.status, r.text).toBe(200);
        // both writes are there: the patch went onto the newer object
        expect(r.json.data).toEqual({ a: '1', concurrent: 'yes', mine: 'yes' });
        const g = await srv.req('GET', cmPath(name));
        expect(g.json.data).toEqual({ a: '1', concurrent: 'yes', mine: 'yes' });
      }
    });

    it('a patch carrying the resourceVersion it read is not retried: 409', async () => {
      const { name, obj } = await newConfigMap({ a: '1' });
      race.set(name, { concurrent: 'yes' });
      const r = await srv.req(
        'PATCH',
        cmPath(name),
        { metadata: { resourceVersion: obj.metadata.resourceVersion }, data: { mine: 'yes' } },
        MERGE,
      );
      expect(race.has(name)).toBe(false);
      expect(r.status).toBe(409);
      expect(r.json.reason).toBe('Conflict');
      const g = await srv.req('GET', cmPath(name));
      expect(g.json.data).toEqual({ a: '1', concurrent: 'yes' });
    });
  });

  describe('other checks', () => {
    it('a patch may not rename the object', async () => {
      const { name, obj } = await newConfigMap({ a: '1' });
      const r = await srv.req('PATCH', cmPath(name), { metadata: { name: 'other' } }, MERGE);
      expect(r.status).toBe(400);
      await expectUnchanged(name, obj);
      expect((await srv.req('GET', cmPath('other'))).status).toBe(404);
    });

    it('a patched object is validated like an update (422)', async () => {
      const { name, obj } = await newConfigMap({ a: '1' });
      const r = await srv.req('PATCH', cmPath(name), { data: { 'bad key!': 'x' } }, MERGE);
      expect(r.status).toBe(422);
      expect(r.json.reason).toBe('Invalid');
      await expectUnchanged(name, obj);
    });

    it('a patch that changes nothing keeps the resourceVersion', async () => {
      const { name, obj } = await newConfigMap({ a: '1' });
      const r = await srv.req('PATCH', cmPath(name), { data: { a: '1' } }, MERGE);
      expect(r.status).toBe(200);
      expect(r.json.metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
    });
  });

  describe('status subresource', () => {
    it.each(byType(TYPES))('$type on /status changes only the status', async ({ h }) => {
      const name = `st-${Math.random().toString(36).slice(2, 9)}`;
      const c = await srv.req('POST', `${WIDGETS}/${ns}/widgets`, widget(name, { nodeSelector: { a: '1' } }));
      expect(c.status, c.text).toBe(201);
      const body =
        h === JSONP
          ? [
              { op: 'add', path: '/status', value: { phase: 'Running' } },
              { op: 'add', path: '/spec/nodeSelector/b', value: '2' },
              { op: 'add', path: '/metadata/labels', value: { x: 'y' } },
            ]
          : {
              status: { phase: 'Running' },
              spec: { nodeSelector: { b: '2' } },
              metadata: { labels: { x: 'y' } },
            };
      const r = await srv.req('PATCH', `${WIDGETS}/${ns}/widgets/${name}/status`, body, h);
      expect(r.status, r.text).toBe(200);
      expect(r.json.status).toEqual({ phase: 'Running' });
      expect(r.json.spec).toEqual({ nodeSelector: { a: '1' } });
      expect(r.json.metadata.labels).toBeUndefined();
      const g = await srv.req('GET', `${WIDGETS}/${ns}/widgets/${name}`);
      expect(g.json.status).toEqual({ phase: 'Running' });
      expect(g.json.spec).toEqual({ nodeSelector: { a: '1' } });
    });

    it('/status of a missing object is a 404, of a kind without status a 404', async () => {
      expect(
        (await srv.req('PATCH', `${WIDGETS}/${ns}/widgets/nope/status`, { status: {} }, MERGE)).status,
      ).toBe(404);
      const { name } = await newConfigMap();
      expect((await srv.req('PATCH', `${cmPath(name)}/status`, { data: { x: 'y' } }, MERGE)).status).toBe(
        404,
      );
    });
  });
});
