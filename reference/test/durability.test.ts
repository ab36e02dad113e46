// Durability of the embedded store: the server runs as a real child process on a data
// directory, gets killed (SIGKILL) or stopped (SIGTERM), and starts again on the same
// directory. Every acknowledged write must be there with the same resourceVersion, new
// writes must get larger versions, and the history (watch from an old version, Exact
// lists) must survive within the retention window. Plus in-process checks of the log.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ServerOptions } from '../src/config.ts';
import { beforeExposure } from '../src/storage/exposure.ts';
import { MemoryStore } from '../src/storage/memory.ts';
import type { ChangeEvent, KObject } from '../src/storage/types.ts';
import { WriteAheadLog } from '../src/storage/wal.ts';

const fsFault = vi.hoisted(() => ({
  failSync: false,
  failWrite: false,
  held: undefined as (() => void)[] | undefined,
  writevCalls: undefined as number | undefined,
}));
vi.mock('node:fs', async (importOriginal) =>
  (await import('./fs-fault.ts')).withFailingSync(await importOriginal<typeof import('node:fs')>(), fsFault),
);

const FIXTURE = fileURLToPath(new URL('./fixtures/serve-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUNDLE = join(ROOT, 'scripts', 'bundle.mjs');
const dirs: string[] = [];
const children = new Set<ChildProcess>();

/** The log's records: its file up to the zeros it grew into ahead of them (or the whole file). */
function logRecords(path: string): Buffer {
  const buf = readFileSync(path);
  const end = buf.indexOf(0);
  return end < 0 ? buf : buf.subarray(0, end);
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'orch-dur-'));
  dirs.push(d);
  return d;
}

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Child {
  proc: ChildProcess;
  url: string;
  token: string;
  stderr: () => string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  kill(): Promise<void>;
  stop(): Promise<number | null>;
}

/** Starts the server as a child process and waits for its `{url, token}` line. */
async function startChild(opts: Partial<ServerOptions>): Promise<Child> {
  // from the fixture's bundle (scripts/bundle.mjs): a start through tsx costs twice the CPU
  const proc = spawn(process.execPath, [BUNDLE, 'run', relative(ROOT, FIXTURE), JSON.stringify(opts)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  let err = '';
  proc.stderr!.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    // a start takes about 3 CPU seconds through tsx: 20 s was not enough on a busy machine
    const t = setTimeout(() => reject(new Error(`child did not start in time: ${err}`)), 60_000);
    proc.stdout!.on('data', (c) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(t);
        resolve(out.slice(0, nl));
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`child exited (${code}) before listening: ${err}`));
    });
  });
  const { url, token } = JSON.parse(line) as { url: string; token: string };
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await request(url + path, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    const text = await r.body.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: r.statusCode, json };
  };
  return {
    proc,
    url,
    token,
    stderr: () => err,
    call,
    async kill() {
      proc.kill('SIGKILL');
      await exited;
    },
    async stop() {
      proc.kill('SIGTERM');
      return exited;
    },
  };
}

const cm = (name: string, data: Record<string, string> = { k: name }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

const NS = '/api/v1/namespaces';
const CMS = `${NS}/dur/configmaps`;

/** Objects the server acknowledged, by name: the last acknowledged state (undefined: deleted). */
type Acked = Map<string, { rv: string; data: unknown } | undefined>;

async function writeSome(c: Child, acked: Acked, prefix: string, n: number): Promise<number> {
  let maxRv = 0;
  const note = (rv: string) => (maxRv = Math.max(maxRv, Number(rv)));
  // concurrent creates share fdatasync batches
  const created = await Promise.all(
    Array.from({ length: n }, (_, i) => c.call('POST', CMS, cm(`${prefix}-${i}`))),
  );
  for (const r of created) {
    expect(r.status).toBe(201);
    acked.set(r.json.metadata.name, { rv: r.json.metadata.resourceVersion, data: r.json.data });
    note(r.json.metadata.resourceVersion);
  }
  for (let i = 0; i < n; i += 3) {
    const r = await c.call(
      'PUT',
      `${CMS}/${prefix}-${i}`,
      cm(`${prefix}-${i}`, { k: 'updated', i: String(i) }),
    );
    expect(r.status).toBe(200);
    acked.set(`${prefix}-${i}`, { rv: r.json.metadata.resourceVersion, data: r.json.data });
    note(r.json.metadata.resourceVersion);
  }
  for (let i = 1; i < n; i += 4) {
    const r = await c.call('DELETE', `${CMS}/${prefix}-${i}`);
    expect(r.status).toBe(200);
    acked.set(`${prefix}-${i}`, undefined);
  }
  const list = await c.call('GET', CMS);
  note(list.json.metadata.resourceVersion);
  return maxRv;
}

async function checkAll(c: Child, acked: Acked, minRv: number): Promise<void> {
  for (const [name, want] of acked) {
    const r = await c.call('GET', `${CMS}/${name}`);
    if (want === undefined) {
      expect(r.status, name).toBe(404);
    } else {
      expect(r.status, name).toBe(200);
      expect(r.json.metadata.resourceVersion, name).toBe(want.rv);
      expect(r.json.data, name).toEqual(want.data);
    }
  }
  const list = await c.call('GET', CMS);
  expect(Number(list.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(minRv);
  // the test's own objects (the server's controllers keep a root-CA config map there too)
  const listed = list.json.items.map((i: any) => i.metadata.name).filter((n: string) => acked.has(n));
  const live = [...acked].filter(([, v]) => v !== undefined).map(([n]) => n);
  expect(listed.sort()).toEqual(live.sort());
  // a new write gets a larger version than anything handed out before
  const fresh = await c.call('POST', CMS, cm(`fresh-${Date.now()}`));
  expect(fresh.status).toBe(201);
  expect(Number(fresh.json.metadata.resourceVersion)).toBeGreaterThan(minRv);
  await c.call('DELETE', `${CMS}/${fresh.json.metadata.name}`);
}

/** Events of a watch from `rv`, read until `count` events arrived. */
async function watchEvents(c: Child, path: string, rv: string, count: number): Promise<any[]> {
  const r = await request(`${c.url}${path}?watch=1&resourceVersion=${rv}&timeoutSeconds=5`, {
    headers: { authorization: `Bearer ${c.token}` },
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  expect(r.statusCode).toBe(200);
  const events: any[] = [];
  let buf = '';
  for await (const chunk of r.body) {
    buf += chunk.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
    }
    if (events.length >= count) break;
  }
  r.body.destroy();
  return events;
}

describe('durable store across process restarts', () => {
  it('keeps every acknowledged write through kill -9, with the same resourceVersions', async () => {
    const dataDir = tempDir();
    const acked: Acked = new Map();
    let c = await startChild({ dataDir });
    expect(
      (await c.call('POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dur' } })).status,
    ).toBe(201);
    let maxRv = await writeSome(c, acked, 'a', 40);
    // writes still in flight when the process dies: whatever was acknowledged must survive
    const inflight: Promise<void>[] = [];
    let acks = 0;
    for (let i = 0; i < 150; i++) {
      inflight.push(
        c.call('POST', CMS, cm(`burst-${i}`)).then(
          (r) => {
            if (r.status === 201) {
              acks++;
              acked.set(`burst-${i}`, { rv: r.json.metadata.resourceVersion, data: r.json.data });
              maxRv = Math.max(maxRv, Number(r.json.metadata.resourceVersion));
            }
          },
          () => {},
        ),
      );
    }
    const t0 = Date.now();
    while (acks < 30 && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 2));
    await c.kill();
    await Promise.all(inflight);
    expect(acks).toBeGreaterThan(0);

    c = await startChild({ dataDir });
    // unacknowledged burst writes may or may not be there; acknowledged ones must be
    const list = await c.call('GET', CMS);
    const present = new Set(list.json.items.map((o: KObject) => o.metadata.name));
    for (let i = 0; i < 150; i++)
      if (!acked.has(`burst-${i}`) && present.has(`burst-${i}`)) {
        const r = await c.call('GET', `${CMS}/burst-${i}`);
        acked.set(`burst-${i}`, { rv: r.json.metadata.resourceVersion, data: r.json.data });
        maxRv = Math.max(maxRv, Number(r.json.metadata.resourceVersion));
      }
    await checkAll(c, acked, maxRv);
    // and once more, after more writes on the recovered store
    maxRv = Math.max(maxRv, await writeSome(c, acked, 'b', 12));
    await c.kill();
    c = await startChild({ dataDir });
    await checkAll(c, acked, maxRv);
    await c.stop();
  }, 90_000);

  it('keeps objects and history through a clean restart (watch from an old version, Exact list)', async () => {
    const dataDir = tempDir();
    const acked: Acked = new Map();
    let c = await startChild({ dataDir });
    expect(
      (await c.call('POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dur' } })).status,
    ).toBe(201);
    const before = await c.call('GET', CMS);
    const rv0 = before.json.metadata.resourceVersion as string;
    const maxRv = await writeSome(c, acked, 'c', 8);
    const exactAt = (await c.call('GET', CMS)).json;
    await c.call('PUT', `${CMS}/c-0`, cm('c-0', { k: 'after' }));
    acked.set('c-0', {
      rv: (await c.call('GET', `${CMS}/c-0`)).json.metadata.resourceVersion,
      data: { k: 'after' },
    });
    expect(await c.stop()).toBe(0);

    c = await startChild({ dataDir });
    await checkAll(c, acked, maxRv);
    // watch from before any of the writes replays them in order
    // 8 creates, 3 updates, 2 deletes, 1 update (checkAll's own write and delete come after)
    const events = (await watchEvents(c, CMS, rv0, 14)).slice(0, 14);
    expect(events.at(-1).object.metadata.name).toBe('c-0');
    expect(events.slice(0, 8).every((e) => e.type === 'ADDED')).toBe(true);
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
    expect(events.filter((e) => e.type === 'DELETED').map((e) => e.object.metadata.name)).toEqual([
      'c-1',
      'c-5',
    ]);
    // an Exact list at a version from before the restart
    const exact = await c.call(
      'GET',
      `${CMS}?resourceVersion=${exactAt.metadata.resourceVersion}&resourceVersionMatch=Exact`,
    );
    expect(exact.status).toBe(200);
    expect(exact.json.items).toEqual(exactAt.items);
    expect(await c.stop()).toBe(0);
  }, 60_000);

  it('drops a torn last record and keeps going', async () => {
    const dataDir = tempDir();
    const acked: Acked = new Map();
    let c = await startChild({ dataDir });
    expect(
      (await c.call('POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dur' } })).status,
    ).toBe(201);
    let maxRv = await writeSome(c, acked, 'd', 10);
    await c.kill();
    const log = join(dataDir, 'store', 'changes.log');
    const good = logRecords(log);
    // a torn write: the start of a record where the records end (in the space the log grew into)
    const fd = openSync(log, 'r+');
    writeSync(
      fd,
      `{"r":${maxRv + 1},"t":"A","k":"core/configmaps/dur/torn","o":{"apiVersion":"v1","metad`,
      good.length,
    );
    closeSync(fd);

    c = await startChild({ dataDir });
    expect(c.stderr()).toMatch(/torn record/);
    // the torn record is cut off: the log goes on from the good records (the server may have
    // written since, e.g. its own Service's new port)
    const now = readFileSync(log);
    expect(now.subarray(0, good.length).equals(good)).toBe(true);
    expect(now.includes('core/configmaps/dur/torn')).toBe(false);
    expect((await c.call('GET', `${CMS}/torn`)).status).toBe(404);
    await checkAll(c, acked, maxRv);
    maxRv = Math.max(maxRv, await writeSome(c, acked, 'e', 6));
    await c.kill();
    c = await startChild({ dataDir });
    await checkAll(c, acked, maxRv);
    await c.stop();
  }, 60_000);

  it('refuses to start on a damaged record followed by good ones', async () => {
    const dataDir = tempDir();
    const c = await startChild({ dataDir });
    expect(
      (await c.call('POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dur' } })).status,
    ).toBe(201);
    await c.call('POST', CMS, cm('x1'));
    await c.kill();
    const log = join(dataDir, 'store', 'changes.log');
    const lines = readFileSync(log, 'utf8').split('\n');
    lines.splice(1, 0, '{"r":garbage');
    writeFileSync(log, lines.join('\n'));
    await expect(startChild({ dataDir })).rejects.toThrow(/damaged record/);
  }, 30_000);

  it('compacts into a snapshot and loses nothing (objects, versions, history)', async () => {
    const dataDir = tempDir();
    const acked: Acked = new Map();
    let c = await startChild({ dataDir, compactBytes: 4096 });
    expect(
      (await c.call('POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dur' } })).status,
    ).toBe(201);
    const rv0 = (await c.call('GET', CMS)).json.metadata.resourceVersion as string;
    let maxRv = await writeSome(c, acked, 'f', 60);
    const snap = join(dataDir, 'store', 'snapshot.json');
    const log = join(dataDir, 'store', 'changes.log');
    expect(existsSync(snap)).toBe(true);
    expect(logRecords(log).length).toBeLessThan(statSync(snap).size);
    await c.kill();

    c = await startChild({ dataDir, compactBytes: 4096 });
    await checkAll(c, acked, maxRv);
    // the history kept in the snapshot still serves a watch from before the compaction
    const events = await watchEvents(c, CMS, rv0, 60);
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
    expect(events.slice(0, 60).every((e) => e.type === 'ADDED')).toBe(true);
    expect(new Set(events.slice(0, 60).map((e) => e.object.metadata.name)).size).toBe(60);
    maxRv = Math.max(maxRv, await writeSome(c, acked, 'g', 30));
    expect(await c.stop()).toBe(0);
    c = await startChild({ dataDir });
    await checkAll(c, acked, maxRv);
    await c.stop();
  }, 90_000);

  it('in-memory mode loses everything on restart, by design', async () => {
    const c1 = await startChild({ inMemory: true });
    expect(
      (await c1.call('POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dur' } })).status,
    ).toBe(201);
    expect((await c1.call('POST', CMS, cm('m1'))).status).toBe(201);
    await c1.kill();
    const c2 = await startChild({ inMemory: true });
    expect((await c2.call('GET', `${NS}/dur`)).status).toBe(404);
    expect((await c2.call('GET', `${NS}/default`)).status).toBe(200);
    await c2.stop();
  }, 30_000);
});

// ------------------------------------------------------------------ in-process checks

function obj(name: string, extra: Record<string, unknown> = {}): KObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, ...extra };
}
const key = (n: string) => `core/configmaps/ns/${n}`;
const B = 'core/configmaps';

describe('write-ahead log', () => {
  it('replays DELETED records, also as the last record', () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir });
    return (async () => {
      await s.create(B, key('a'), obj('a'));
      await s.create(B, key('b'), obj('b'));
      await s.delete(B, key('a'));
      await s.update(B, key('b'), obj('b', { data: { x: '1' } }));
      await s.delete(B, key('b'));
      const rev = s.revision();
      // reopen without closing: as after a crash
      const s2 = WriteAheadLog.open({ dir });
      expect(s2.revision()).toBe(rev);
      expect(s2.get(key('a'))).toBeUndefined();
      expect(s2.get(key('b'))).toBeUndefined();
      expect(s2.getAt(key('b'), rev - 1)?.data).toEqual({ x: '1' });
      const seen: ChangeEvent[] = [];
      s2.watch(B, 0, (ev) => seen.push(ev))();
      expect(seen.map((e) => `${e.type}:${e.key.split('/').pop()}:${e.rv}`)).toEqual([
        'ADDED:a:1',
        'ADDED:b:2',
        'DELETED:a:3',
        'MODIFIED:b:4',
        'DELETED:b:5',
      ]);
      expect((await s2.create(B, key('c'), obj('c'))).rv).toBe(rev + 1);
      await s2.close();
    })();
  });

  it('compaction while fdatasyncs are in flight keeps every change, the triggering one too', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir, compactBytes: 600 });
    const all: Promise<unknown>[] = [];
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 10; i++)
        all.push(
          s.create(B, key(`o-${round}-${i}`), obj(`o-${round}-${i}`, { data: { round: String(round) } })),
        );
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(all);
    // (a compaction's snapshot is written on the thread pool: the last one may still be on its way)
    await (s as unknown as { persistence: WriteAheadLog }).persistence.compacted();
    expect(existsSync(join(dir, 'snapshot.json'))).toBe(true);
    const rev = s.revision();
    const s2 = WriteAheadLog.open({ dir });
    expect(s2.revision()).toBe(rev);
    expect(s2.list(B, '').length).toBe(200);
    for (const o of s.list(B, '')) expect(s2.get(o.key)).toEqual(o);
    // history from the start survived (snapshot history + log)
    expect(s2.oldestRetained()).toBe(0);
    expect(s2.list(B, '', 10).length).toBe(10);
    await s.close();
    await s2.close();
  });

  it('a snapshot holds what the store held: objects, and the history with each change before and after', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir, compactBytes: 1 << 30 });
    const big = 'x'.repeat(1.5 * (1 << 20)); // past the snapshot writer's 1 MiB chunks
    await s.create(B, key('plain'), obj('plain', { data: { a: '1' } }));
    await s.create(B, key('wide'), obj('wide', { data: { 'ü"\\\n': 'Grüße, 世界 🚀' } }));
    await s.create(B, key('big'), obj('big', { data: { big } }));
    await s.update(B, key('plain'), obj('plain', { data: { a: '2' } }));
    await s.delete(B, key('wide'));
    await s.create(B, 'core/configmaps/ns/odd"key\\', obj('odd'));
    const before: ChangeEvent[] = [];
    s.watch(B, 0, (ev) => before.push(ev))();
    await (s as unknown as { persistence: WriteAheadLog }).persistence.compact();
    expect(existsSync(join(dir, 'snapshot.json'))).toBe(true);
    expect(readFileSync(join(dir, 'changes.log')).length).toBe(0);
    const s2 = WriteAheadLog.open({ dir });
    expect(s2.revision()).toBe(s.revision());
    for (const o of s.list(B, '')) expect(s2.get(o.key)).toEqual(o);
    expect(s2.list(B, '').length).toBe(3);
    const after: ChangeEvent[] = [];
    s2.watch(B, 0, (ev) => after.push(ev))();
    const shape = (e: ChangeEvent) => ({
      rv: e.rv,
      type: e.type,
      key: e.key,
      obj: e.obj,
      prev: e.prev,
      time: e.time,
    });
    expect(after.map(shape)).toEqual(before.map(shape));
    await s.close();
    await s2.close();
  });

  it('close() waits for pending fdatasyncs, then refuses writes', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir });
    const writes = Array.from({ length: 20 }, (_, i) => s.create(B, key(`w${i}`), obj(`w${i}`)));
    const closed = s.close();
    await expect(Promise.all(writes)).resolves.toHaveLength(20);
    await closed;
    await expect(s.create(B, key('late'), obj('late'))).rejects.toThrow(/closed/);
    expect(s.get(key('late'))).toBeUndefined();
    const s2 = WriteAheadLog.open({ dir });
    expect(s2.list(B, '').length).toBe(20);
    await s2.close();
  });

  it('a failed fdatasync fails its writes and every later one (fail-stop)', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir });
    await s.create(B, key('ok'), obj('ok'));
    const errSpy = vi.spyOn(console, 'error').mockImplementation(() => {});
    fsFault.failSync = true;
    try {
      await expect(s.create(B, key('bad'), obj('bad'))).rejects.toThrow(/fdatasync/);
    } finally {
      fsFault.failSync = false;
    }
    await expect(s.create(B, key('after'), obj('after'))).rejects.toThrow(/fdatasync/);
    expect(s.get(key('after'))).toBeUndefined();
    await s.close();
    errSpy.mockRestore();
    const s2 = WriteAheadLog.open({ dir });
    expect(s2.get(key('ok'))).toBeDefined();
    await s2.close();
  });

  it('a turn of many writes goes to the file whole and in order (more buffers than one writev takes)', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir });
    const n = 1500; // three buffers a record: past IOV_MAX (1024) of one system call
    await Promise.all(Array.from({ length: n }, (_, i) => s.create(B, key(`many${i}`), obj(`many${i}`))));
    await s.close();
    const s2 = WriteAheadLog.open({ dir });
    for (let i = 0; i < n; i++) expect(s2.get(key(`many${i}`))?.rv).toBe(i + 1);
    await s2.close();
  });

  it("a turn's records go to the file in one write at its end, or at once when anything leaves the process", async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir });
    const log = join(dir, 'changes.log');
    const lines = () => logRecords(log).toString('utf8').split('\n').filter(Boolean).length;
    const turn = () => new Promise((r) => setImmediate(r));
    fsFault.writevCalls = 0;
    try {
      const all = [1, 2, 3].map((i) => s.create(B, key(`t${i}`), obj(`t${i}`)));
      // visible in memory, held back from the file
      expect(s.get(key('t3'))).toBeDefined();
      expect(lines()).toBe(0);
      await turn();
      expect(lines()).toBe(3);
      expect(fsFault.writevCalls).toBe(1);
      // an answer, a watch event or a webhook's request is about to leave: written at once
      all.push(s.create(B, key('seen'), obj('seen')));
      expect(lines()).toBe(3);
      beforeExposure();
      expect(lines()).toBe(4);
      expect(fsFault.writevCalls).toBe(2);
      // and not again at the turn's end
      await turn();
      expect(fsFault.writevCalls).toBe(2);
      beforeExposure();
      expect(fsFault.writevCalls).toBe(2);
      await Promise.all(all);
    } finally {
      fsFault.writevCalls = undefined;
    }
    await s.close();
    const s2 = WriteAheadLog.open({ dir });
    expect(s2.list(B, '').map((o) => o.obj.metadata.name)).toEqual(['seen', 't1', 't2', 't3']);
    await s2.close();
  });

  it('grows ahead of its records in steps of zeros: batches write into space the file has; a clean close cuts the zeros', async () => {
    const dir = tempDir();
    const log = join(dir, 'changes.log');
    const s = WriteAheadLog.open({ dir });
    await s.create(B, key('first'), obj('first'));
    const grown = statSync(log).size;
    expect(grown).toBe(1 << 20);
    // batches of later turns overwrite zeros: the file's length (metadata an fdatasync would
    // have to commit) does not change
    for (let i = 0; i < 20; i++)
      await Promise.all([1, 2, 3].map((j) => s.create(B, key(`g${i}-${j}`), obj(`g${i}`))));
    expect(statSync(log).size).toBe(grown);
    const records = logRecords(log);
    expect(records.toString('utf8').split('\n').filter(Boolean)).toHaveLength(61);
    expect(
      readFileSync(log)
        .subarray(records.length)
        .every((b) => b === 0),
    ).toBe(true);
    await s.close();
    expect(statSync(log).size).toBe(records.length);
    // a restart after a kill -9 (the file as it was before the close) goes on where the
    // records end, not after the zeros
    const crashed = tempDir();
    const log2 = join(crashed, 'changes.log');
    writeFileSync(log2, Buffer.concat([records, Buffer.alloc(grown - records.length)]));
    const s2 = WriteAheadLog.open({ dir: crashed });
    expect(s2.list(B, '')).toHaveLength(61);
    await s2.create(B, key('after'), obj('after'));
    expect(statSync(log2).size).toBe(grown);
    expect(logRecords(log2).subarray(0, records.length).equals(records)).toBe(true);
    expect(logRecords(log2).toString('utf8').split('\n').filter(Boolean)).toHaveLength(62);
    await s2.close();
    const s3 = WriteAheadLog.open({ dir: crashed });
    expect(s3.list(B, '')).toHaveLength(62);
    await s3.close();
  });

  it('after a crash that left zeros inside unsynced writes, starts with every record before them', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir });
    for (const n of ['a', 'b', 'c']) await s.create(B, key(n), obj(n));
    const synced = logRecords(join(dir, 'changes.log'));
    await s.close();
    const text = (rv: number, n: string) =>
      `{"r":${rv},"t":"A","k":"${key(n)}","ts":1,"o":${JSON.stringify({ ...obj(n), metadata: { ...obj(n).metadata, resourceVersion: String(rv) } })}}\n`;
    const page = Buffer.alloc(4096);
    const later = Buffer.from(text(5, 'later'));
    // the pages of a write that never got its fdatasync reach the disk in any order: a page of
    // zeros before a whole record, or in the middle of one
    const cases = {
      'zeros, then a whole record': Buffer.concat([synced, page, later, page]),
      'a record cut by zeros, then a whole record': Buffer.concat([
        synced,
        Buffer.from(text(4, 'cut')).subarray(0, 30),
        page,
        Buffer.from(text(4, 'cut')).subarray(30),
        later,
        page,
      ]),
    };
    const errSpy = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      for (const [name, file] of Object.entries(cases)) {
        const d = tempDir();
        writeFileSync(join(d, 'changes.log'), file);
        const s2 = WriteAheadLog.open({ dir: d });
        expect(
          s2.list(B, '').map((o) => o.obj.metadata.name),
          name,
        ).toEqual(['a', 'b', 'c']);
        expect(readFileSync(join(d, 'changes.log')).equals(synced), name).toBe(true);
        await s2.close();
      }
      expect(errSpy.mock.calls.filter((c) => /torn record/.test(String(c[0])))).toHaveLength(2);
    } finally {
      errSpy.mockRestore();
    }
  });

  it('compacts without holding the event loop: writes go on meanwhile, and a restart at any step finds every write', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir, compactBytes: 1 << 30 });
    const wal = (s as unknown as { persistence: WriteAheadLog }).persistence;
    for (let i = 0; i < 50; i++) await s.create(B, key(`a${i}`), obj(`a${i}`));
    await wal.compact();
    // records no snapshot holds yet: in the log that moves aside
    for (let i = 50; i < 60; i++) await s.create(B, key(`a${i}`), obj(`a${i}`));
    const done = wal.compact();
    // the log moved aside and a new one took its place; the snapshot is still being written
    expect(existsSync(join(dir, 'changes.old.log'))).toBe(true);
    expect(readFileSync(join(dir, 'changes.log')).length).toBe(0);
    // a crash now: the old log, the new one and the snapshot before (copied as they are)
    const crashed = tempDir();
    for (const f of ['snapshot.json', 'changes.old.log', 'changes.log'])
      writeFileSync(join(crashed, f), readFileSync(join(dir, f)));
    // writes go on while the snapshot is written
    const during = [0, 1, 2].map((i) => s.create(B, key(`b${i}`), obj(`b${i}`)));
    await Promise.all(during);
    await done;
    expect(existsSync(join(dir, 'changes.old.log'))).toBe(false);
    expect(logRecords(join(dir, 'changes.log')).toString('utf8').split('\n').filter(Boolean)).toHaveLength(3);
    const names = (st: typeof s) =>
      st
        .list(B, '')
        .map((o) => o.obj.metadata.name)
        .sort();
    const all = names(s);
    expect(all).toHaveLength(63);
    // after the compaction: every write, those made while it ran too
    const after = WriteAheadLog.open({ dir });
    expect(names(after)).toEqual(all);
    expect(after.revision()).toBe(s.revision());
    await after.close();
    // at the crash, which finishes the compaction as it starts: every write made before it
    const atCrash = WriteAheadLog.open({ dir: crashed });
    expect(names(atCrash)).toEqual(all.filter((n) => !n!.startsWith('b')));
    expect(existsSync(join(crashed, 'changes.old.log'))).toBe(false);
    expect(existsSync(join(crashed, 'snapshot.json'))).toBe(true);
    await atCrash.close();
    await s.close();
  });

  it('a compaction that fails keeps the old log; the next one writes the snapshot at once and loses nothing', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir, compactBytes: 1 << 30 });
    const wal = (s as unknown as { persistence: WriteAheadLog }).persistence;
    for (let i = 0; i < 10; i++) await s.create(B, key(`c${i}`), obj(`c${i}`));
    // the snapshot's temporary file cannot be made
    mkdirSync(join(dir, 'snapshot.json.tmp'));
    const errSpy = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await wal.compact();
      expect(errSpy.mock.calls.some((c) => /compaction failed/.test(String(c[0])))).toBe(true);
    } finally {
      errSpy.mockRestore();
    }
    expect(existsSync(join(dir, 'changes.old.log'))).toBe(true);
    await s.create(B, key('after'), obj('after'));
    rmSync(join(dir, 'snapshot.json.tmp'), { recursive: true });
    await wal.compact();
    expect(existsSync(join(dir, 'changes.old.log'))).toBe(false);
    expect(existsSync(join(dir, 'snapshot.json'))).toBe(true);
    await s.create(B, key('last'), obj('last'));
    await s.close();
    const s2 = WriteAheadLog.open({ dir });
    expect(s2.list(B, '')).toHaveLength(12);
    await s2.close();
  });

  it('a second fdatasync starts beside the one in flight only once 12 writes wait for it', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir });
    const held: (() => void)[] = [];
    fsFault.held = held;
    const turn = () => new Promise((r) => setImmediate(r));
    const write = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => s.create(B, key(`${tag}${i}`), obj(`${tag}${i}`)));
    let all: Promise<unknown>[] = [];
    try {
      all = write(3, 'a');
      await turn();
      expect(held.length).toBe(1);
      // 11 writes wait: not worth a second fdatasync yet
      all.push(...write(5, 'b'));
      await turn();
      all.push(...write(6, 'c'));
      await turn();
      expect(held.length).toBe(1);
      // the 12th starts it
      all.push(...write(1, 'd'));
      await turn();
      expect(held.length).toBe(2);
    } finally {
      fsFault.held = undefined;
      for (const release of held) release();
    }
    expect(await Promise.all(all)).toHaveLength(15);
    await s.close();
  });

  it('a failed write of a batch fails its writes and every later one; what was acknowledged survives', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir });
    await s.create(B, key('ok'), obj('ok'));
    const errSpy = vi.spyOn(console, 'error').mockImplementation(() => {});
    fsFault.failWrite = true;
    let batch: PromiseSettledResult<unknown>[];
    try {
      // three writes of one turn share one batch, and so its failed write
      batch = await Promise.allSettled([1, 2, 3].map((i) => s.create(B, key(`bad${i}`), obj(`bad${i}`))));
    } finally {
      fsFault.failWrite = false;
    }
    expect(batch.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((batch[0] as PromiseRejectedResult).reason)).toMatch(/ENOSPC/);
    expect(s.failure()?.message).toMatch(/write to the change log failed/);
    await expect(s.create(B, key('after'), obj('after'))).rejects.toThrow(/ENOSPC/);
    expect(s.get(key('after'))).toBeUndefined();
    await s.close();
    errSpy.mockRestore();
    const s2 = WriteAheadLog.open({ dir });
    expect(s2.get(key('ok'))).toBeDefined();
    expect(s2.get(key('bad1'))).toBeUndefined();
    await s2.close();
  });

  it('without fsync, writes still reach the file before they are visible', async () => {
    const dir = tempDir();
    const s = WriteAheadLog.open({ dir, sync: false });
    await s.create(B, key('n'), obj('n'));
    const s2 = WriteAheadLog.open({ dir });
    expect(s2.get(key('n'))?.rv).toBe(1);
    await s.close();
    await s2.close();
  });

  it('the in-memory store has no log at all', async () => {
    const m = new MemoryStore();
    await m.create(B, key('x'), obj('x'));
    expect(m.revision()).toBe(1);
    await m.close();
  });
});
