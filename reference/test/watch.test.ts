// doc1 watch: the stream (chunked JSON documents in write order), event types, bookmarks,
// streaming initial state behind the WatchList gate, timeoutSeconds, single-object and
// deprecated-path watches, and a property: a watcher sees exactly the model's events, and a
// watch restarted from any version it saw yields exactly the rest.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../src/storage/memory.ts';
import type { ChangeEvent } from '../src/storage/types.ts';
import { startServer, type TestServer } from './helpers.ts';
import { cms, openWatch, type WatchEvent } from './read-support.ts';

const brief = (e: WatchEvent) => ({
  type: e.type,
  name: e.object?.metadata?.name,
  data: e.object?.data,
  rv: e.object?.metadata?.resourceVersion,
});

describe('the watch stream', () => {
  let ts: TestServer;
  let c: ReturnType<typeof cms>;
  beforeAll(async () => {
    ts = await startServer({ bookmarkIntervalMs: 40 });
    c = cms(ts);
  });
  afterAll(() => ts.close());

  it('is a 200 with Transfer-Encoding: chunked and Content-Type: application/json, one JSON document per line', async () => {
    const ns = await c.ns('ws');
    await c.create(ns, 'a', { v: '1' });
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&timeoutSeconds=1`);
    expect(w.status).toBe(200);
    expect(w.headers['transfer-encoding']).toBe('chunked');
    expect(String(w.headers['content-type']).split(';')[0]).toBe('application/json');
    await c.update(ns, 'a', { v: '2' });
    await c.del(ns, 'a');
    const evs = await w.rest();
    expect(w.badLines).toEqual([]);
    expect(evs.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    for (const e of evs) expect(Object.keys(e).sort()).toEqual(['object', 'type']);
  });

  it('ADDED, MODIFIED and DELETED carry the object of the requested kind and version', async () => {
    const ns = await c.ns('ws');
    const w = await openWatch(ts, `${c.base(ns)}?watch=1`);
    try {
      const a = await c.create(ns, 'a', { v: '1' });
      const a2 = await c.update(ns, 'a', { v: '2' });
      await c.del(ns, 'a');
      const [added, modified, deleted] = await w.take(3);
      expect(brief(added!)).toEqual({
        type: 'ADDED',
        name: 'a',
        data: { v: '1' },
        rv: a.metadata.resourceVersion,
      });
      expect(brief(modified!)).toEqual({
        type: 'MODIFIED',
        name: 'a',
        data: { v: '2' },
        rv: a2.metadata.resourceVersion,
      });
      expect(deleted!.type).toBe('DELETED');
      expect(deleted!.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { v: '2' } });
      expect(deleted!.object.metadata).toMatchObject({ name: 'a', namespace: ns, uid: a.metadata.uid });
      // the deletion is a change of its own, with its own version
      const delRv = deleted!.object.metadata.resourceVersion;
      expect(delRv).not.toBe(a2.metadata.resourceVersion);
      const again = await openWatch(
        ts,
        `${c.base(ns)}?watch=1&resourceVersion=${a2.metadata.resourceVersion}`,
      );
      try {
        expect(brief(await again.next())).toMatchObject({ type: 'DELETED', name: 'a', rv: delRv });
      } finally {
        again.close();
      }
      for (const e of [added, modified, deleted])
        expect(e!.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    } finally {
      w.close();
    }
  });

  it('a write that changes nothing is no event', async () => {
    const ns = await c.ns('ws');
    await c.create(ns, 'a', { v: '1' });
    const w = await openWatch(ts, `${c.base(ns)}?watch=1`);
    try {
      expect((await w.next()).type).toBe('ADDED');
      await c.update(ns, 'a', { v: '1' });
      const m = await c.create(ns, 'marker');
      expect(brief(await w.next())).toMatchObject({
        type: 'ADDED',
        name: 'marker',
        rv: m.metadata.resourceVersion,
      });
    } finally {
      w.close();
    }
  });

  it('BOOKMARK only with allowWatchBookmarks=true: the kind and apiVersion, and only metadata.resourceVersion', async () => {
    const ns = await c.ns('wb');
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&allowWatchBookmarks=true`);
    try {
      const a = await c.create(ns, 'a', { v: '1' });
      // bookmarks come every 40 ms here: one may come before the create does (a loaded machine)
      let added = false;
      const evs = await w.upTo((e) => {
        added ||= e.type === 'ADDED';
        return added && e.type === 'BOOKMARK';
      });
      expect(evs.filter((e) => e.type !== 'BOOKMARK').map((e) => e.type)).toEqual(['ADDED']);
      const bm = evs[evs.length - 1]!;
      expect(Number(bm.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(
        Number(a.metadata.resourceVersion),
      );
      expect(bm.object.kind).toBe('ConfigMap');
      expect(bm.object.apiVersion).toBe('v1');
      expect(Object.keys(bm.object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(Object.keys(bm.object.metadata)).toEqual(['resourceVersion']);
      // "all changes up to the given resourceVersion were sent": a restart from it does not
      // replay a, and does see what comes after
      const b = await c.create(ns, 'b');
      const again = await openWatch(
        ts,
        `${c.base(ns)}?watch=1&resourceVersion=${bm.object.metadata.resourceVersion}`,
      );
      try {
        expect(brief(await again.next())).toMatchObject({
          type: 'ADDED',
          name: 'b',
          rv: b.metadata.resourceVersion,
        });
      } finally {
        again.close();
      }
      void a;
    } finally {
      w.close();
    }
  });

  it('a BOOKMARK two seconds before the watch ends, as kube-apiserver 1.28 sends one; none when the watch is that short', async () => {
    // the default interval (60 s): only the one before the end can come within the test
    const quiet = await startServer({});
    try {
      const q = cms(quiet);
      const ns = await q.ns('wpre');
      const a = await q.create(ns, 'a');
      const started = Date.now();
      const w = await openWatch(
        quiet,
        `${q.base(ns)}?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${a.metadata.resourceVersion}`,
      );
      const evs = await w.rest();
      expect(evs.map((e) => e.type)).toEqual(['BOOKMARK']);
      expect(evs[0]!.object.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
      // the stream ended about three seconds after it began, the bookmark a second in
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
      const short = await openWatch(quiet, `${q.base(ns)}?watch=1&allowWatchBookmarks=true&timeoutSeconds=2`);
      expect((await short.rest()).filter((e) => e.type === 'BOOKMARK')).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  it('no BOOKMARK without allowWatchBookmarks (absent or false)', async () => {
    const ns = await c.ns('wb');
    const plain = await openWatch(ts, `${c.base(ns)}?watch=1`);
    const off = await openWatch(ts, `${c.base(ns)}?watch=1&allowWatchBookmarks=false`);
    try {
      await c.create(ns, 'a');
      await new Promise((r) => setTimeout(r, 400)); // ten bookmark intervals
      const m = await c.create(ns, 'marker');
      for (const w of [plain, off]) {
        const evs = await w.upTo((e) => e.object?.metadata?.name === 'marker');
        expect(evs.map((e) => e.type)).toEqual(['ADDED', 'ADDED']);
        expect(evs[1]!.object.metadata.resourceVersion).toBe(m.metadata.resourceVersion);
      }
    } finally {
      plain.close();
      off.close();
    }
  });

  it('timeoutSeconds ends the stream', async () => {
    const ns = await c.ns('wt');
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&timeoutSeconds=1`);
    expect(w.status).toBe(200);
    expect(await w.rest()).toEqual([]);
    expect(w.ended).toBe(true);
  });

  it('a watch of one object (resource path + watch=1) sees only that object', async () => {
    const ns = await c.ns('wone');
    await c.create(ns, 'a', { v: '1' });
    await c.create(ns, 'ab', { v: '1' });
    const w = await openWatch(ts, `${c.base(ns)}/a?watch=1`);
    try {
      expect(brief(await w.next())).toMatchObject({ type: 'ADDED', name: 'a' });
      await c.update(ns, 'ab', { v: '2' });
      await c.create(ns, 'b');
      const a2 = await c.update(ns, 'a', { v: '2' });
      expect(brief(await w.next())).toEqual({
        type: 'MODIFIED',
        name: 'a',
        data: { v: '2' },
        rv: a2.metadata.resourceVersion,
      });
      await c.del(ns, 'ab');
      await c.del(ns, 'a');
      expect(brief(await w.next())).toMatchObject({ type: 'DELETED', name: 'a' });
      await c.create(ns, 'a', { v: 'again' });
      expect(brief(await w.next())).toMatchObject({ type: 'ADDED', name: 'a', data: { v: 'again' } });
    } finally {
      w.close();
    }
  });

  it('a watch of one object that does not exist yet starts empty; a fieldSelector naming another object is a 400', async () => {
    const ns = await c.ns('wone');
    const w = await openWatch(ts, `${c.base(ns)}/later?watch=true&fieldSelector=metadata.name%3Dlater`);
    try {
      await c.create(ns, 'other');
      const l = await c.create(ns, 'later');
      expect(brief(await w.next())).toMatchObject({
        type: 'ADDED',
        name: 'later',
        rv: l.metadata.resourceVersion,
      });
    } finally {
      w.close();
    }
    const bad = await openWatch(ts, `${c.base(ns)}/later?watch=1&fieldSelector=metadata.name%3Dother`);
    expect(bad.status).toBe(400);
  });

  it('the deprecated /api/v1/watch/namespaces/<ns>/configmaps path form', async () => {
    const ns = await c.ns('wdep');
    await c.create(ns, 'a', { v: '1' });
    const w = await openWatch(ts, `/api/v1/watch/namespaces/${ns}/configmaps`);
    const one = await openWatch(ts, `/api/v1/watch/namespaces/${ns}/configmaps/b`);
    const all = await openWatch(ts, `/api/v1/watch/configmaps?fieldSelector=metadata.namespace%3D${ns}`);
    try {
      expect(w.status).toBe(200);
      expect(all.status).toBe(200);
      expect(brief(await w.next())).toMatchObject({ type: 'ADDED', name: 'a' });
      expect(brief(await all.next())).toMatchObject({ type: 'ADDED', name: 'a' });
      const b = await c.create(ns, 'b');
      expect(brief(await w.next())).toMatchObject({
        type: 'ADDED',
        name: 'b',
        rv: b.metadata.resourceVersion,
      });
      expect(brief(await one.next())).toMatchObject({
        type: 'ADDED',
        name: 'b',
        rv: b.metadata.resourceVersion,
      });
      expect(brief(await all.next())).toMatchObject({
        type: 'ADDED',
        name: 'b',
        rv: b.metadata.resourceVersion,
      });
    } finally {
      w.close();
      one.close();
      all.close();
    }
  });

  it('resourceVersionMatch on a watch without sendInitialEvents: 422 (Kubernetes)', async () => {
    const ns = await c.ns('wv');
    const w = await openWatch(
      ts,
      `${c.base(ns)}?watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=0`,
    );
    expect(w.status).toBe(422);
    expect(w.json.details.causes[0].field).toBe('resourceVersionMatch');
  });
});

describe('streaming initial state: WatchList gate off (default)', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startServer();
  });
  afterAll(() => ts.close());

  it('sendInitialEvents is refused: 422 Invalid, cause on sendInitialEvents (Kubernetes)', async () => {
    const c = cms(ts);
    const ns = await c.ns('wl');
    const w = await openWatch(
      ts,
      `${c.base(ns)}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    expect(w.status).toBe(422);
    expect(w.json.reason).toBe('Invalid');
    expect(w.json.details).toMatchObject({ kind: 'ListOptions', group: 'meta.orch.io' });
    expect(w.json.details.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: 'sendInitialEvents',
        message:
          'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
      },
    ]);
  });
});

describe('streaming initial state: WatchList gate on', () => {
  let ts: TestServer;
  let c: ReturnType<typeof cms>;
  const LIST = 'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';
  beforeAll(async () => {
    ts = await startServer({
      featureGates: { WatchList: true } as any,
      futureRvWaitMs: 15_000,
      bookmarkIntervalMs: 60_000,
    });
    c = cms(ts);
  });
  afterAll(() => ts.close());

  const isEnd = (e: WatchEvent) =>
    e.type === 'BOOKMARK' && e.object.metadata.annotations?.['orch.io/initial-events-end'] === 'true';

  it('synthetic ADDED for every object, a BOOKMARK at the version synced to, then changes', async () => {
    const ns = await c.ns('wl');
    for (const n of ['a', 'b', 'c']) await c.create(ns, n, { n });
    await c.update(ns, 'b', { n: 'b2' });
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&${LIST}`);
    try {
      const evs = await w.upTo(isEnd);
      const bm = evs.pop()!;
      expect(evs.every((e) => e.type === 'ADDED')).toBe(true);
      expect(bm.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
      expect(bm.object.metadata.annotations).toEqual({ 'orch.io/initial-events-end': 'true' });
      // the initial events are exactly the collection at the bookmark's version
      const at = await ts.req(
        'GET',
        `${c.base(ns)}?resourceVersionMatch=Exact&resourceVersion=${bm.object.metadata.resourceVersion}`,
      );
      expect(at.status).toBe(200);
      const sorted = (xs: any[]) =>
        xs
          .map((o) => ({ name: o.metadata.name, data: o.data, rv: o.metadata.resourceVersion }))
          .sort((x, y) => x.name.localeCompare(y.name));
      expect(sorted(evs.map((e) => e.object))).toEqual(sorted(at.json.items));
      expect(sorted(evs.map((e) => e.object)).map((o) => o.data)).toEqual([
        { n: 'a' },
        { n: 'b2' },
        { n: 'c' },
      ]);
      const d = await c.create(ns, 'd');
      expect(brief(await w.next())).toMatchObject({
        type: 'ADDED',
        name: 'd',
        rv: d.metadata.resourceVersion,
      });
    } finally {
      w.close();
    }
  });

  it('with rv=0 and with rv set to a version reached: the same shape', async () => {
    const ns = await c.ns('wl');
    const a = await c.create(ns, 'a');
    for (const rv of ['0', a.metadata.resourceVersion]) {
      const w = await openWatch(ts, `${c.base(ns)}?watch=1&${LIST}&resourceVersion=${rv}`);
      try {
        const evs = await w.upTo(isEnd);
        expect(evs.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
      } finally {
        w.close();
      }
    }
  });

  it('with rv not reached yet: the bookmark waits until the state is at least that version', async () => {
    const ns = await c.ns('wl');
    const a = await c.create(ns, 'a');
    const want = String(Number(a.metadata.resourceVersion) + 1);
    const w = await openWatch(ts, `${c.base(ns)}?watch=1&${LIST}&resourceVersion=${want}`);
    try {
      await new Promise((r) => setTimeout(r, 150));
      expect(w.events).toEqual([]);
      const b = await c.create(ns, 'b');
      expect(b.metadata.resourceVersion).toBe(want);
      const evs = await w.upTo(isEnd);
      expect(
        evs
          .slice(0, -1)
          .map((e) => e.object.metadata.name)
          .sort(),
      ).toEqual(['a', 'b']);
      expect(evs[evs.length - 1]!.object.metadata.resourceVersion).toBe(want);
    } finally {
      w.close();
    }
  });

  it('with rv never reached: 200, then an ERROR event carrying the 504 Too large resource version, then the end', async () => {
    const quick = await startServer({ featureGates: { WatchList: true } as any, futureRvWaitMs: 200 });
    try {
      const q = cms(quick);
      const ns = await q.ns('wl');
      const a = await q.create(ns, 'a');
      const w = await openWatch(
        quick,
        `${q.base(ns)}?watch=1&${LIST}&resourceVersion=${Number(a.metadata.resourceVersion) + 1000}`,
      );
      expect(w.status).toBe(200);
      const evs = await w.rest();
      expect(evs.map((e) => e.type)).toEqual(['ERROR']);
      expect(evs[0]!.object).toMatchObject({ kind: 'Status', code: 504, reason: 'Timeout' });
      expect(evs[0]!.object.message).toContain('Too large resource version');
    } finally {
      await quick.close();
    }
  });

  it('without allowWatchBookmarks: the initial events and changes, no bookmark (Kubernetes)', async () => {
    const ns = await c.ns('wl');
    await c.create(ns, 'a');
    const w = await openWatch(
      ts,
      `${c.base(ns)}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
    );
    try {
      expect(brief(await w.next())).toMatchObject({ type: 'ADDED', name: 'a' });
      const b = await c.create(ns, 'b');
      expect(brief(await w.next())).toMatchObject({
        type: 'ADDED',
        name: 'b',
        rv: b.metadata.resourceVersion,
      });
    } finally {
      w.close();
    }
  });

  it('sendInitialEvents=false: no initial state, only changes', async () => {
    const ns = await c.ns('wl');
    await c.create(ns, 'a');
    const w = await openWatch(
      ts,
      `${c.base(ns)}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan`,
    );
    try {
      const b = await c.create(ns, 'b');
      expect(brief(await w.next())).toMatchObject({
        type: 'ADDED',
        name: 'b',
        rv: b.metadata.resourceVersion,
      });
    } finally {
      w.close();
    }
  });

  it('sendInitialEvents needs resourceVersionMatch=NotOlderThan: 422 otherwise', async () => {
    const ns = await c.ns('wl');
    for (const q of [
      'sendInitialEvents=true',
      'sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1',
    ]) {
      const w = await openWatch(ts, `${c.base(ns)}?watch=1&allowWatchBookmarks=true&${q}`);
      expect(w.status, q).toBe(422);
      expect(w.json.details.causes.some((x: any) => x.field === 'resourceVersionMatch')).toBe(true);
    }
  });
});

describe('property: watch order, completeness and restart', () => {
  let ts: TestServer;
  let c: ReturnType<typeof cms>;
  beforeAll(async () => {
    ts = await startServer();
    c = cms(ts);
  });
  afterAll(() => ts.close());

  type Op = { kind: 'create' | 'update' | 'delete'; name: 'a' | 'b' | 'c' };
  const op = fc.record({
    kind: fc.constantFrom('create', 'update', 'delete') as fc.Arbitrary<Op['kind']>,
    name: fc.constantFrom('a', 'b', 'c') as fc.Arbitrary<Op['name']>,
  });

  it('a watcher sees exactly the model’s events; a restart from any seen version yields exactly the rest', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 20 }), async (ops) => {
        const ns = await c.ns('prop');
        const fromStart = await openWatch(ts, `${c.base(ns)}?watch=1`);
        const fromZero = await openWatch(ts, `${c.base(ns)}?watch=1&resourceVersion=0`);
        try {
          const live = new Set<string>();
          const want: { type: string; name: string; data?: Record<string, string>; rv?: string }[] = [];
          let step = 0;
          for (const o of ops) {
            step++;
            const path = `${c.base(ns)}/${o.name}`;
            const data = { step: String(step) };
            if (o.kind === 'create') {
              const r = await ts.req('POST', c.base(ns), {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                metadata: { name: o.name },
                data,
              });
              if (live.has(o.name)) expect(r.status).toBe(409);
              else {
                expect(r.status).toBe(201);
                live.add(o.name);
                want.push({ type: 'ADDED', name: o.name, data, rv: r.json.metadata.resourceVersion });
              }
            } else if (o.kind === 'update') {
              const r = await ts.req('PUT', path, {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                metadata: { name: o.name },
                data,
              });
              if (!live.has(o.name)) expect(r.status).toBe(404);
              else {
                expect(r.status).toBe(200);
                want.push({ type: 'MODIFIED', name: o.name, data, rv: r.json.metadata.resourceVersion });
              }
            } else {
              const r = await ts.req('DELETE', path);
              if (!live.has(o.name)) expect(r.status).toBe(404);
              else {
                expect(r.status).toBe(200);
                live.delete(o.name);
                want.push({ type: 'DELETED', name: o.name });
              }
            }
          }
          const marker = await c.create(ns, 'zz-end');
          const end = (e: WatchEvent) => e.object?.metadata?.name === 'zz-end';
          for (const w of [fromStart, fromZero]) {
            const got = await w.upTo(end);
            expect(w.badLines).toEqual([]);
            expect(got.pop()!.object.metadata.resourceVersion).toBe(marker.metadata.resourceVersion);
            expect(got.map((e) => e.type)).toEqual(want.map((x) => x.type));
            got.forEach((e, i) => {
              const x = want[i]!;
              expect(e.object.metadata.name).toBe(x.name);
              if (x.rv) expect(e.object.metadata.resourceVersion).toBe(x.rv);
              if (x.data) expect(e.object.data).toEqual(x.data);
            });
            // no version twice
            const rvs = got.map((e) => e.object.metadata.resourceVersion);
            expect(new Set(rvs).size).toBe(rvs.length);
            want.forEach((x, i) => {
              if (!x.rv) x.rv = rvs[i]; // a deletion's version, first seen here
            });
          }
          // restart from every version seen: exactly the suffix, then the marker
          for (let i = 0; i < want.length; i++) {
            const w = await openWatch(ts, `${c.base(ns)}?watch=1&resourceVersion=${want[i]!.rv}`);
            try {
              const got = await w.upTo(end);
              got.pop();
              expect(
                got.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`),
              ).toEqual(want.slice(i + 1).map((x) => `${x.type} ${x.name} ${x.rv}`));
            } finally {
              w.close();
            }
          }
        } finally {
          fromStart.close();
          fromZero.close();
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});

describe('storage: a change reaches only the watchers it concerns', () => {
  it('namespace- and key-scoped watchers of other namespaces and objects are not called', async () => {
    const s = new MemoryStore();
    const B = 'core/configmaps';
    const calls = { all: 0, ns: 0, otherNs: 0, key: 0, otherKey: 0 };
    const seen: ChangeEvent[] = [];
    s.watch(B, 0, () => calls.all++);
    s.watch(
      B,
      0,
      (ev) => {
        calls.ns++;
        seen.push(ev);
      },
      { prefix: `${B}/n1/` },
    );
    for (let i = 0; i < 1000; i++) s.watch(B, 0, () => calls.otherNs++, { prefix: `${B}/other${i}/` });
    s.watch(B, 0, () => calls.key++, { key: `${B}/n1/a` });
    for (let i = 0; i < 1000; i++) s.watch(B, 0, () => calls.otherKey++, { key: `${B}/n1/x${i}` });
    await s.create(B, `${B}/n1/a`, { metadata: { name: 'a', namespace: 'n1' } });
    await s.create(B, `${B}/n1/b`, { metadata: { name: 'b', namespace: 'n1' } });
    await s.create(B, `${B}/n2/a`, { metadata: { name: 'a', namespace: 'n2' } });
    expect(calls).toEqual({ all: 3, ns: 2, otherNs: 0, key: 1, otherKey: 0 });
    expect(seen.map((e) => e.key)).toEqual([`${B}/n1/a`, `${B}/n1/b`]);
    // a scoped replay from an old version gets the same changes, and cancel stops it
    const replay: string[] = [];
    const cancel = s.watch(B, 0, (ev) => replay.push(ev.key), { prefix: `${B}/n1/` });
    expect(replay).toEqual([`${B}/n1/a`, `${B}/n1/b`]);
    cancel();
    await s.create(B, `${B}/n1/c`, { metadata: { name: 'c', namespace: 'n1' } });
    expect(replay.length).toBe(2);
    // a replay starts strictly after the version given
    const after: number[] = [];
    s.watch(B, 1, (ev) => after.push(ev.rv))();
    expect(after).toEqual([2, 3, 4]);
    const one: number[] = [];
    s.watch(B, 2, (ev) => one.push(ev.rv), { key: `${B}/n2/a` })();
    expect(one).toEqual([3]);
    await s.close();
  });

  it('many watchers of one collection each get the same event', async () => {
    const ts = await startServer();
    try {
      const c = cms(ts);
      const ns = await c.ns('many');
      const ws = await Promise.all(Array.from({ length: 50 }, () => openWatch(ts, `${c.base(ns)}?watch=1`)));
      await c.create(ns, 'a', { v: '1' });
      const docs = await Promise.all(ws.map((w) => w.next().then((e) => JSON.stringify(e))));
      expect(new Set(docs).size).toBe(1);
      for (const w of ws) w.close();
    } finally {
      await ts.close();
    }
  });
});
