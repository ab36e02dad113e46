// Watch fan-out: many watchers of one namespace, writes at a steady rate, delivery latency.
import http from 'node:http';
import { Pool } from 'undici';
import { call, cmPath, configMapBody, ensureNamespace, must } from './http.ts';
import { cpuOf, now, percentile, sleep } from './measure.ts';
import { type ServerProc, serverGroup } from './process.ts';

export interface WatchResult {
  watchers: number;
  writes: number;
  /** Writes whose deliveries count in the latency figures (after the warm-up). */
  measuredWrites: number;
  targetRate: number;
  achievedRate: number;
  /** Delivery latency from just before the write is sent to the event's arrival, ms. */
  p50: number;
  p99: number;
  max: number;
  /** Write acknowledgement latency (fsync included), ms. */
  ackP50: number;
  ackP99: number;
  /** Every watcher got every event, in resourceVersion order, each once. */
  complete: boolean;
  inOrder: boolean;
  problems: string[];
  serverCpu: number;
  clientCpu: number;
}

interface WatchClient {
  req: http.ClientRequest;
  ready: Promise<void>;
  got: number;
  lastRv: number;
  ordered: boolean;
  dupOrMissing: boolean;
  seen: Uint8Array;
  lat: Float64Array;
}

const NAME_KEY = Buffer.from('"name":"w-');
const RV_KEY = Buffer.from('"resourceVersion":"');
const ADDED_HEAD = Buffer.from('{"type":"ADDED"');

/** The decimal number at `pos` in `buf` (-1 when none). */
function intAt(buf: Buffer, pos: number): number {
  let n = -1;
  for (let i = pos; i < buf.length; i++) {
    const c = buf[i]!;
    if (c < 48 || c > 57) break;
    n = (n < 0 ? 0 : n * 10) + (c - 48);
  }
  return n;
}

function openWatcher(
  s: ServerProc,
  path: string,
  writes: number,
  sentAt: Float64Array,
  agent: http.Agent,
): WatchClient {
  const u = new URL(s.url);
  const w: WatchClient = {
    req: undefined as unknown as http.ClientRequest,
    ready: Promise.resolve(),
    got: 0,
    lastRv: 0,
    ordered: true,
    dupOrMissing: false,
    seen: new Uint8Array(writes),
    lat: new Float64Array(writes),
  };
  w.ready = new Promise((resolve, reject) => {
    w.req = http.get(
      { host: u.hostname, port: u.port, path, agent, headers: { authorization: `Bearer ${s.token}` } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch answered ${res.statusCode}`));
          res.resume();
          return;
        }
        resolve();
        // the load generator shares a machine with the server: scan bytes, no strings, no JSON
        let rest: Buffer | undefined;
        res.on('data', (chunk: Buffer) => {
          const t = now();
          const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
          let start = 0;
          let nl: number;
          while ((nl = buf.indexOf(10, start)) >= 0) {
            const line = buf.subarray(start, nl);
            start = nl + 1;
            if (line.length < ADDED_HEAD.length || ADDED_HEAD.compare(line, 0, ADDED_HEAD.length) !== 0)
              continue;
            const ni = line.indexOf(NAME_KEY);
            const ri = line.indexOf(RV_KEY);
            const i = ni < 0 ? -1 : intAt(line, ni + NAME_KEY.length);
            const rv = ri < 0 ? -1 : intAt(line, ri + RV_KEY.length);
            if (i < 0) continue;
            if (rv <= w.lastRv) w.ordered = false;
            w.lastRv = rv;
            if (i >= writes || w.seen[i]) {
              w.dupOrMissing = true;
              continue;
            }
            w.seen[i] = 1;
            w.got++;
            w.lat[i] = t - sentAt[i]!;
          }
          rest = start < buf.length ? Buffer.from(buf.subarray(start)) : undefined;
        });
        res.on('error', () => {});
      },
    );
    w.req.on('error', (e) => reject(e));
  });
  return w;
}

export async function benchWatch(
  orch: ServerProc,
  opts: {
    watchers: number;
    rate: number;
    seconds: number;
    drainMs?: number;
    /** Seconds of writes at the start left out of the latency figures (JIT warm-up); still checked. */
    warmupSeconds?: number;
    /** The watchers watch this server (another server of the same API); default the one written to. */
    watchOn?: ServerProc;
  },
): Promise<WatchResult> {
  const ns = `watch-${Date.now().toString(36)}`;
  await ensureNamespace(orch, ns);
  const start = await must(call(orch, 'GET', `${cmPath(ns)}?limit=1`), 200);
  const fromRv = start.json.metadata.resourceVersion as string;
  const writes = Math.round(opts.rate * opts.seconds);
  const sentAt = new Float64Array(writes);
  const ackLat = new Float64Array(writes);
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const path = `${cmPath(ns)}?watch=1&resourceVersion=${fromRv}&timeoutSeconds=${Math.ceil(opts.seconds + 60)}`;
  const clients = Array.from({ length: opts.watchers }, () =>
    openWatcher(opts.watchOn ?? orch, path, writes, sentAt, agent),
  );
  await Promise.all(clients.map((c) => c.ready));

  // CPU of the server written to and, when another, of the one watched
  const cpuSide = opts.watchOn && opts.watchOn !== orch ? serverGroup([orch, opts.watchOn]) : orch;
  const serverCpu0 = (await cpuOf(cpuSide)).cpu;
  const clientCpu0 = process.cpuUsage();
  const pool = new Pool(orch.url, { connections: 32 });
  const headers = { authorization: `Bearer ${orch.token}`, 'content-type': 'application/json' };
  let sent = 0;
  let acked = 0;
  let failed = 0;
  let inflight = 0;
  const t0 = now();
  const deadline = t0 + opts.seconds * 1000 + 10_000;
  const send = (i: number) => {
    inflight++;
    sentAt[i] = now();
    pool
      .request({ method: 'POST', path: cmPath(ns), headers, body: configMapBody(`w-${i}`, i) })
      .then(async (r) => {
        await r.body.dump();
        if (r.statusCode === 201) {
          ackLat[acked++] = now() - sentAt[i]!;
        } else failed++;
      })
      .catch(() => failed++)
      .finally(() => inflight--);
  };
  // paced writer: keeps the count sent on the line rate*elapsed (bounded in count and time)
  while (sent < writes && now() < deadline) {
    const due = Math.min(writes, Math.floor(((now() - t0) / 1000) * opts.rate) + 1);
    while (sent < due && inflight < 512) send(sent++);
    await sleep(1);
  }
  const sendEnd = now();
  const drainUntil = now() + (opts.drainMs ?? 15_000);
  const delivered = () => clients.every((c) => c.got >= sent);
  while ((inflight > 0 || !delivered()) && now() < drainUntil) await sleep(5);
  const clientCpu = process.cpuUsage(clientCpu0);
  const serverCpu1 = (await cpuOf(cpuSide)).cpu;
  const wall = (now() - t0) * 1000;
  await pool.close();
  for (const c of clients) c.req.destroy();
  agent.destroy();

  const problems: string[] = [];
  if (sent < writes) problems.push(`only ${sent} of ${writes} writes sent in time`);
  if (failed) problems.push(`${failed} writes failed`);
  const incomplete = clients.filter((c) => c.got !== sent).length;
  if (incomplete) problems.push(`${incomplete} watchers missed events`);
  const unordered = clients.filter((c) => !c.ordered).length;
  if (unordered) problems.push(`${unordered} watchers saw events out of order`);
  const dups = clients.filter((c) => c.dupOrMissing).length;
  if (dups) problems.push(`${dups} watchers saw duplicate or unknown events`);

  const skip = Math.min(sent, Math.round((opts.warmupSeconds ?? 0) * opts.rate));
  const all = new Float64Array(clients.length * (sent - skip));
  let k = 0;
  for (const c of clients) for (let i = skip; i < sent; i++) if (c.seen[i]) all[k++] = c.lat[i]!;
  all.subarray(0, k).sort();
  const measured = all.subarray(0, k);
  const acks = ackLat.slice(0, acked).sort();
  return {
    watchers: opts.watchers,
    writes: sent,
    targetRate: opts.rate,
    achievedRate: sent / ((sendEnd - t0) / 1000),
    measuredWrites: sent - skip,
    p50: percentile(measured, 50),
    p99: percentile(measured, 99),
    max: k ? measured[k - 1]! : Number.NaN,
    ackP50: percentile(acks, 50),
    ackP99: percentile(acks, 99),
    complete: incomplete === 0 && failed === 0 && sent === writes,
    inOrder: unordered === 0 && dups === 0,
    problems,
    serverCpu: (serverCpu1 - serverCpu0) / wall,
    clientCpu: (clientCpu.user + clientCpu.system) / wall,
  };
}
