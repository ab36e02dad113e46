// Memory: the server's heap and resident size holding many objects.
import { call, cmPath, createMany, ensureNamespace, must } from './http.ts';
import { spawnServer, tempDir } from './process.ts';

export interface MemResult {
  mode: string;
  objects: number;
  /** JSON size of one stored object as the server returns it. */
  objectBytes: number;
  heapMB: number;
  rssMB: number;
  externalMB: number;
}

type Mem = { mem: NodeJS.MemoryUsage; gc: boolean };

export async function benchMemory(mode: 'in-memory' | 'durable', objects = 10_000): Promise<MemResult> {
  const options = mode === 'in-memory' ? { inMemory: true } : { dataDir: tempDir(), fsync: true };
  const s = await spawnServer('orch', options, ['--expose-gc']);
  try {
    await ensureNamespace(s, 'mem');
    // warm the paths once so that code and caches are not counted as objects
    await createMany(s, 'mem', 'warm', 50, 8);
    const m0 = await s.rpc<Mem>({ cmd: 'mem' });
    if (!m0.gc) throw new Error('the server runs without --expose-gc');
    await createMany(s, 'mem', 'm', objects, 32);
    const m1 = await s.rpc<Mem>({ cmd: 'mem' });
    const one = await must(call(s, 'GET', `${cmPath('mem')}/m-1`), 200);
    const mb = (b: number) => b / (1024 * 1024);
    const scale = 10_000 / objects;
    return {
      mode,
      objects,
      objectBytes: one.body.length,
      heapMB: mb(m1.mem.heapUsed - m0.mem.heapUsed) * scale,
      rssMB: mb(m1.mem.rss - m0.mem.rss) * scale,
      externalMB: mb(m1.mem.external + m1.mem.arrayBuffers - m0.mem.external - m0.mem.arrayBuffers) * scale,
    };
  } finally {
    await s.stop();
  }
}
