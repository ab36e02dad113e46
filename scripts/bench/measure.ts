// Measurement: a load (autocannon) with the server's CPU and event-loop figures meanwhile, and
// the comparison of the reference with the bare server under the same load.
import autocannon, { type Options, type Result } from 'autocannon';
import { type EtcdUse, etcdUse } from './etcd.ts';
import type { ServerProc } from './process.ts';
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Load {
  rps: number;
  /** CPU the server used meanwhile, in cores (1 = one core busy all the time). */
  serverCpu: number;
  /** Share of the time the server's event loop was busy (1 = never idle). */
  serverElu: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  non2xx: number;
  /** What the server's etcd did meanwhile (servers on etcd). */
  etcd?: EtcdUse;
}

function runCannon(opts: Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

export type Elu = { idle: number; active: number };
/** CPU time and event loop figures, summed over a group's members. */
export async function cpuOf(s: ServerProc): Promise<{ cpu: number; elu: Elu }> {
  const out = { cpu: 0, elu: { idle: 0, active: 0 } };
  for (const m of s.members ?? [s]) {
    const r = await m.rpc<{ cpu: NodeJS.CpuUsage; elu: Elu }>({ cmd: 'cpu' });
    out.cpu += r.cpu.user + r.cpu.system;
    out.elu.idle += r.elu.idle;
    out.elu.active += r.elu.active;
  }
  return out;
}

export async function load(opts: Options, server?: ServerProc): Promise<Load> {
  const c0 = server ? await cpuOf(server) : undefined;
  const e0 = await server?.etcd?.stats();
  const t0 = performance.now();
  const r = await runCannon(opts);
  const wallUs = (performance.now() - t0) * 1000;
  const e1 = await server?.etcd?.stats();
  const c1 = server ? await cpuOf(server) : undefined;
  const serverCpu = c0 && c1 ? (c1.cpu - c0.cpu) / wallUs : Number.NaN;
  const active = c0 && c1 ? c1.elu.active - c0.elu.active : 0;
  const idle = c0 && c1 ? c1.elu.idle - c0.elu.idle : 0;
  return {
    rps: r.requests.average,
    serverCpu,
    serverElu: active + idle > 0 ? active / (active + idle) : Number.NaN,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    etcd: e0 && e1 ? etcdUse(e0, e1) : undefined,
  };
}

export interface Comparison {
  name: string;
  orch: Load;
  bare: Load;
  ratio: number;
  bytes: number;
  connections: number;
}

export interface CompareOpts {
  /** Seconds per measured round. */
  duration: number;
  /** A fixed number of requests per round instead (smoke tests). */
  amount?: number;
  /** Rounds per side, alternating orch/bare; the best round counts. */
  rounds: number;
  connections: number;
  /** Seconds of warm-up per side before the first round. */
  warmup: number;
}

/** Runs the same load against both servers, alternating, and keeps each side's best round. */
export async function compare(
  name: string,
  orch: ServerProc,
  bare: ServerProc,
  o: CompareOpts,
  bytes: number,
  mk: (s: ServerProc, side: 'orch' | 'bare') => Options,
): Promise<Comparison> {
  // each side's best round (the baseline side may be a kube-apiserver instead of the bare server)
  const best = new Map<ServerProc, Load>();
  const side = (s: ServerProc) => (s === orch ? 'orch' : 'bare');
  const span = o.amount ? { amount: o.amount } : { duration: o.duration };
  if (o.warmup > 0) for (const s of [orch, bare]) await load({ ...mk(s, side(s)), duration: o.warmup });
  for (let round = 0; round < o.rounds; round++) {
    for (const s of round % 2 ? [bare, orch] : [orch, bare]) {
      const r = await load({ ...mk(s, side(s)), ...span }, s);
      if (r.errors || r.non2xx)
        throw new Error(
          `${name} on ${s.mode}: ${r.errors} errors, ${r.non2xx} non-2xx answers of ${r.requests}`,
        );
      if (!best.has(s) || r.rps > best.get(s)!.rps) best.set(s, r);
    }
  }
  return {
    name,
    orch: best.get(orch)!,
    bare: best.get(bare)!,
    ratio: best.get(orch)!.rps / best.get(bare)!.rps,
    bytes,
    connections: o.connections,
  };
}

export function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
