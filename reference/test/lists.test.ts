// doc1 "Chunked lists": limit and continue, the snapshot every chunk shares, continue-token
// lifetime (injected clock), remainingItemCount, and the APIListChunking gate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, startServer, type TestServer } from './helpers.ts';
import { cms, names } from './read-support.ts';

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

/** Follows the continue tokens; checks the per-chunk rules on the way. */
async function pages(ts: TestServer, base: string, query: string, limit: number): Promise<Reply[]> {
  const out: Reply[] = [];
  let r = await ts.req('GET', `${base}?${query}${query ? '&' : ''}limit=${limit}`);
  for (;;) {
    expect(r.status, r.text).toBe(200);
    expect(r.json.items.length).toBeLessThanOrEqual(limit);
    out.push(r);
    const c = r.json.metadata.continue;
    if (!c) break;
    if (out.length > 50) throw new Error('too many chunks');
    r = await ts.req(
      'GET',
      `${base}?${query}${query ? '&' : ''}limit=${limit}&continue=${encodeURIComponent(c)}`,
    );
  }
  return out;
}

describe('chunked lists', () => {
  let ts: TestServer;
  let c: ReturnType<typeof cms>;
  let ns: string;
  beforeAll(async () => {
    ts = await startServer();
    c = cms(ts);
    ns = await c.ns('chunk');
    for (const n of NAMES) await c.create(ns, n, { n });
  });
  afterAll(() => ts.close());

  it('limit=n gives at most n items a chunk, all items once, in name order', async () => {
    for (const limit of [1, 2, 3, 7]) {
      const ps = await pages(ts, c.base(ns), '', limit);
      expect(ps.length).toBe(Math.ceil(NAMES.length / limit));
      expect(ps.flatMap(names)).toEqual(NAMES);
      for (const p of ps.slice(0, -1)) expect(p.json.items.length).toBe(limit);
    }
  });

  it('remainingItemCount counts the items after a chunk, and is absent on the last chunk', async () => {
    const ps = await pages(ts, c.base(ns), '', 3);
    expect(ps.map((p) => p.json.metadata.remainingItemCount)).toEqual([4, 1, undefined]);
    const last = ps[ps.length - 1]!;
    expect('remainingItemCount' in last.json.metadata).toBe(false);
    expect(last.json.metadata.continue ?? '').toBe('');
  });

  it('a complete list has neither continue nor remainingItemCount', async () => {
    for (const q of ['', '?limit=0', `?limit=${NAMES.length}`, '?limit=500']) {
      const r = await ts.req('GET', `${c.base(ns)}${q}`);
      expect(r.status).toBe(200);
      expect(names(r)).toEqual(NAMES);
      expect(r.json.metadata.continue ?? '').toBe('');
      expect('remainingItemCount' in r.json.metadata).toBe(false);
    }
  });

  it('with selectors: no remainingItemCount, only matching items, nothing twice', async () => {
    const sel = await c.ns('chunksel');
    for (let i = 0; i < 9; i++) await c.create(sel, `o${i}`, {}, { parity: i % 2 ? 'odd' : 'even' });
    const byLabel = await pages(ts, c.base(sel), 'labelSelector=parity%3Deven', 2);
    expect(byLabel.flatMap(names)).toEqual(['o0', 'o2', 'o4', 'o6', 'o8']);
    const byField = await pages(ts, c.base(sel), 'fieldSelector=metadata.name!%3Do4', 3);
    expect(byField.flatMap(names)).toEqual(['o0', 'o1', 'o2', 'o3', 'o5', 'o6', 'o7', 'o8']);
    for (const p of [...byLabel, ...byField]) expect('remainingItemCount' in p.json.metadata).toBe(false);
    // the last match is the last object: the chunk that returns it is the last
    expect(byLabel[byLabel.length - 1]!.json.metadata.continue ?? '').toBe('');
  });

  it('every chunk has the first chunk’s resourceVersion and its snapshot, whatever is written meanwhile', async () => {
    const snap = await c.ns('snap');
    for (const n of NAMES) await c.create(snap, n, { v: '1' });
    const first = await ts.req('GET', `${c.base(snap)}?limit=2`);
    const rv = first.json.metadata.resourceVersion;
    expect(names(first)).toEqual(['a', 'b']);
    // writes between chunks: change one ahead, delete one ahead, add one, change one behind
    await c.update(snap, 'e', { v: '2' });
    await c.del(snap, 'f');
    await c.create(snap, 'cc', { v: '1' });
    await c.update(snap, 'a', { v: '2' });
    const seen: Reply[] = [first];
    let tok = first.json.metadata.continue;
    while (tok) {
      const r = await ts.req('GET', `${c.base(snap)}?limit=2&continue=${encodeURIComponent(tok)}`);
      expect(r.status).toBe(200);
      seen.push(r);
      tok = r.json.metadata.continue;
      await c.create(snap, `late${seen.length}`);
    }
    expect(seen.map((r) => r.json.metadata.resourceVersion)).toEqual(seen.map(() => rv));
    const items = seen.flatMap((r) => r.json.items);
    expect(items.map((o) => o.metadata.name)).toEqual(NAMES);
    expect(items.every((o) => o.data.v === '1')).toBe(true);
    // and a fresh list sees the writes
    const now = await ts.req('GET', c.base(snap));
    expect(names(now)).toEqual(['a', 'b', 'c', 'cc', 'd', 'e', 'g', 'late2', 'late3', 'late4']);
  });

  it('limit larger than the collection: everything in one chunk', async () => {
    const r = await ts.req('GET', `${c.base(ns)}?limit=1000`);
    expect(names(r)).toEqual(NAMES);
    expect(r.json.metadata.continue ?? '').toBe('');
  });

  it('an empty collection: no items, no continue', async () => {
    const empty = await c.ns('empty');
    const r = await ts.req('GET', `${c.base(empty)}?limit=1`);
    expect(r.status).toBe(200);
    expect(r.json.items).toEqual([]);
    expect(r.json.metadata.continue ?? '').toBe('');
    expect(r.json.kind).toBe('ConfigMapList');
    expect(r.json.apiVersion).toBe('v1');
  });

  it('across all namespaces (/api/v1/configmaps): chunks cover every namespace once', async () => {
    const tag = `all-${Date.now()}`;
    const made: string[] = [];
    for (let k = 0; k < 3; k++) {
      const space = await c.ns('allns');
      for (const m of ['p', 'q']) {
        await c.create(space, m, {}, { tag });
        made.push(`${space}/${m}`);
      }
    }
    const ps = await pages(ts, '/api/v1/configmaps', `labelSelector=tag%3D${tag}`, 2);
    const got = ps.flatMap((p) => p.json.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`));
    expect(got).toEqual([...made].sort());
    // without selectors remainingItemCount is there on a non-last chunk
    const all = await ts.req('GET', '/api/v1/configmaps?limit=1');
    expect(all.json.metadata.remainingItemCount).toBeGreaterThan(0);
  });

  it('a malformed continue token: 400', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    const good = JSON.parse(
      Buffer.from(
        (await ts.req('GET', `${c.base(ns)}?limit=1`)).json.metadata.continue,
        'base64url',
      ).toString(),
    );
    for (const tok of [
      'not a token!',
      b64('not json'),
      b64('[1,2]'),
      b64(JSON.stringify({ ...good, v: 'meta.other.io/v9' })),
      b64(JSON.stringify({ ...good, rv: 0 })),
      b64(JSON.stringify({ ...good, start: '' })),
      b64(JSON.stringify({ ...good, start: '../x' })),
    ]) {
      const r = await ts.req('GET', `${c.base(ns)}?limit=1&continue=${encodeURIComponent(tok)}`);
      expect(r.status, tok).toBe(400);
      expect(r.json.reason).toBe('BadRequest');
    }
  });

  it('limit, continue and a non-zero resourceVersion: 400', async () => {
    const first = await ts.req('GET', `${c.base(ns)}?limit=1`);
    const r = await ts.req(
      'GET',
      `${c.base(ns)}?limit=1&resourceVersion=${first.json.metadata.resourceVersion}&continue=${encodeURIComponent(first.json.metadata.continue)}`,
    );
    expect(r.status).toBe(400);
  });

  it('a negative limit means no limit (Kubernetes pages only for limit > 0)', async () => {
    const r = await ts.req('GET', `${c.base(ns)}?limit=-1`);
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(NAMES);
    expect(r.json.metadata.continue ?? '').toBe('');
  });

  it('a cluster-scoped collection (namespaces) pages the same way', async () => {
    const whole = await ts.req('GET', '/api/v1/namespaces');
    const all = names(whole);
    expect(all.length).toBeGreaterThan(3);
    const ps = await pages(ts, '/api/v1/namespaces', '', 2);
    expect(ps.flatMap(names)).toEqual(all);
    expect(ps[0]!.json.metadata.remainingItemCount).toBe(all.length - 2);
  });

  it('a limit that is not an integer: 400', async () => {
    for (const l of ['x', '1.5', '1e3']) {
      const r = await ts.req('GET', `${c.base(ns)}?limit=${l}`);
      expect(r.status, l).toBe(400);
    }
  });
});

describe('continue token lifetime and history (injected clock)', () => {
  let now = Date.UTC(2030, 0, 1);
  const servers: TestServer[] = [];
  const start = async (o: Parameters<typeof startServer>[0] = {}) => {
    const s = await startServer({ clock: () => now, ...o });
    servers.push(s);
    return s;
  };
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('default lifetime is 5 minutes: valid before, 410 Expired after', async () => {
    const ts = await start();
    const c = cms(ts);
    const ns = await c.ns('ttl');
    for (const n of NAMES) await c.create(ns, n);
    const first = await ts.req('GET', `${c.base(ns)}?limit=2`);
    const tok = encodeURIComponent(first.json.metadata.continue);
    now += 299_000;
    const ok = await ts.req('GET', `${c.base(ns)}?limit=2&continue=${tok}`);
    expect(ok.status).toBe(200);
    expect(names(ok)).toEqual(['c', 'd']);
    now += 2_000; // 301 s after the token was issued
    const gone = await ts.req('GET', `${c.base(ns)}?limit=2&continue=${tok}`);
    expect(gone.status, gone.text).toBe(410);
    expect(gone.json.reason).toBe('Expired');
  });

  it('a configured lifetime; the 410 carries a token that goes on at the latest version (Kubernetes)', async () => {
    const ts = await start({ continueTtlSeconds: 30 });
    const c = cms(ts);
    const ns = await c.ns('ttl');
    for (const n of NAMES) await c.create(ns, n);
    const first = await ts.req('GET', `${c.base(ns)}?limit=3`);
    now += 31_000;
    await c.create(ns, 'zz');
    const gone = await ts.req(
      'GET',
      `${c.base(ns)}?limit=3&continue=${encodeURIComponent(first.json.metadata.continue)}`,
    );
    expect(gone.status).toBe(410);
    expect(gone.json.reason).toBe('Expired');
    const again = gone.json.metadata?.continue;
    expect(typeof again).toBe('string');
    const r = await ts.req('GET', `${c.base(ns)}?limit=100&continue=${encodeURIComponent(again)}`);
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(['d', 'e', 'f', 'g', 'zz']);
  });

  it('a snapshot whose later changes left the history: 410 even inside the token lifetime', async () => {
    const ts = await start({ historySeconds: 60, continueTtlSeconds: 600 });
    const c = cms(ts);
    const ns = await c.ns('hist');
    for (const n of NAMES) await c.create(ns, n);
    const first = await ts.req('GET', `${c.base(ns)}?limit=2`);
    await c.update(ns, 'g', { changed: 'yes' });
    now += 61_000;
    await c.create(ns, 'zz');
    const r = await ts.req(
      'GET',
      `${c.base(ns)}?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`,
    );
    expect(r.status).toBe(410);
    expect(r.json.reason).toBe('Expired');
  });

  it('a snapshot that is still the current state stays valid however old (no change since)', async () => {
    const ts = await start({ historySeconds: 60, continueTtlSeconds: 600 });
    const c = cms(ts);
    const ns = await c.ns('quiet');
    for (const n of NAMES) await c.create(ns, n);
    const first = await ts.req('GET', `${c.base(ns)}?limit=2`);
    now += 120_000;
    const r = await ts.req(
      'GET',
      `${c.base(ns)}?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`,
    );
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(['c', 'd']);
  });
});

describe('APIListChunking gate off', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startServer({ featureGates: { APIListChunking: false } as any });
  });
  afterAll(() => ts.close());

  it('limit is ignored: the complete list, no continue, no remainingItemCount', async () => {
    const c = cms(ts);
    const ns = await c.ns('nochunk');
    for (const n of NAMES) await c.create(ns, n);
    const r = await ts.req('GET', `${c.base(ns)}?limit=2`);
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(NAMES);
    expect(r.json.metadata.continue ?? '').toBe('');
    expect('remainingItemCount' in r.json.metadata).toBe(false);
  });

  it('limit with rv=X is then the no-limit row: Not older than (the latest state)', async () => {
    const c = cms(ts);
    const ns = await c.ns('nochunk');
    const a = await c.create(ns, 'a', { v: '1' });
    await c.update(ns, 'a', { v: '2' });
    const r = await ts.req('GET', `${c.base(ns)}?limit=1&resourceVersion=${a.metadata.resourceVersion}`);
    expect(r.status).toBe(200);
    expect(r.json.items[0].data).toEqual({ v: '2' });
  });
});
