// Smoke test of the benchmark (scripts/bench): every part runs, tiny, and checks what it
// measures is right (same bytes from the bare server, every list item once, every watch
// event to every watcher in order). No timing is asserted.
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
  cleanupTempDirs,
  type ServerProc,
  spawnServer,
  tempDir,
} from '../bench/lib.ts';

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
