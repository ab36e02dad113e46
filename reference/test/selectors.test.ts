// Label and field selectors on list and watch, in one namespace and across all namespaces.
// Expected sets are worked out by hand from the selector semantics (a requirement on a
// missing label: `!=` and `notin` match it, `=`, `in` and exists do not).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.ts';
import { cms, names, openWatch } from './read-support.ts';

const OBJECTS: Record<string, Record<string, string>> = {
  a: { env: 'prod', tier: 'web' },
  b: { env: 'dev', tier: 'db' },
  c: { env: 'prod' },
  d: {},
  e: { env: 'qa', tier: 'web', 'orch.io/team': 'x' },
};

const LABEL_CASES: [string, string[]][] = [
  ['env=prod', ['a', 'c']],
  ['env==prod', ['a', 'c']],
  ['env!=prod', ['b', 'd', 'e']],
  ['env in (prod,qa)', ['a', 'c', 'e']],
  ['env in ( prod , qa )', ['a', 'c', 'e']],
  ['env notin (prod,qa)', ['b', 'd']],
  ['tier', ['a', 'b', 'e']],
  ['!tier', ['c', 'd']],
  ['env=prod,tier', ['a']],
  ['env=prod,!tier', ['c']],
  ['env in (prod,dev),tier notin (db)', ['a', 'c']],
  ['tier=web,env!=prod', ['e']],
  ['orch.io/team=x', ['e']],
  ['orch.io/team', ['e']],
  ['env=staging', []],
  ['', ['a', 'b', 'c', 'd', 'e']],
];

const BAD_LABELS = [
  'env in prod',
  'env=prod,',
  '==x',
  'env prod',
  'env in ()',
  'env=(x)',
  `${'k'.repeat(64)}=v`,
  'env=a b',
  '!',
];

describe('selectors on list', () => {
  let ts: TestServer;
  let c: ReturnType<typeof cms>;
  let ns: string;
  let other: string;
  /** A label only this test's objects carry, to isolate them in cluster-wide lists. */
  const run = `r${process.pid}x${Date.now()}`;
  beforeAll(async () => {
    ts = await startServer();
    c = cms(ts);
    ns = await c.ns('sel');
    other = await c.ns('sel');
    for (const [n, labels] of Object.entries(OBJECTS)) {
      await c.create(ns, n, {}, { ...labels, run });
      await c.create(other, n, {}, { ...labels, run });
    }
  });
  afterAll(() => ts.close());

  const q = (s: string) => encodeURIComponent(s);

  for (const [sel, want] of LABEL_CASES) {
    it(`labelSelector ${JSON.stringify(sel)}`, async () => {
      const r = await ts.req('GET', `${c.base(ns)}?labelSelector=${q(sel)}`);
      expect(r.status, r.text).toBe(200);
      expect(names(r)).toEqual(want);
      // across all namespaces: the same objects in both namespaces
      const all = await ts.req(
        'GET',
        `/api/v1/configmaps?labelSelector=${q(sel ? `${sel},run=${run}` : `run=${run}`)}`,
      );
      expect(all.status).toBe(200);
      const got = all.json.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`).sort();
      expect(got).toEqual([...want.map((n) => `${ns}/${n}`), ...want.map((n) => `${other}/${n}`)].sort());
    });
  }

  it('invalid label selector syntax: 400', async () => {
    for (const bad of BAD_LABELS) {
      const r = await ts.req('GET', `${c.base(ns)}?labelSelector=${q(bad)}`);
      expect(r.status, bad).toBe(400);
      expect(r.json.reason).toBe('BadRequest');
      const all = await ts.req('GET', `/api/v1/configmaps?labelSelector=${q(bad)}`);
      expect(all.status, bad).toBe(400);
    }
  });

  it('fieldSelector metadata.name: =, ==, !=', async () => {
    expect(names(await ts.req('GET', `${c.base(ns)}?fieldSelector=${q('metadata.name=b')}`))).toEqual(['b']);
    expect(names(await ts.req('GET', `${c.base(ns)}?fieldSelector=${q('metadata.name==b')}`))).toEqual(['b']);
    expect(names(await ts.req('GET', `${c.base(ns)}?fieldSelector=${q('metadata.name!=b')}`))).toEqual([
      'a',
      'c',
      'd',
      'e',
    ]);
    expect(
      names(await ts.req('GET', `${c.base(ns)}?fieldSelector=${q('metadata.name!=b,metadata.name!=c')}`)),
    ).toEqual(['a', 'd', 'e']);
    expect(names(await ts.req('GET', `${c.base(ns)}?fieldSelector=${q('metadata.name=nope')}`))).toEqual([]);
  });

  it('fieldSelector metadata.namespace across all namespaces', async () => {
    const r = await ts.req('GET', `/api/v1/configmaps?fieldSelector=${q(`metadata.namespace=${other}`)}`);
    expect(r.status).toBe(200);
    expect(r.json.items.every((o: any) => o.metadata.namespace === other)).toBe(true);
    expect(names(r)).toEqual(Object.keys(OBJECTS));
    const not = await ts.req(
      'GET',
      `/api/v1/configmaps?fieldSelector=${q(`metadata.namespace!=${other}`)}&labelSelector=${q(`run=${run}`)}`,
    );
    expect(not.json.items.map((o: any) => o.metadata.namespace)).toEqual(Object.keys(OBJECTS).map(() => ns));
  });

  it('label and field selectors together', async () => {
    const r = await ts.req(
      'GET',
      `/api/v1/configmaps?labelSelector=${q(`env=prod,run=${run}`)}&fieldSelector=${q(`metadata.name!=a,metadata.namespace=${ns}`)}`,
    );
    expect(r.json.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual([`${ns}/c`]);
  });

  it('an unsupported field: 400; malformed field selectors: 400', async () => {
    for (const bad of [
      'spec.foo=x',
      'data.x=1',
      'metadata.labels=x',
      'metadata.name',
      '=x',
      'metadata.name>x',
    ]) {
      const r = await ts.req('GET', `${c.base(ns)}?fieldSelector=${q(bad)}`);
      expect(r.status, bad).toBe(400);
      expect(r.json.reason).toBe('BadRequest');
    }
    const r = await ts.req('GET', `${c.base(ns)}?fieldSelector=${q('spec.foo=x')}`);
    expect(r.json.message).toContain('spec.foo');
  });
});

describe('selectors on watch', () => {
  let ts: TestServer;
  let c: ReturnType<typeof cms>;
  beforeAll(async () => {
    ts = await startServer();
    c = cms(ts);
  });
  afterAll(() => ts.close());

  const brief = (e: any) => ({
    type: e.type,
    name: e.object.metadata.name,
    labels: e.object.metadata.labels ?? {},
  });

  it('initial state and changes filtered by a label selector', async () => {
    const ns = await c.ns('wsel');
    for (const [n, labels] of Object.entries(OBJECTS)) await c.create(ns, n, {}, labels);
    const w = await openWatch(
      ts,
      `${c.base(ns)}?watch=1&labelSelector=${encodeURIComponent('env in (prod,qa)')}`,
    );
    try {
      const initial = (await w.take(3)).map((e) => `${e.type} ${e.object.metadata.name}`).sort();
      expect(initial).toEqual(['ADDED a', 'ADDED c', 'ADDED e']);
      await c.create(ns, 'f', {}, { env: 'dev' }); // outside
      await c.create(ns, 'g', {}, { env: 'qa' }); // inside
      expect(brief(await w.next())).toEqual({ type: 'ADDED', name: 'g', labels: { env: 'qa' } });
    } finally {
      w.close();
    }
  });

  it('objects entering the selection arrive as ADDED, leaving it as DELETED (Kubernetes)', async () => {
    const ns = await c.ns('wsel');
    const o = await c.create(ns, 'o', { v: '1' }, { env: 'dev' });
    const w = await openWatch(
      ts,
      `${c.base(ns)}?watch=1&labelSelector=env%3Dprod&resourceVersion=${o.metadata.resourceVersion}`,
    );
    try {
      await c.update(ns, 'o', { v: '2' }, { env: 'dev' }); // outside -> outside: nothing
      const enter = await c.update(ns, 'o', { v: '3' }, { env: 'prod' });
      const inside = await c.update(ns, 'o', { v: '4' }, { env: 'prod' });
      const leave = await c.update(ns, 'o', { v: '5' }, { env: 'dev' });
      await c.update(ns, 'o', { v: '6' }, { env: 'dev' }); // outside: nothing
      const back = await c.update(ns, 'o', { v: '7' }, { env: 'prod' });
      await c.del(ns, 'o');
      const evs = await w.take(5);
      expect(evs.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED', 'ADDED', 'DELETED']);
      expect(evs[0]!.object.metadata.resourceVersion).toBe(enter.metadata.resourceVersion);
      expect(evs[0]!.object.data).toEqual({ v: '3' });
      expect(evs[1]!.object.metadata.resourceVersion).toBe(inside.metadata.resourceVersion);
      // leaving: the last state the watcher could see, at the version of the change
      expect(evs[2]!.object.metadata.resourceVersion).toBe(leave.metadata.resourceVersion);
      expect(evs[2]!.object.metadata.labels).toEqual({ env: 'prod' });
      expect(evs[2]!.object.data).toEqual({ v: '4' });
      expect(evs[3]!.object.metadata.resourceVersion).toBe(back.metadata.resourceVersion);
      expect(evs[4]!.object.metadata.name).toBe('o');
      // nothing more: the next event is the marker
      await c.create(ns, 'm', {}, { env: 'prod' });
      expect(brief(await w.next())).toEqual({ type: 'ADDED', name: 'm', labels: { env: 'prod' } });
    } finally {
      w.close();
    }
  });

  it('fieldSelector metadata.name on a collection watch sees that object only', async () => {
    const ns = await c.ns('wsel');
    await c.create(ns, 'x', { v: '1' });
    await c.create(ns, 'y', { v: '1' });
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&fieldSelector=metadata.name%3Dx`);
    try {
      expect(brief(await w.next())).toMatchObject({ type: 'ADDED', name: 'x' });
      await c.update(ns, 'y', { v: '2' });
      await c.create(ns, 'xx');
      await c.update(ns, 'x', { v: '2' });
      const e = await w.next();
      expect(e.type).toBe('MODIFIED');
      expect(e.object.data).toEqual({ v: '2' });
      await c.del(ns, 'y');
      await c.del(ns, 'x');
      expect(brief(await w.next())).toMatchObject({ type: 'DELETED', name: 'x' });
    } finally {
      w.close();
    }
  });

  it('across all namespaces, with label and field selectors', async () => {
    const tag = `t${Date.now()}`;
    const n1 = await c.ns('wall');
    const n2 = await c.ns('wall');
    const w = await openWatch(
      ts,
      `/api/v1/configmaps?watch=1&labelSelector=${encodeURIComponent(`tag=${tag}`)}&resourceVersion=0`,
    );
    const wf = await openWatch(
      ts,
      `/api/v1/configmaps?watch=1&fieldSelector=${encodeURIComponent(`metadata.namespace=${n2}`)}&labelSelector=${encodeURIComponent(`tag=${tag}`)}`,
    );
    try {
      await c.create(n1, 'p', {}, { tag });
      await c.create(n2, 'q', {}, { tag });
      await c.create(n2, 'untagged');
      await c.create(n1, 'r', {}, { tag });
      const evs = await w.take(3);
      expect(evs.map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`)).toEqual([
        `ADDED ${n1}/p`,
        `ADDED ${n2}/q`,
        `ADDED ${n1}/r`,
      ]);
      const only = await wf.next();
      expect(`${only.type} ${only.object.metadata.namespace}/${only.object.metadata.name}`).toBe(
        `ADDED ${n2}/q`,
      );
      await c.create(n2, 's', {}, { tag });
      expect((await wf.next()).object.metadata.name).toBe('s');
    } finally {
      w.close();
      wf.close();
    }
  });

  it('a selector syntax error is a 400 even with invalid list options; an unknown field comes after them (Kubernetes order)', async () => {
    const ns = await c.ns('wsel');
    const syntax = await ts.req('GET', `${c.base(ns)}?labelSelector=a%20in%20b&resourceVersionMatch=Exact`);
    expect(syntax.status).toBe(400);
    const field = await ts.req('GET', `${c.base(ns)}?fieldSelector=spec.x%3D1&resourceVersionMatch=Exact`);
    expect(field.status).toBe(422);
  });

  it('invalid selectors on watch: 400 before any stream', async () => {
    const ns = await c.ns('wsel');
    for (const q of [
      'labelSelector=env%20in%20prod',
      'fieldSelector=spec.x%3D1',
      'fieldSelector=metadata.name',
    ]) {
      const w = await openWatch(ts, `${c.base(ns)}?watch=1&${q}`);
      expect(w.status, q).toBe(400);
      expect(w.json.reason).toBe('BadRequest');
    }
  });
});
