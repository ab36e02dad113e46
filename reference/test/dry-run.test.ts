// Dry run (doc1 "Dry run"): with `dryRun=All` (or a bare `dryRun`) POST, PUT, PATCH,
// DELETE and deletecollection run every stage (admission, defaulting, validation, merge)
// and answer what the real request would, but persist nothing: the object is absent or
// unchanged afterwards, the collection's resourceVersion does not move and no watch event
// is sent. Any other dryRun value is a 400.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdmissionAttributes } from '../src/admission/types.ts';
import { errors } from '../src/errors/status.ts';
import { configMap, makeNamespace, type Reply, startServer, type TestServer, uniqueName } from './helpers.ts';

const JSONP = { 'content-type': 'application/json-patch+json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };

/** The query forms of a dry run. */
const DRY = ['?dryRun=All', '?dryRun'];

/** Fields a dry run may fill differently from the real request (doc1). */
function comparable(obj: any): any {
  const o = structuredClone(obj);
  if (o?.metadata) {
    for (const k of [
      'uid',
      'resourceVersion',
      'creationTimestamp',
      'deletionTimestamp',
      'managedFields',
      'generation',
    ])
      delete o.metadata[k];
  }
  return o;
}

describe('dry run', () => {
  let srv: TestServer;
  let ns: string;
  /** dryRun flags the admission plugin saw, per object name. */
  const seen = new Map<string, boolean[]>();

  beforeAll(async () => {
    srv = await startServer();
    srv.server.admission.addSource(() => [
      {
        name: 'test-admission',
        mutate(a: AdmissionAttributes) {
          if (a.resource.resource !== 'configmaps') return;
          seen.set(a.name, [...(seen.get(a.name) ?? []), a.ctx.dryRun]);
          const o = a.object;
          if (o && o.metadata.labels?.mutate === 'yes')
            o.metadata.annotations = { ...(o.metadata.annotations ?? {}), 'mutated-by': 'test-admission' };
        },
        validate(a: AdmissionAttributes) {
          if (a.resource.resource !== 'configmaps') return;
          if ((a.object?.data as Record<string, string> | undefined)?.deny === 'yes')
            throw errors.forbidden(`configmaps "${a.name}" is forbidden: denied by test-admission`);
          if (a.operation === 'DELETE' && a.oldObject?.metadata.labels?.protected === 'yes')
            throw errors.forbidden(`configmaps "${a.name}" is forbidden: protected by test-admission`);
        },
      },
    ]);
    ns = await makeNamespace(srv, 'dry');
  });
  afterAll(async () => {
    await srv?.close();
  });

  const coll = () => `/api/v1/namespaces/${ns}/configmaps`;
  const cmPath = (name: string) => `${coll()}/${name}`;
  const listRv = async () => (await srv.req('GET', coll())).json.metadata.resourceVersion as string;

  async function create(data: Record<string, string> = { a: '1' }, extra: Record<string, unknown> = {}) {
    const name = uniqueName('cm');
    const r = await srv.req('POST', coll(), configMap(name, data, extra));
    expect(r.status, r.text).toBe(201);
    return { name, obj: r.json };
  }

  async function expectSame(name: string, before: any) {
    const g = await srv.req('GET', cmPath(name));
    expect(g.status).toBe(200);
    expect(g.json).toEqual(before);
  }

  describe('POST', () => {
    it.each(DRY)('%s answers 201 with the object the real create returns, and stores nothing', async (q) => {
      const name = uniqueName('cm');
      const body = configMap(name, { a: '1' }, { metadata: { labels: { mutate: 'yes' } } });
      const rv = await listRv();
      const dry = await srv.req('POST', coll() + q, body);
      expect(dry.status, dry.text).toBe(201);
      expect(dry.json.metadata.name).toBe(name);
      expect(dry.json.metadata.namespace).toBe(ns);
      // mutating admission ran
      expect(dry.json.metadata.annotations).toEqual({ 'mutated-by': 'test-admission' });
      expect(seen.get(name)).toEqual([true]);
      expect((await srv.req('GET', cmPath(name))).status).toBe(404);
      expect(await listRv()).toBe(rv);
      const real = await srv.req('POST', coll(), body);
      expect(real.status).toBe(201);
      expect(comparable(dry.json)).toEqual(comparable(real.json));
      expect(seen.get(name)).toEqual([true, false]);
    });

    it('generateName still produces a name, and nothing is stored under it', async () => {
      const rv = await listRv();
      const r = await srv.req('POST', `${coll()}?dryRun=All`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { generateName: 'gen-' },
        data: { a: '1' },
      });
      expect(r.status, r.text).toBe(201);
      expect(r.json.metadata.generateName).toBe('gen-');
      expect(r.json.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
      expect((await srv.req('GET', cmPath(r.json.metadata.name))).status).toBe(404);
      expect(await listRv()).toBe(rv);
    });

    it('an invalid object still fails, with the real status', async () => {
      const name = uniqueName('cm');
      const body = configMap(name, { 'bad key!': 'x' });
      const dry = await srv.req('POST', `${coll()}?dryRun=All`, body);
      expect(dry.status).toBe(422);
      const real = await srv.req('POST', coll(), body);
      expect(real.status).toBe(422);
      expect(dry.json.message).toBe(real.json.message);
    });

    it('validating admission still rejects', async () => {
      const name = uniqueName('cm');
      const r = await srv.req('POST', `${coll()}?dryRun=All`, configMap(name, { deny: 'yes' }));
      expect(r.status).toBe(403);
      expect(r.json.message).toContain('denied by test-admission');
    });

    it('a namespace that does not exist is still a 404', async () => {
      const r = await srv.req(
        'POST',
        `/api/v1/namespaces/${uniqueName('nope')}/configmaps?dryRun=All`,
        configMap('x'),
      );
      expect(r.status).toBe(404);
    });

    it('a name already taken is still a 409', async () => {
      const { name, obj } = await create();
      const r = await srv.req('POST', `${coll()}?dryRun=All`, configMap(name, { other: 'x' }));
      expect(r.status).toBe(409);
      expect(r.json.reason).toBe('AlreadyExists');
      await expectSame(name, obj);
    });

    it('a cluster-scoped object (namespace) is not created either', async () => {
      const name = uniqueName('ns');
      const r = await srv.req('POST', '/api/v1/namespaces?dryRun=All', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
      expect(r.status, r.text).toBe(201);
      expect(r.json.metadata.name).toBe(name);
      expect((await srv.req('GET', `/api/v1/namespaces/${name}`)).status).toBe(404);
    });
  });

  describe('PUT', () => {
    it.each(DRY)('%s answers what the update would be and leaves the object as it was', async (q) => {
      const { name, obj } = await create({ a: '1' });
      const rv = await listRv();
      const next = { ...obj, data: { a: '2', b: '3' } };
      const dry = await srv.req('PUT', cmPath(name) + q, next);
      expect(dry.status, dry.text).toBe(200);
      expect(dry.json.data).toEqual({ a: '2', b: '3' });
      await expectSame(name, obj);
      expect(await listRv()).toBe(rv);
      const real = await srv.req('PUT', cmPath(name), next);
      expect(real.status).toBe(200);
      expect(comparable(dry.json)).toEqual(comparable(real.json));
    });

    it('a stale resourceVersion is still a 409', async () => {
      const { name, obj } = await create({ a: '1' });
      const upd = await srv.req('PUT', cmPath(name), { ...obj, data: { a: '2' } });
      expect(upd.status).toBe(200);
      const r = await srv.req('PUT', `${cmPath(name)}?dryRun=All`, { ...obj, data: { a: '3' } });
      expect(r.status).toBe(409);
      await expectSame(name, upd.json);
    });

    it('an invalid update still fails', async () => {
      const { name, obj } = await create({ a: '1' });
      const r = await srv.req('PUT', `${cmPath(name)}?dryRun=All`, { ...obj, data: { 'bad key!': 'x' } });
      expect(r.status).toBe(422);
      await expectSame(name, obj);
    });
  });

  describe('PATCH', () => {
    const patches: [string, Record<string, string>, unknown][] = [
      ['json patch', JSONP, [{ op: 'add', path: '/data/b', value: '2' }]],
      ['merge patch', MERGE, { data: { b: '2' } }],
      ['strategic merge patch', SMP, { data: { b: '2' } }],
    ];
    it.each(patches)('%s: answers the patched object, stores nothing', async (_n, h, body) => {
      for (const q of DRY) {
        const { name, obj } = await create({ a: '1' });
        const rv = await listRv();
        const dry = await srv.req('PATCH', cmPath(name) + q, body, h);
        expect(dry.status, dry.text).toBe(200);
        expect(dry.json.data).toEqual({ a: '1', b: '2' });
        await expectSame(name, obj);
        expect(await listRv()).toBe(rv);
        const real = await srv.req('PATCH', cmPath(name), body, h);
        expect(real.status).toBe(200);
        expect(comparable(dry.json)).toEqual(comparable(real.json));
      }
    });

    it('a failing JSON Patch test is still a 422', async () => {
      const { name, obj } = await create({ a: '1' });
      const r = await srv.req(
        'PATCH',
        `${cmPath(name)}?dryRun=All`,
        [{ op: 'test', path: '/data/a', value: 'nope' }],
        JSONP,
      );
      expect(r.status).toBe(422);
      await expectSame(name, obj);
    });

    it('a patch making the object invalid still fails; admission still runs', async () => {
      const { name, obj } = await create({ a: '1' });
      expect(
        (await srv.req('PATCH', `${cmPath(name)}?dryRun=All`, { data: { 'bad key!': 'x' } }, MERGE)).status,
      ).toBe(422);
      expect(
        (await srv.req('PATCH', `${cmPath(name)}?dryRun=All`, { data: { deny: 'yes' } }, MERGE)).status,
      ).toBe(403);
      const m = await srv.req(
        'PATCH',
        `${cmPath(name)}?dryRun=All`,
        { metadata: { labels: { mutate: 'yes' } } },
        MERGE,
      );
      expect(m.status).toBe(200);
      expect(m.json.metadata.annotations).toEqual({ 'mutated-by': 'test-admission' });
      await expectSame(name, obj);
    });

    it('a missing object is still a 404', async () => {
      const r = await srv.req('PATCH', `${cmPath('nope')}?dryRun=All`, { data: { b: '2' } }, MERGE);
      expect(r.status).toBe(404);
    });
  });

  describe('DELETE', () => {
    it.each(DRY)('%s answers the success the real delete would, and the object stays', async (q) => {
      const { name, obj } = await create();
      const rv = await listRv();
      const dry = await srv.req('DELETE', cmPath(name) + q);
      expect(dry.status, dry.text).toBe(200);
      await expectSame(name, obj);
      expect(await listRv()).toBe(rv);
      const real = await srv.req('DELETE', cmPath(name));
      expect(real.status).toBe(200);
      expect(comparable(dry.json)).toEqual(comparable(real.json));
      expect((await srv.req('GET', cmPath(name))).status).toBe(404);
    });

    it('dryRun in DeleteOptions works the same', async () => {
      const { name, obj } = await create();
      const r = await srv.req('DELETE', cmPath(name), {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        dryRun: ['All'],
      });
      expect(r.status, r.text).toBe(200);
      await expectSame(name, obj);
      const bad = await srv.req('DELETE', cmPath(name), {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        dryRun: ['Some'],
      });
      expect(bad.status).toBe(422);
      expect(bad.json.details).toMatchObject({ kind: 'DeleteOptions' });
      await expectSame(name, obj);
    });

    it('an object with finalizers is answered marked for deletion but is not marked', async () => {
      const { name, obj } = await create({ a: '1' }, { metadata: { finalizers: ['example.com/hold'] } });
      const dry = await srv.req('DELETE', `${cmPath(name)}?dryRun=All`);
      expect(dry.status, dry.text).toBe(200);
      expect(dry.json.metadata.deletionTimestamp).toBeTruthy();
      await expectSame(name, obj);
    });

    it('admission still runs on delete; a missing object is still a 404', async () => {
      const { name, obj } = await create({ a: '1' }, { metadata: { labels: { protected: 'yes' } } });
      const r = await srv.req('DELETE', `${cmPath(name)}?dryRun=All`);
      expect(r.status).toBe(403);
      await expectSame(name, obj);
      expect((await srv.req('DELETE', `${cmPath('nope')}?dryRun=All`)).status).toBe(404);
    });

    it('deleting a namespace in dry run leaves it active', async () => {
      const name = uniqueName('ns');
      expect(
        (
          await srv.req('POST', '/api/v1/namespaces', {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name },
          })
        ).status,
      ).toBe(201);
      const r = await srv.req('DELETE', `/api/v1/namespaces/${name}?dryRun=All`);
      expect(r.status, r.text).toBe(200);
      const g = await srv.req('GET', `/api/v1/namespaces/${name}`);
      expect(g.status).toBe(200);
      expect(g.json.metadata.deletionTimestamp).toBeUndefined();
      expect(g.json.status?.phase).not.toBe('Terminating');
    });
  });

  describe('deletecollection', () => {
    it.each(DRY)('%s lists what would go and removes nothing', async (q) => {
      const nsd = uniqueName('drc');
      expect(
        (
          await srv.req('POST', '/api/v1/namespaces', {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name: nsd },
          })
        ).status,
      ).toBe(201);
      for (const n of ['a', 'b', 'c'])
        expect((await srv.req('POST', `/api/v1/namespaces/${nsd}/configmaps`, configMap(n))).status).toBe(
          201,
        );
      const before = await srv.req('GET', `/api/v1/namespaces/${nsd}/configmaps`);
      const r = await srv.req('DELETE', `/api/v1/namespaces/${nsd}/configmaps${q}`);
      expect(r.status, r.text).toBe(200);
      expect(r.json.items.map((i: any) => i.metadata.name).sort()).toEqual(['a', 'b', 'c']);
      const after = await srv.req('GET', `/api/v1/namespaces/${nsd}/configmaps`);
      expect(after.json).toEqual(before.json);
    });
  });

  describe('invalid dryRun values', () => {
    // Kubernetes validates the request options: an unsupported dryRun value is a 422 naming
    // the options kind (`CreateOptions.meta.orch.io "" is invalid: dryRun: Unsupported value`)
    it.each(['foo', 'all', 'true', 'None'])(
      'dryRun=%s is refused on every write, and nothing happens',
      async (v) => {
        const rv = await listRv();
        const name = uniqueName('cm');
        const checks: Reply[] = [
          await srv.req('POST', `${coll()}?dryRun=${v}`, configMap(name)),
          await srv.req('DELETE', `${coll()}?dryRun=${v}`),
        ];
        const { name: existing, obj } = await create();
        const rv2 = await listRv();
        checks.push(
          await srv.req('PUT', `${cmPath(existing)}?dryRun=${v}`, { ...obj, data: { x: 'y' } }),
          await srv.req('PATCH', `${cmPath(existing)}?dryRun=${v}`, { data: { x: 'y' } }, MERGE),
          await srv.req('DELETE', `${cmPath(existing)}?dryRun=${v}`),
          await srv.req('POST', `${coll()}?dryRun=All&dryRun=${v}`, configMap(name)),
        );
        const kinds = [
          'CreateOptions',
          'DeleteOptions',
          'UpdateOptions',
          'PatchOptions',
          'DeleteOptions',
          'CreateOptions',
        ];
        checks.forEach((r, i) => {
          expect(r.status, r.text).toBe(422);
          expect(r.json.reason).toBe('Invalid');
          expect(r.json.details).toMatchObject({ group: 'meta.orch.io', kind: kinds[i] });
          expect(r.json.details.causes).toEqual([
            expect.objectContaining({ field: 'dryRun', reason: 'FieldValueNotSupported' }),
          ]);
          expect(r.json.message).toContain('supported values: "All"');
        });
        expect((await srv.req('GET', cmPath(name))).status).toBe(404);
        await expectSame(existing, obj);
        expect(await listRv()).toBe(rv2);
        expect(rv2).not.toBe(rv);
      },
    );
  });

  it('no watch event comes from a dry run', async () => {
    // a namespace of its own: the collection delete below must not meet other tests' objects
    ns = uniqueName('drw');
    expect(
      (
        await srv.req('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: ns },
        })
      ).status,
    ).toBe(201);
    const { name, obj } = await create({ a: '1' }, { metadata: { finalizers: ['example.com/hold'] } });
    await create({ b: '2' });
    const rv = await listRv();
    const ghost = uniqueName('ghost');
    expect((await srv.req('POST', `${coll()}?dryRun=All`, configMap(ghost))).status).toBe(201);
    expect((await srv.req('PUT', `${cmPath(name)}?dryRun=All`, { ...obj, data: { a: '2' } })).status).toBe(
      200,
    );
    expect((await srv.req('PATCH', `${cmPath(name)}?dryRun=All`, { data: { b: '2' } }, MERGE)).status).toBe(
      200,
    );
    expect((await srv.req('DELETE', `${cmPath(name)}?dryRun=All`)).status).toBe(200);
    expect((await srv.req('DELETE', `${coll()}?dryRun=All`)).status).toBe(200);
    const real = uniqueName('real');
    expect((await srv.req('POST', coll(), configMap(real))).status).toBe(201);
    // a watch from the version before: the first change after it must be the real create
    const ev = await firstWatchEvent(`${coll()}?watch=1&resourceVersion=${rv}`);
    expect(ev.type).toBe('ADDED');
    expect(ev.object.metadata.name).toBe(real);
  });

  async function firstWatchEvent(path: string): Promise<{ type: string; object: any }> {
    const r = await request(srv.url + path, { headers: { authorization: `Bearer ${srv.token}` } });
    expect(r.statusCode).toBe(200);
    let buf = '';
    try {
      for await (const chunk of r.body) {
        buf += chunk.toString();
        const nl = buf.indexOf('\n');
        if (nl >= 0) return JSON.parse(buf.slice(0, nl));
      }
    } finally {
      r.body.destroy();
    }
    throw new Error(`watch ended without an event: ${buf}`);
  }
});
