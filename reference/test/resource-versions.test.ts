// doc1 "Resource version semantics": every cell of the get, list and watch tables, on
// ConfigMaps in fresh namespaces. Expected values come from a model of the writes (what the
// collection held after each write, at the version the write answered), never from the
// server's own reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, startServer, type TestServer } from './helpers.ts';
import { cms, openWatch } from './read-support.ts';

type Item = { data: Record<string, string>; rv: string };
type Snap = { rv: string; items: Map<string, Item> };

/** What a namespace held after each create/update (deletes change `cur` only). */
class Model {
  readonly snaps: Snap[] = [];
  readonly cur = new Map<string, Item>();
  put(obj: any): void {
    this.cur.set(obj.metadata.name, { data: obj.data ?? {}, rv: obj.metadata.resourceVersion });
    this.snaps.push({ rv: obj.metadata.resourceVersion, items: new Map(this.cur) });
  }
  gone(name: string): void {
    this.cur.delete(name);
  }
  index(rv: string): number {
    return this.snaps.findIndex((s) => s.rv === rv);
  }
}

function stateOf(items: any[]): Record<string, Item> {
  const out: Record<string, Item> = {};
  for (const o of items) out[o.metadata.name] = { data: o.data ?? {}, rv: o.metadata.resourceVersion };
  return out;
}

function snapState(s: Snap): Record<string, Item> {
  return Object.fromEntries(s.items);
}

/** Follows continue tokens to the end; returns all items and the version of every chunk. */
async function allChunks(
  ts: TestServer,
  path: string,
): Promise<{ items: any[]; rvs: string[]; chunks: Reply[] }> {
  const items: any[] = [];
  const rvs: string[] = [];
  const chunks: Reply[] = [];
  let r = await ts.req('GET', path);
  for (let n = 0; ; n++) {
    expect(r.status, r.text).toBe(200);
    chunks.push(r);
    items.push(...r.json.items);
    rvs.push(r.json.metadata.resourceVersion);
    const c = r.json.metadata.continue;
    if (!c) break;
    if (n > 100) throw new Error('too many chunks');
    const limit = new URL(path, 'http://x').searchParams.get('limit');
    r = await ts.req('GET', `${path.split('?')[0]}?limit=${limit}&continue=${encodeURIComponent(c)}`);
  }
  return { items, rvs, chunks };
}

function expectInvalidListOptions(r: Reply, causeReason: string) {
  expect(r.status, r.text).toBe(422);
  expect(r.json.kind).toBe('Status');
  expect(r.json.reason).toBe('Invalid');
  expect(r.json.details.kind).toBe('ListOptions');
  expect(r.json.details.group).toBe('meta.orch.io');
  expect(
    r.json.details.causes.some((c: any) => c.reason === causeReason && c.field === 'resourceVersionMatch'),
  ).toBe(true);
}

function expectTooLarge(r: Reply) {
  expect(r.status, r.text).toBe(504);
  expect(r.json.reason).toBe('Timeout');
  expect(r.json.message).toContain('Too large resource version');
  expect(r.json.details.causes[0].reason).toBe('ResourceVersionTooLarge');
  expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
}

const future = (rv: string) => String(Number(rv) + 1000);

describe('get: unset = Most Recent; 0 = Any; other = Not older than', () => {
  let ts: TestServer;
  let c: ReturnType<typeof cms>;
  let ns: string;
  const versions: Item[] = [];
  beforeAll(async () => {
    ts = await startServer({ futureRvWaitMs: 200 });
    c = cms(ts);
    ns = await c.ns();
    for (let v = 1; v <= 3; v++) {
      const o = v === 1 ? await c.create(ns, 'a', { v: '1' }) : await c.update(ns, 'a', { v: String(v) });
      versions.push({ data: o.data, rv: o.metadata.resourceVersion });
    }
  });
  afterAll(() => ts.close());

  const got = (r: Reply): Item => ({ data: r.json.data, rv: r.json.metadata.resourceVersion });

  it('unset: the most recent state', async () => {
    const r = await ts.req('GET', `${c.base(ns)}/a`);
    expect(r.status).toBe(200);
    expect(got(r)).toEqual(versions[2]);
  });

  it('0: a state the object had (any)', async () => {
    const r = await ts.req('GET', `${c.base(ns)}/a?resourceVersion=0`);
    expect(r.status).toBe(200);
    expect(versions).toContainEqual(got(r));
  });

  it('other: a state not older than the version given', async () => {
    for (let i = 0; i < versions.length; i++) {
      const r = await ts.req('GET', `${c.base(ns)}/a?resourceVersion=${versions[i]!.rv}`);
      expect(r.status).toBe(200);
      expect(versions.slice(i)).toContainEqual(got(r));
    }
  });

  it('a version not reached: 504 Timeout, Too large resource version, ResourceVersionTooLarge, Retry-After', async () => {
    expectTooLarge(await ts.req('GET', `${c.base(ns)}/a?resourceVersion=${future(versions[2]!.rv)}`));
  });

  it('a version reached during the wait: the state at it', async () => {
    const slow = await startServer({ futureRvWaitMs: 15_000 });
    try {
      const s = cms(slow);
      const n = await s.ns();
      const a = await s.create(n, 'a', { v: '1' });
      const next = String(Number(a.metadata.resourceVersion) + 1);
      const pending = slow.req('GET', `${s.base(n)}/a?resourceVersion=${next}`);
      await new Promise((r) => setTimeout(r, 100));
      const b = await s.update(n, 'a', { v: '2' });
      expect(b.metadata.resourceVersion).toBe(next);
      const r = await pending;
      expect(r.status, r.text).toBe(200);
      expect(got(r)).toEqual({ data: { v: '2' }, rv: next });
    } finally {
      await slow.close();
    }
  });

  it('a resourceVersion that is not a version: 400', async () => {
    for (const bad of ['abc', '-1', '1.5', ' 1']) {
      const r = await ts.req('GET', `${c.base(ns)}/a?resourceVersion=${encodeURIComponent(bad)}`);
      expect(r.status, bad).toBe(400);
      expect(r.json.reason).toBe('BadRequest');
    }
  });
});

describe('list: every row and column of the table', () => {
  let ts: TestServer;
  let c: ReturnType<typeof cms>;
  let ns: string;
  let path: string;
  const m = new Model();
  /** s[1]: a and b, both at their first version (b is deleted and a updated later). */
  let s1: Snap;
  beforeAll(async () => {
    ts = await startServer({ futureRvWaitMs: 200 });
    c = cms(ts);
    ns = await c.ns('list');
    path = c.base(ns);
    m.put(await c.create(ns, 'a', { v: '1' }));
    m.put(await c.create(ns, 'b', { v: '1' }));
    s1 = m.snaps[1]!;
    m.put(await c.update(ns, 'a', { v: '2' }));
    m.put(await c.create(ns, 'c', { v: '1' }));
    await c.del(ns, 'b');
    m.gone('b');
    m.put(await c.update(ns, 'c', { v: '2' }));
    m.put(await c.create(ns, 'd', { v: '1' }));
  });
  afterAll(() => ts.close());

  const latest = () => m.snaps[m.snaps.length - 1]!;

  /** The reply holds exactly the snapshot at its own version, which is one at or after `atLeast`. */
  function expectSnapshotNotOlder(items: any[], rv: string, atLeast: number) {
    const i = m.index(rv);
    expect(i, `collection version ${rv} is one of the writes`).toBeGreaterThanOrEqual(atLeast);
    expect(stateOf(items)).toEqual(snapState(m.snaps[i]!));
  }

  it('sanity: the past state differs from the latest (a updated, b deleted, c and d created)', () => {
    expect(snapState(s1)).not.toEqual(snapState(latest()));
    expect([...s1.items.keys()].sort()).toEqual(['a', 'b']);
  });

  // --- resourceVersionMatch unset, limit unset
  it('unset, no limit, rv unset: Most Recent', async () => {
    const r = await ts.req('GET', path);
    expect(r.status).toBe(200);
    expect(r.json.metadata.resourceVersion).toBe(latest().rv);
    expect(stateOf(r.json.items)).toEqual(snapState(latest()));
  });

  it('unset, no limit, rv=0: Any', async () => {
    const r = await ts.req('GET', `${path}?resourceVersion=0`);
    expect(r.status).toBe(200);
    expectSnapshotNotOlder(r.json.items, r.json.metadata.resourceVersion, 0);
  });

  it('unset, no limit, rv=X: Not older than X (not the state at X)', async () => {
    const r = await ts.req('GET', `${path}?resourceVersion=${s1.rv}`);
    expect(r.status).toBe(200);
    expectSnapshotNotOlder(r.json.items, r.json.metadata.resourceVersion, 1);
  });

  // --- resourceVersionMatch unset, limit=n, continue unset
  it('unset, limit, rv unset: Most Recent (chunked)', async () => {
    const { items, rvs } = await allChunks(ts, `${path}?limit=1`);
    expect(new Set(rvs)).toEqual(new Set([latest().rv]));
    expect(stateOf(items)).toEqual(snapState(latest()));
  });

  it('unset, limit, rv=0: Any (chunked)', async () => {
    const { items, rvs } = await allChunks(ts, `${path}?limit=1&resourceVersion=0`);
    expect(new Set(rvs).size).toBe(1);
    expectSnapshotNotOlder(items, rvs[0]!, 0);
  });

  it('unset, limit, rv=X: Exact — the collection exactly as it was at X', async () => {
    const { items, rvs, chunks } = await allChunks(ts, `${path}?limit=1&resourceVersion=${s1.rv}`);
    expect(chunks.length).toBe(2);
    expect(rvs).toEqual([s1.rv, s1.rv]);
    // a as it was (v1), b present though deleted since, c and d absent
    expect(stateOf(items)).toEqual(snapState(s1));
  });

  // --- resourceVersionMatch unset, limit=n, continue=token
  it('unset, limit, continue, rv unset: Continue Token, Exact', async () => {
    const first = await ts.req('GET', `${path}?limit=1&resourceVersion=${s1.rv}`);
    const r = await ts.req(
      'GET',
      `${path}?limit=1&continue=${encodeURIComponent(first.json.metadata.continue)}`,
    );
    expect(r.status).toBe(200);
    expect(r.json.metadata.resourceVersion).toBe(s1.rv);
    expect(stateOf(r.json.items)).toEqual({ b: s1.items.get('b') });
  });

  it('unset, limit, continue, rv=0: treated as Continue Token, Exact', async () => {
    const first = await ts.req('GET', `${path}?limit=1&resourceVersion=${s1.rv}`);
    const r = await ts.req(
      'GET',
      `${path}?limit=1&resourceVersion=0&continue=${encodeURIComponent(first.json.metadata.continue)}`,
    );
    expect(r.status).toBe(200);
    expect(r.json.metadata.resourceVersion).toBe(s1.rv);
    expect(stateOf(r.json.items)).toEqual({ b: s1.items.get('b') });
  });

  it('unset, limit, continue, rv=X: 400', async () => {
    const first = await ts.req('GET', `${path}?limit=1`);
    for (const rv of [s1.rv, latest().rv]) {
      const r = await ts.req(
        'GET',
        `${path}?limit=1&resourceVersion=${rv}&continue=${encodeURIComponent(first.json.metadata.continue)}`,
      );
      expect(r.status, r.text).toBe(400);
      expect(r.json.reason).toBe('BadRequest');
    }
  });

  // --- resourceVersionMatch=Exact
  it('Exact, rv unset: invalid (422 Invalid ListOptions, as Kubernetes)', async () => {
    expectInvalidListOptions(
      await ts.req('GET', `${path}?resourceVersionMatch=Exact`),
      'FieldValueForbidden',
    );
    expectInvalidListOptions(
      await ts.req('GET', `${path}?resourceVersionMatch=Exact&limit=1`),
      'FieldValueForbidden',
    );
  });

  it('Exact, rv=0: invalid (422)', async () => {
    expectInvalidListOptions(
      await ts.req('GET', `${path}?resourceVersionMatch=Exact&resourceVersion=0`),
      'FieldValueForbidden',
    );
    expectInvalidListOptions(
      await ts.req('GET', `${path}?resourceVersionMatch=Exact&resourceVersion=0&limit=1`),
      'FieldValueForbidden',
    );
  });

  it('Exact, no limit, rv=X: the collection exactly as it was at X', async () => {
    const r = await ts.req('GET', `${path}?resourceVersionMatch=Exact&resourceVersion=${s1.rv}`);
    expect(r.status).toBe(200);
    expect(r.json.metadata.resourceVersion).toBe(s1.rv);
    expect(stateOf(r.json.items)).toEqual(snapState(s1));
    // every past version is exact, the latest included
    for (const s of m.snaps) {
      const x = await ts.req('GET', `${path}?resourceVersionMatch=Exact&resourceVersion=${s.rv}`);
      expect(x.json.metadata.resourceVersion).toBe(s.rv);
      expect(stateOf(x.json.items)).toEqual(snapState(s));
    }
  });

  it('Exact, limit, rv=X: Exact (chunked)', async () => {
    const { items, rvs } = await allChunks(
      ts,
      `${path}?resourceVersionMatch=Exact&limit=1&resourceVersion=${s1.rv}`,
    );
    expect(new Set(rvs)).toEqual(new Set([s1.rv]));
    expect(stateOf(items)).toEqual(snapState(s1));
  });

  // --- resourceVersionMatch=NotOlderThan
  it('NotOlderThan, rv unset: invalid (422)', async () => {
    expectInvalidListOptions(
      await ts.req('GET', `${path}?resourceVersionMatch=NotOlderThan`),
      'FieldValueForbidden',
    );
    expectInvalidListOptions(
      await ts.req('GET', `${path}?resourceVersionMatch=NotOlderThan&limit=1`),
      'FieldValueForbidden',
    );
  });

  it('NotOlderThan, rv=0: Any (with and without limit)', async () => {
    const r = await ts.req('GET', `${path}?resourceVersionMatch=NotOlderThan&resourceVersion=0`);
    expect(r.status).toBe(200);
    expectSnapshotNotOlder(r.json.items, r.json.metadata.resourceVersion, 0);
    const { items, rvs } = await allChunks(
      ts,
      `${path}?resourceVersionMatch=NotOlderThan&resourceVersion=0&limit=1`,
    );
    expect(new Set(rvs).size).toBe(1);
    expectSnapshotNotOlder(items, rvs[0]!, 0);
  });

  it('NotOlderThan, rv=X: Not older than X (with and without limit)', async () => {
    const r = await ts.req('GET', `${path}?resourceVersionMatch=NotOlderThan&resourceVersion=${s1.rv}`);
    expect(r.status).toBe(200);
    expectSnapshotNotOlder(r.json.items, r.json.metadata.resourceVersion, 1);
    const { items, rvs } = await allChunks(
      ts,
      `${path}?resourceVersionMatch=NotOlderThan&resourceVersion=${s1.rv}&limit=1`,
    );
    expect(new Set(rvs).size).toBe(1);
    expectSnapshotNotOlder(items, rvs[0]!, 1);
  });

  // --- what the table leaves out
  it('resourceVersionMatch with continue: 422 (Kubernetes)', async () => {
    const first = await ts.req('GET', `${path}?limit=1`);
    const tok = encodeURIComponent(first.json.metadata.continue);
    for (const q of [
      `resourceVersionMatch=Exact&resourceVersion=${s1.rv}&limit=1&continue=${tok}`,
      `resourceVersionMatch=NotOlderThan&resourceVersion=0&limit=1&continue=${tok}`,
    ]) {
      const r = await ts.req('GET', `${path}?${q}`);
      expectInvalidListOptions(r, 'FieldValueForbidden');
      expect(r.json.message).toContain('resourceVersionMatch is forbidden when continue is provided');
    }
  });

  it('an unknown resourceVersionMatch: 422 FieldValueNotSupported', async () => {
    const r = await ts.req('GET', `${path}?resourceVersionMatch=Newest&resourceVersion=${s1.rv}`);
    expectInvalidListOptions(r, 'FieldValueNotSupported');
    expect(r.json.message).toContain('Unsupported value: "Newest"');
  });

  it('an empty resourceVersionMatch counts as unset', async () => {
    const r = await ts.req('GET', `${path}?resourceVersionMatch=&resourceVersion=${s1.rv}&limit=10`);
    expect(r.status).toBe(200);
    expect(stateOf(r.json.items)).toEqual(snapState(s1)); // unset + limit + rv = Exact
  });

  it('a version not reached: 504 for Exact, NotOlderThan and the unset match', async () => {
    const f = future(latest().rv);
    expectTooLarge(await ts.req('GET', `${path}?resourceVersionMatch=Exact&resourceVersion=${f}`));
    expectTooLarge(await ts.req('GET', `${path}?resourceVersionMatch=NotOlderThan&resourceVersion=${f}`));
    expectTooLarge(await ts.req('GET', `${path}?resourceVersion=${f}`));
    expectTooLarge(await ts.req('GET', `${path}?resourceVersion=${f}&limit=1`));
  });

  it('a resourceVersion that is not a version: 400', async () => {
    for (const q of [
      'resourceVersion=x',
      'resourceVersion=x&limit=1',
      'resourceVersion=x&resourceVersionMatch=Exact',
    ]) {
      const r = await ts.req('GET', `${path}?${q}`);
      expect(r.status, q).toBe(400);
    }
  });

  it('a list carrying sendInitialEvents: 422 (Kubernetes: forbidden for list)', async () => {
    const r = await ts.req('GET', `${path}?sendInitialEvents=true`);
    expect(r.status).toBe(422);
    expect(r.json.details.causes[0].field).toBe('sendInitialEvents');
  });
});

describe('watch: unset = Get State and Start at Most Recent; 0 = Any; other = Start at Exact', () => {
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
    data: e.object.data,
    rv: e.object.metadata.resourceVersion,
  });

  for (const rv of ['', '0']) {
    it(`rv ${rv === '' ? 'unset' : '0'}: synthetic ADDED for every existing object, then changes`, async () => {
      const ns = await c.ns('w');
      const a = await c.create(ns, 'a', { v: '1' });
      const b = await c.create(ns, 'b', { v: '1' });
      const w = await openWatch(ts, `${c.base(ns)}?watch=1${rv === '' ? '' : `&resourceVersion=${rv}`}`);
      try {
        const initial = (await w.take(2)).map(brief);
        expect(initial.sort((x, y) => x.name.localeCompare(y.name))).toEqual([
          { type: 'ADDED', name: 'a', data: { v: '1' }, rv: a.metadata.resourceVersion },
          { type: 'ADDED', name: 'b', data: { v: '1' }, rv: b.metadata.resourceVersion },
        ]);
        const a2 = await c.update(ns, 'a', { v: '2' });
        expect(brief(await w.next())).toEqual({
          type: 'MODIFIED',
          name: 'a',
          data: { v: '2' },
          rv: a2.metadata.resourceVersion,
        });
      } finally {
        w.close();
      }
    });
  }

  it('rv=X: Start at Exact — the changes after X only, no synthetic events', async () => {
    const ns = await c.ns('w');
    const a1 = await c.create(ns, 'a', { v: '1' });
    const a2 = await c.update(ns, 'a', { v: '2' });
    const b1 = await c.create(ns, 'b', { v: '1' });
    await c.del(ns, 'a');
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&resourceVersion=${a1.metadata.resourceVersion}`);
    try {
      const evs = (await w.take(3)).map(brief);
      expect(evs.slice(0, 2)).toEqual([
        { type: 'MODIFIED', name: 'a', data: { v: '2' }, rv: a2.metadata.resourceVersion },
        { type: 'ADDED', name: 'b', data: { v: '1' }, rv: b1.metadata.resourceVersion },
      ]);
      expect(evs[2]!.type).toBe('DELETED');
      expect(evs[2]!.name).toBe('a');
      // nothing else was queued: the next event is the next write
      const m = await c.create(ns, 'marker');
      expect(brief(await w.next())).toEqual({
        type: 'ADDED',
        name: 'marker',
        data: {},
        rv: m.metadata.resourceVersion,
      });
    } finally {
      w.close();
    }
  });

  it('rv=X at the latest version: only later changes', async () => {
    const ns = await c.ns('w');
    const a = await c.create(ns, 'a', { v: '1' });
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&resourceVersion=${a.metadata.resourceVersion}`);
    try {
      const b = await c.create(ns, 'b');
      expect(brief(await w.next())).toEqual({
        type: 'ADDED',
        name: 'b',
        data: {},
        rv: b.metadata.resourceVersion,
      });
    } finally {
      w.close();
    }
  });

  it('rv=X not reached yet: the changes after X only, once they happen', async () => {
    const ns = await c.ns('w');
    const a = await c.create(ns, 'a', { v: '1' });
    const x = String(Number(a.metadata.resourceVersion) + 2);
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&resourceVersion=${x}`);
    try {
      expect(w.status).toBe(200);
      await c.update(ns, 'a', { v: '2' }); // x - 1
      const at = await c.update(ns, 'a', { v: '3' }); // x
      expect(at.metadata.resourceVersion).toBe(x);
      const after = await c.update(ns, 'a', { v: '4' });
      expect(brief(await w.next())).toEqual({
        type: 'MODIFIED',
        name: 'a',
        data: { v: '4' },
        rv: after.metadata.resourceVersion,
      });
    } finally {
      w.close();
    }
  });

  it('a resourceVersion that is not a version: 400, no stream', async () => {
    const ns = await c.ns('w');
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&resourceVersion=abc`);
    expect(w.status).toBe(400);
    expect(w.json.reason).toBe('BadRequest');
  });
});

describe('versions older than the retained history (injected clock)', () => {
  let now = Date.UTC(2030, 0, 1);
  let ts: TestServer;
  let c: ReturnType<typeof cms>;
  let ns: string;
  let a1: any;
  let a2: any;
  let b: any;
  beforeAll(async () => {
    ts = await startServer({ clock: () => now, historySeconds: 60 });
    c = cms(ts);
    ns = await c.ns('old');
    a1 = await c.create(ns, 'a', { v: '1' });
    a2 = await c.update(ns, 'a', { v: '2' });
    now += 61_000; // the changes so far leave the 60 s history
    b = await c.create(ns, 'b', { v: '1' });
  });
  afterAll(() => ts.close());

  it('Exact list of a version whose later changes are gone: 410 Expired', async () => {
    for (const q of [
      `resourceVersionMatch=Exact&resourceVersion=${a1.metadata.resourceVersion}`,
      `resourceVersion=${a1.metadata.resourceVersion}&limit=1`,
    ]) {
      const r = await ts.req('GET', `${c.base(ns)}?${q}`);
      expect(r.status, q).toBe(410);
      expect(r.json.reason).toBe('Expired');
    }
  });

  it('Exact list of the oldest version still rebuildable: its state', async () => {
    // every change after a2 is retained (only b), so the state at a2 is known exactly
    const r = await ts.req(
      'GET',
      `${c.base(ns)}?resourceVersionMatch=Exact&resourceVersion=${a2.metadata.resourceVersion}`,
    );
    expect(r.status, r.text).toBe(200);
    expect(stateOf(r.json.items)).toEqual({ a: { data: { v: '2' }, rv: a2.metadata.resourceVersion } });
  });

  it('Not older than an old version: the current state, no 410', async () => {
    const r = await ts.req('GET', `${c.base(ns)}?resourceVersion=${a1.metadata.resourceVersion}`);
    expect(r.status).toBe(200);
    expect(Object.keys(stateOf(r.json.items)).sort()).toEqual(['a', 'b']);
    const g = await ts.req('GET', `${c.base(ns)}/a?resourceVersion=${a1.metadata.resourceVersion}`);
    expect(g.status).toBe(200);
    expect(g.json.data).toEqual({ v: '2' });
  });

  it('watch from it: 200, then an ERROR event carrying a 410 Expired Status, then the end', async () => {
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&resourceVersion=${a1.metadata.resourceVersion}`);
    expect(w.status).toBe(200);
    const evs = await w.rest();
    expect(evs.length).toBe(1);
    expect(evs[0]!.type).toBe('ERROR');
    expect(evs[0]!.object).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 410,
      reason: 'Expired',
    });
  });

  it('watch from the oldest retained version: the retained changes', async () => {
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&resourceVersion=${a2.metadata.resourceVersion}`);
    try {
      const e = await w.next();
      expect(e.type).toBe('ADDED');
      expect(e.object.metadata).toMatchObject({ name: 'b', resourceVersion: b.metadata.resourceVersion });
    } finally {
      w.close();
    }
  });
});
