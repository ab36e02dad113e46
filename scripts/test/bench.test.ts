// Smoke test of the benchmark (scripts/bench): every part runs, tiny, and checks what it
// measures is right (same bytes from the bare server, every list item once, every watch
// event to every watcher in order). No timing is asserted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  benchCreate,
  benchCreateRules,
  benchGet,
  benchList,
  benchMemory,
  benchReadyInProcess,
  benchWatch,
  type CompareOpts,
  call,
  cleanupTempDirs,
  cmPath,
  configMapBody,
  type ServerProc,
  serverGroup,
  spawnServer,
  tempDir,
} from '../bench/lib.ts';
import { type EtcdBench, startEtcdBench } from '../bench/etcd.ts';

const tiny: CompareOpts = { duration: 1, amount: 60, rounds: 1, connections: 2, warmup: 0 };
let orch: ServerProc;
let bare: ServerProc;

beforeAll(async () => {
  [orch, bare] = await Promise.all([
    spawnServer('orch', { dataDir: tempDir(), fsync: true }),
    spawnServer('bare'),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([orch?.stop(), bare?.stop()]);
  cleanupTempDirs();
});

describe('benchmark smoke', () => {
  it('GET, LIST and CREATE run against both servers with the same bytes', async () => {
    // each autocannon run lasts about a second whatever its size: run the three at once
    const [get, list, create] = await Promise.all([
      benchGet(orch, bare, tiny),
      benchList(orch, bare, tiny, 50, 10),
      benchCreate(orch, bare, tiny),
    ]);
    expect(get.orch.requests).toBeGreaterThan(0);
    expect(get.bare.requests).toBeGreaterThan(0);
    expect(get.ratio).toBeGreaterThan(0);
    expect(list.chunks).toBe(5);
    expect(list.orch.requests).toBeGreaterThan(0);
    expect(create.orch.requests).toBeGreaterThan(0);
    expect(create.orch.non2xx + create.orch.errors).toBe(0);
  }, 30_000);

  it('the floor of a durable create answers each create with the object stamped, once it is in its log', async () => {
    const dir = tempDir();
    const floor = await spawnServer('floor', { dataDir: dir });
    try {
      const c = await benchCreate(floor, bare, tiny, 'CREATE floor');
      expect(c.orch.requests).toBeGreaterThan(0);
      expect(c.orch.non2xx + c.orch.errors).toBe(0);
      const r = await call(floor, 'POST', cmPath('create'), JSON.parse(configMapBody('one')));
      expect(r.status).toBe(201);
      const o = JSON.parse(r.body.toString('utf8'));
      expect(o.metadata).toMatchObject({ name: 'one', namespace: 'create' });
      expect(o.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(o.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      // every answered create is in the log: the namespace, the probe, the load and this one
      // (the records, then the zeros the log grew into ahead of them)
      const lines = readFileSync(join(dir, 'floor.log'), 'utf8').replace(/\0+$/, '').trim().split('\n');
      expect(lines.length).toBeGreaterThanOrEqual(c.orch.requests + 3);
      expect(JSON.parse(lines.at(-1)!).o).toEqual(o);
    } finally {
      await floor.stop();
    }
  }, 30_000);

  it('CREATE with validation rules runs both definitions, every create accepted (the rules refuse a bad object)', async () => {
    const s = await spawnServer('orch', { inMemory: true });
    try {
      const c = await benchCreateRules(s, tiny);
      expect(c.orch.requests).toBeGreaterThan(0);
      expect(c.bare.requests).toBeGreaterThan(0);
      expect(c.orch.non2xx + c.orch.errors + c.bare.non2xx + c.bare.errors).toBe(0);
    } finally {
      await s.stop();
    }
  }, 30_000);

  it('watch fan-out delivers every event to every watcher, in order', async () => {
    const w = await benchWatch(orch, { watchers: 5, rate: 100, seconds: 0.5 });
    expect(w.problems).toEqual([]);
    expect(w.writes).toBe(50);
    expect(w.complete).toBe(true);
    expect(w.inOrder).toBe(true);
    expect(Number.isFinite(w.p99)).toBe(true);
  }, 30_000);

  it('memory and time-to-ready measurements work', async () => {
    const [m, ready] = await Promise.all([benchMemory('in-memory', 200), benchReadyInProcess(1)]);
    expect(Number.isFinite(m.heapMB)).toBe(true);
    expect(ready.ready.runs).toHaveLength(1);
  }, 30_000);
});

/** The server's count of requests answered (the sum of its apiserver_request_total series). */
async function requestsServed(s: ServerProc): Promise<number> {
  const r = await call(s, 'GET', '/metrics');
  expect(r.status).toBe(200);
  let n = 0;
  for (const line of r.body.toString('utf8').split('\n'))
    if (line.startsWith('apiserver_request_total{')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  return n;
}

describe('benchmark smoke on etcd', () => {
  // one etcd child, one server on it, two more on another key prefix (one API), bare servers
  let e: EtcdBench;
  let one: ServerProc;
  let two: ServerProc;
  let bareOne: ServerProc;
  let bareTwo: ServerProc;

  beforeAll(async () => {
    e = await startEtcdBench();
    const adminToken = `smoke-${process.pid}`;
    const onEtcd = async (prefix: string): Promise<ServerProc> => ({
      ...(await spawnServer('orch', { etcdServers: [e.etcd.url], etcdPrefix: prefix, adminToken })),
      etcd: e,
    });
    const [s1, a, b, x, y, z] = await Promise.all([
      onEtcd('/smoke-1'),
      onEtcd('/smoke-2'),
      onEtcd('/smoke-2'),
      spawnServer('bare'),
      spawnServer('bare'),
      spawnServer('bare'),
    ]);
    one = s1;
    two = { ...serverGroup([a, b]), etcd: e };
    bareOne = x;
    bareTwo = serverGroup([y, z]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop(), bareOne?.stop(), bareTwo?.stop()]);
    await e?.stop();
  });

  it('GET (watch cache and consistent), LIST and CREATE run on a server on etcd; etcd use is measured', async () => {
    const get = await benchGet(one, bareOne, tiny, {
      name: 'any',
      token: one.token,
      query: 'resourceVersion=0',
    });
    const [consistent, list, create] = await Promise.all([
      benchGet(one, bareOne, tiny, { name: 'consistent', token: one.token }),
      benchList(one, bareOne, tiny, 50, 10),
      benchCreate(one, bareOne, tiny),
    ]);
    for (const c of [get, consistent, list, create]) {
      expect(c.orch.requests).toBeGreaterThan(0);
      expect(c.orch.non2xx + c.orch.errors + c.bare.non2xx + c.bare.errors).toBe(0);
      expect(c.orch.etcd).toBeDefined();
      expect(c.bare.etcd).toBeUndefined();
    }
    expect(list.chunks).toBe(5);
    // every create is committed in etcd: its WAL was synced at least once while they ran
    expect(create.orch.etcd!.walFsyncs).toBeGreaterThan(0);
    expect(Number.isFinite(create.orch.etcd!.cores)).toBe(true);
  }, 60_000);

  it('two servers on one etcd: GET and CREATE spread over both, the watch written on one delivers on the other', async () => {
    const [a, b] = two.members!;
    const before = await Promise.all([a!, b!].map(requestsServed));
    const [get, create] = await Promise.all([
      benchGet(two, bareTwo, tiny, { name: 'any', token: two.token, query: 'resourceVersion=0' }),
      benchCreate(two, bareTwo, tiny),
    ]);
    for (const c of [get, create]) {
      expect(c.orch.requests).toBeGreaterThan(0);
      expect(c.orch.non2xx + c.orch.errors + c.bare.non2xx + c.bare.errors).toBe(0);
    }
    // both servers took load: each answered at least a third of the 2 x 60 requests of the load
    const after = await Promise.all([a!, b!].map(requestsServed));
    expect(after[0]! - before[0]!).toBeGreaterThanOrEqual(40);
    expect(after[1]! - before[1]!).toBeGreaterThanOrEqual(40);
    const w = await benchWatch(a!, { watchers: 5, rate: 100, seconds: 0.5, watchOn: b! });
    expect(w.problems).toEqual([]);
    expect(w.writes).toBe(50);
    expect(w.complete && w.inOrder).toBe(true);
  }, 60_000);
});
