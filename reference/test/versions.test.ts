// A resource served at several versions from one storage (doc2 "Versioning": every persisted
// object stays reachable through every served version): a test-only kind `Dial` with a
// storage version `v2` (`spec.level`) and a deprecated `v1beta1` (`spec.setting`), converted
// both ways by its version descriptors. Objects written through either version are read,
// listed and watched through both; requests to the deprecated version get a warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_VERBS } from '../src/registry/kinds/common.ts';
import type { ResourceDef } from '../src/registry/types.ts';
import { int, obj } from '../src/schema/dsl.ts';
import { objectSchema } from '../src/schema/meta.ts';
import type { KObject } from '../src/storage/types.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { openWatch } from './read-support.ts';

const GROUP = 'dials.test.orch.io';

const spec = (o: KObject) => (o.spec ?? {}) as Record<string, unknown>;

const dialDef: ResourceDef = {
  group: GROUP,
  versions: ['v2', 'v1beta1'],
  kind: 'Dial',
  listKind: 'DialList',
  plural: 'dials',
  singular: 'dial',
  namespaced: true,
  verbs: ALL_VERBS,
  subresources: [],
  schema: objectSchema({ spec: obj({ level: int() }) }),
  strategy: {
    allowUnconditionalUpdate: true,
    validate: (o) =>
      (spec(o).level as number) > 10
        ? [{ reason: 'FieldValueInvalid', field: 'spec.level', message: 'Invalid value: must be at most 10' }]
        : [],
  },
  versionInfo: {
    v2: { served: true, storage: true },
    v1beta1: {
      served: true,
      storage: false,
      deprecated: true,
      deprecatedIn: '1.28',
      removedIn: '1.29',
      replacement: `${GROUP}/v2 Dial`,
      schema: objectSchema({ spec: obj({ setting: int() }) }),
      toStorage: (o) => {
        const { setting, ...rest } = spec(o);
        return { ...o, spec: { ...rest, ...(setting !== undefined ? { level: setting } : {}) } };
      },
      fromStorage: (o) => {
        const { level, ...rest } = spec(o);
        return { ...o, spec: { ...rest, ...(level !== undefined ? { setting: level } : {}) } };
      },
    },
  },
};

const path = (v: string, ns: string, name = '') =>
  `/apis/${GROUP}/${v}/namespaces/${ns}/dials${name ? `/${name}` : ''}`;

describe('one resource, two versions, one storage', () => {
  let ts: TestServer;
  let ns: string;

  beforeAll(async () => {
    ts = await startServer();
    ts.server.registry.add(dialDef);
    ns = uniqueName('dial');
    expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  });
  afterAll(() => ts?.close());

  it('written through the deprecated version: stored converted, read through both', async () => {
    const c = await ts.req('POST', path('v1beta1', ns), {
      apiVersion: `${GROUP}/v1beta1`,
      kind: 'Dial',
      metadata: { name: 'old' },
      spec: { setting: 3 },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.json).toMatchObject({ apiVersion: `${GROUP}/v1beta1`, spec: { setting: 3 } });
    const stored = ts.server.registry.byResource(GROUP, 'dials')!.store.getStored(ns, 'old')!.obj;
    expect(stored).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { level: 3 } });
    const v2 = await ts.req('GET', path('v2', ns, 'old'));
    expect(v2.json).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { level: 3 } });
    expect(v2.json.spec.setting).toBeUndefined();
  });

  it('written through the storage version, read and listed through the deprecated one', async () => {
    const c = await ts.req('POST', path('v2', ns), {
      apiVersion: `${GROUP}/v2`,
      kind: 'Dial',
      metadata: { name: 'new' },
      spec: { level: 7 },
    });
    expect(c.status, c.text).toBe(201);
    const g = await ts.req('GET', path('v1beta1', ns, 'new'));
    expect(g.json).toMatchObject({ apiVersion: `${GROUP}/v1beta1`, spec: { setting: 7 } });
    const l = await ts.req('GET', path('v1beta1', ns));
    expect(l.json.apiVersion).toBe(`${GROUP}/v1beta1`);
    expect(
      l.json.items.map((i: KObject) => [
        i.metadata.name,
        i.apiVersion,
        (i.spec as { setting: number }).setting,
      ]),
    ).toEqual([
      ['new', `${GROUP}/v1beta1`, 7],
      ['old', `${GROUP}/v1beta1`, 3],
    ]);
  });

  it('an update and a patch through the deprecated version reach the stored object; validation applies', async () => {
    const g = await ts.req('GET', path('v1beta1', ns, 'new'));
    const u = await ts.req('PUT', path('v1beta1', ns, 'new'), { ...g.json, spec: { setting: 8 } });
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec).toEqual({ setting: 8 });
    const p = await ts.req(
      'PATCH',
      path('v1beta1', ns, 'new'),
      { spec: { setting: 9 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(p.status, p.text).toBe(200);
    expect((await ts.req('GET', path('v2', ns, 'new'))).json.spec).toEqual({ level: 9 });
    const bad = await ts.req(
      'PATCH',
      path('v1beta1', ns, 'new'),
      { spec: { setting: 11 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(bad.status).toBe(422);
    expect((await ts.req('GET', path('v2', ns, 'new'))).json.spec).toEqual({ level: 9 });
  });

  it('watched through both versions, each in its own shape', async () => {
    const list = await ts.req('GET', path('v2', ns));
    const rv = list.json.metadata.resourceVersion;
    const w1 = await openWatch(ts, `${path('v1beta1', ns)}?watch=1&resourceVersion=${rv}`);
    const w2 = await openWatch(ts, `${path('v2', ns)}?watch=1&resourceVersion=${rv}`);
    try {
      expect(
        (await ts.req('POST', path('v2', ns), { metadata: { name: 'w' }, spec: { level: 1 } })).status,
      ).toBe(201);
      const e1 = await w1.next();
      const e2 = await w2.next();
      expect(e1.object).toMatchObject({ apiVersion: `${GROUP}/v1beta1`, spec: { setting: 1 } });
      expect(e2.object).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { level: 1 } });
    } finally {
      w1.close();
      w2.close();
    }
  });

  it('requests to the deprecated version carry the deprecation warning; the storage version none', async () => {
    const r = await ts.req('GET', path('v1beta1', ns));
    expect(r.headers.warning).toBe(
      `299 - "${GROUP}/v1beta1 Dial is deprecated in v1.28+, unavailable in v1.29+; use ${GROUP}/v2 Dial"`,
    );
    expect((await ts.req('GET', path('v2', ns))).headers.warning).toBeUndefined();
  });
});
