// The benchmark's parts, each usable alone (run.ts runs them all; the smoke test runs them
// tiny). Servers under test run as child processes (scripts/bench/server.ts); the load
// generator (autocannon, the watch clients) runs in this process, so on a 2-core machine
// the server and the load each get a core. Every figure that has a baseline is measured
// against a bare Node HTTP server answering the same bytes, in the same run.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonRequest, type Options, type Result } from 'autocannon';
import { Agent, Pool, request } from 'undici';
import { type OwnedProcess, startOwned } from '../../lifeline/owned.ts';
import { type EtcdStats, type EtcdUse, etcdUse } from './etcd.ts';
import type { BareRoute } from './server.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER_ENTRY = join(ROOT, 'scripts/bench/server.ts');
const CLI_ENTRY = join(ROOT, 'reference/src/cli.ts');

const tempDirs: string[] = [];
export function tempDir(prefix = 'orch-bench-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(d);
  return d;
}
export function cleanupTempDirs(): void {
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ processes

export interface ServerProc {
  mode: 'orch' | 'bare';
  url: string;
  token: string;
  proc: ChildProcess;
  rpc<T = any>(msg: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
  /** Several servers of one API taken as one (see `serverGroup`): load spreads over them. */
  members?: ServerProc[];
  /** The etcd the server keeps its objects in: each measured load reports what it did meanwhile. */
  etcd?: { stats(): Promise<EtcdStats> };
}

/**
 * Two (or more) servers as one side of a measurement: set-up requests go to the first, the
 * load (autocannon, round-robin over its URLs) to all of them, CPU figures sum over them.
 * They must accept the same token (same adminToken option).
 */
export function serverGroup(members: ServerProc[]): ServerProc {
  const first = members[0]!;
  return {
    ...first,
    members,
    stop: async () => {
      await Promise.all(members.map((m) => m.stop()));
    },
  };
}

/** The URL (or URLs, for a group) the load goes to. */
export const loadUrl = (s: ServerProc): string | string[] =>
  s.members ? s.members.map((m) => m.url) : s.url;

/** Waits for the first stdout line matching `re` (or any line when absent). */
function firstLine(
  proc: ChildProcess,
  re: RegExp,
  timeoutMs: number,
  what: string,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const t = setTimeout(
      () => reject(new Error(`${what} did not start within ${timeoutMs} ms: ${err}`)),
      timeoutMs,
    );
    proc.stderr?.on('data', (c) => (err += c));
    proc.stdout!.on('data', (c) => {
      out += c;
      const m = re.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`${what} exited (${code}) before it was ready: ${err}`));
    });
  });
}

/** SIGTERM to the process (its group), SIGKILL after 10 s; resolves once it has exited. */
async function stopOwned(p: OwnedProcess): Promise<void> {
  await p.stop('SIGTERM', 10_000);
}

export async function spawnServer(
  mode: 'orch' | 'bare',
  options: Record<string, unknown> = {},
  execArgv: string[] = [],
): Promise<ServerProc> {
  // BENCH_PROF=<dir>: CPU profiles of the servers under test, written when they stop
  if (process.env.BENCH_PROF)
    execArgv = [...execArgv, '--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`];
  // the API server alone, as kube-apiserver is measured: no controllers writing meanwhile
  if (mode === 'orch') options = { controllers: [], ...options };
  // ends with this process however it ends, SIGKILL included (lifeline/owned.ts)
  const owned = startOwned(
    process.execPath,
    [...execArgv, '--import', 'tsx', SERVER_ENTRY, JSON.stringify({ mode, options })],
    { cwd: ROOT, ipc: true },
  );
  const proc = owned.child;
  const m = await firstLine(proc, /^(\{.*\})\n/m, 30_000, `${mode} server`);
  const { url, token } = JSON.parse(m[1]!) as { url: string; token: string };
  let seq = 0;
  const pending = new Map<number, (v: any) => void>();
  proc.on('message', (msg: { id?: number }) => {
    const r = msg.id !== undefined ? pending.get(msg.id) : undefined;
    if (r) {
      pending.delete(msg.id!);
      r(msg);
    }
  });
  return {
    mode,
    url,
    token,
    proc,
    rpc: (msg) =>
      new Promise((resolve) => {
        const id = ++seq;
        pending.set(id, resolve);
        proc.send({ ...msg, id });
      }),
    stop: () => stopOwned(owned),
  };
}

// ------------------------------------------------------------------ HTTP helpers

const agent = new Agent({ connections: 64, connect: { rejectUnauthorized: false } });

export interface Reply {
  status: number;
  contentType: string;
  body: Buffer;
  json: any;
}

export async function call(
  s: { url: string; token: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const r = await request(s.url + path, {
    method: method as 'GET',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    dispatcher: agent,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const buf = Buffer.from(await r.body.arrayBuffer());
  let json: any;
  try {
    json = JSON.parse(buf.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, contentType: String(r.headers['content-type'] ?? ''), body: buf, json };
}

async function must(r: Promise<Reply>, ...ok: number[]): Promise<Reply> {
  const x = await r;
  if (!ok.includes(x.status))
    throw new Error(`unexpected ${x.status}: ${x.body.toString('utf8').slice(0, 300)}`);
  return x;
}

export async function ensureNamespace(s: ServerProc, name: string): Promise<void> {
  await must(
    call(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
    201,
    409,
  );
}

export const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** A small, realistic ConfigMap. */
export function configMapBody(name: string, i = 0): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labels":{"app":"bench","shard":"s${i % 8}"}},"data":{"config.yaml":"replicas: 3\\nimage: registry.example/app:1.${i}\\n","mode":"fast"}}`;
}

/** Creates `count` ConfigMaps `<prefix>-<i>` with `concurrency` requests in flight. */
export async function createMany(
  s: ServerProc,
  ns: string,
  prefix: string,
  count: number,
  concurrency = 32,
): Promise<void> {
  const pool = new Pool(s.url, { connections: concurrency });
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const r = await pool.request({
        method: 'POST',
        path: cmPath(ns),
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        body: configMapBody(`${prefix}-${i}`, i),
      });
      const text = await r.body.text();
      if (r.statusCode !== 201)
        throw new Error(`create ${prefix}-${i}: ${r.statusCode} ${text.slice(0, 200)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await pool.close();
  }
}

function bareRoute(key: string, r: Reply, status = r.status): BareRoute {
  return { key, status, headers: { 'Content-Type': r.contentType }, body: r.body.toString('base64') };
}

async function setRoutes(bare: ServerProc, routes: BareRoute[]): Promise<void> {
  for (const b of bare.members ?? [bare]) await b.rpc({ cmd: 'routes', routes });
}

// ------------------------------------------------------------------ load

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

type Elu = { idle: number; active: number };
/** CPU time and event loop figures, summed over a group's members. */
async function cpuOf(s: ServerProc): Promise<{ cpu: number; elu: Elu }> {
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
async function compare(
  name: string,
  orch: ServerProc,
  bare: ServerProc,
  o: CompareOpts,
  bytes: number,
  mk: (s: ServerProc, side: 'orch' | 'bare') => Options,
): Promise<Comparison> {
  const best: Record<'orch' | 'bare', Load | undefined> = { orch: undefined, bare: undefined };
  const span = o.amount ? { amount: o.amount } : { duration: o.duration };
  if (o.warmup > 0) for (const s of [orch, bare]) await load({ ...mk(s, s.mode), duration: o.warmup });
  for (let round = 0; round < o.rounds; round++) {
    for (const s of round % 2 ? [bare, orch] : [orch, bare]) {
      const r = await load({ ...mk(s, s.mode), ...span }, s);
      if (r.errors || r.non2xx)
        throw new Error(
          `${name} on ${s.mode}: ${r.errors} errors, ${r.non2xx} non-2xx answers of ${r.requests}`,
        );
      if (!best[s.mode] || r.rps > best[s.mode]!.rps) best[s.mode] = r;
    }
  }
  return {
    name,
    orch: best.orch!,
    bare: best.bare!,
    ratio: best.orch!.rps / best.bare!.rps,
    bytes,
    connections: o.connections,
  };
}

// ------------------------------------------------------------------ GET

export async function benchGet(
  orch: ServerProc,
  bare: ServerProc,
  o: CompareOpts,
  as: { name: string; token: string; query?: string } = { name: 'GET one object', token: orch.token },
): Promise<Comparison> {
  await ensureNamespace(orch, 'bench');
  await must(call(orch, 'POST', cmPath('bench'), configMapBody('one', 1)), 201, 409);
  const path = `${cmPath('bench')}/one${as.query ? `?${as.query}` : ''}`;
  const captured = await must(call({ url: orch.url, token: as.token }, 'GET', path), 200);
  await setRoutes(bare, [bareRoute(`GET ${path}`, captured)]);
  const fromBare = await must(call(bare, 'GET', path), 200);
  if (!fromBare.body.equals(captured.body)) throw new Error('bare GET bytes differ from the server');
  return compare(as.name, orch, bare, o, captured.body.length, (s) => ({
    url: loadUrl(s),
    connections: o.connections,
    requests: [{ method: 'GET', path, headers: { authorization: `Bearer ${as.token}` } }],
  }));
}

// ------------------------------------------------------------------ CREATE

/**
 * GET as an ordinary user on a server with every authentication method of the fixtures and
 * role-based authorization on: a token-file user granted `get configmaps` by a Role (the
 * admin token, of system:masters, would pass authorization without looking at a rule).
 */
export async function benchGetAuthorized(
  orch: ServerProc,
  bare: ServerProc,
  o: CompareOpts,
  user: { name: string; token: string },
): Promise<Comparison> {
  await ensureNamespace(orch, 'bench');
  const rbac = '/apis/rbac.authorization.orch.io/v1/namespaces/bench';
  await must(
    call(orch, 'POST', `${rbac}/roles`, {
      apiVersion: 'rbac.authorization.orch.io/v1',
      kind: 'Role',
      metadata: { name: 'bench-reader' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
    }),
    201,
    409,
  );
  await must(
    call(orch, 'POST', `${rbac}/rolebindings`, {
      apiVersion: 'rbac.authorization.orch.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'bench-reader' },
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'bench-reader' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: user.name }],
    }),
    201,
    409,
  );
  await must(call(orch, 'POST', cmPath('bench'), configMapBody('one', 1)), 201, 409);
  // the binding takes effect through the authorizer's watch: wait for it
  for (let i = 0; i < 100; i++) {
    if ((await call({ url: orch.url, token: user.token }, 'GET', `${cmPath('bench')}/one`)).status === 200)
      break;
    await sleep(50);
  }
  return benchGet(orch, bare, o, { name: 'GET one object, RBAC and every authenticator', token: user.token });
}

export async function benchCreate(
  orch: ServerProc,
  bare: ServerProc,
  o: CompareOpts,
  name = 'CREATE (fsync)',
): Promise<Comparison> {
  const ns = 'create';
  await ensureNamespace(orch, ns);
  const captured = await must(call(orch, 'POST', cmPath(ns), configMapBody('probe', 0)), 201);
  await setRoutes(bare, [bareRoute(`POST ${cmPath(ns)}`, captured)]);
  let n = 0;
  const run = Date.now().toString(36);
  return compare(name, orch, bare, o, captured.body.length, (s) => ({
    url: loadUrl(s),
    connections: o.connections,
    requests: [
      {
        method: 'POST',
        path: cmPath(ns),
        headers: { authorization: `Bearer ${orch.token}`, 'content-type': 'application/json' },
        setupRequest: (req: AutocannonRequest) => {
          const i = n++;
          return { ...req, body: configMapBody(`c-${run}-${i}`, i) };
        },
      },
    ],
  }));
}

// ------------------------------------------------------------------ LIST in chunks

export interface ListSetup {
  urls: string[];
  items: number;
}

const CONTINUE = /"continue":"([^"]+)"/;
const listUrl = (base: string, limit: number, cont?: string) =>
  cont ? `${base}?limit=${limit}&continue=${encodeURIComponent(cont)}` : `${base}?limit=${limit}`;

/** Follows the continue tokens of a chunked list once; returns the replies in order. */
export async function followList(
  s: ServerProc,
  ns: string,
  limit: number,
): Promise<{ url: string; reply: Reply }[]> {
  const out: { url: string; reply: Reply }[] = [];
  let cont: string | undefined;
  for (let i = 0; i < 10_000; i++) {
    const url = listUrl(cmPath(ns), limit, cont);
    const reply = await must(call(s, 'GET', url), 200);
    out.push({ url, reply });
    cont = reply.json.metadata.continue;
    if (!cont) break;
  }
  return out;
}

export async function benchList(
  orch: ServerProc,
  bare: ServerProc,
  o: CompareOpts,
  total = 500,
  limit = 100,
  name = `LIST ${total} in chunks of ${limit}`,
): Promise<Comparison & { chunks: number }> {
  const ns = 'list';
  await ensureNamespace(orch, ns);
  await createMany(orch, ns, 'l', total);
  const chain = await followList(orch, ns, limit);
  const names = chain.flatMap((c) => c.reply.json.items.map((x: any) => x.metadata.name as string));
  if (names.length !== total || new Set(names).size !== total)
    throw new Error(
      `chunked list returned ${names.length} items (${new Set(names).size} distinct), want ${total}`,
    );
  await setRoutes(
    bare,
    chain.map((c) => bareRoute(`GET ${c.url}`, c.reply)),
  );
  for (const c of chain) {
    const b = await must(call(bare, 'GET', c.url), 200);
    if (!b.body.equals(c.reply.body)) throw new Error('bare LIST bytes differ from the server');
  }
  const chunks = chain.length;
  const bytes = Math.round(chain.reduce((a, c) => a + c.reply.body.length, 0) / chunks);
  const base = cmPath(ns);
  const auth = { authorization: `Bearer ${orch.token}` };
  const requests: AutocannonRequest[] = [];
  for (let i = 0; i < chunks; i++) {
    const r: AutocannonRequest = {
      method: 'GET',
      headers: auth,
      path: listUrl(base, limit),
      onResponse: (_status, body, ctx) => {
        ctx.cont = CONTINUE.exec(body.slice(0, 4096))?.[1];
      },
    };
    if (i > 0) r.setupRequest = (req, ctx) => ({ ...req, path: listUrl(base, limit, ctx.cont as string) });
    requests.push(r);
  }
  const r = await compare(name, orch, bare, o, bytes, (s) => ({
    url: loadUrl(s),
    connections: o.connections,
    requests,
  }));
  return { ...r, chunks };
}

// ------------------------------------------------------------------ watch fan-out

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

function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
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

// ------------------------------------------------------------------ memory

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

// ------------------------------------------------------------------ time to ready

export interface ReadyResult {
  what: string;
  runs: number[];
  median: number;
  max: number;
}

function summarize(what: string, runs: number[]): ReadyResult {
  const s = [...runs].sort((a, b) => a - b);
  return { what, runs, median: s[Math.floor((s.length - 1) / 2)]!, max: s[s.length - 1]! };
}

async function pollReady(url: string, deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    try {
      const r = await request(`${url}/readyz`, {
        dispatcher: agent,
        headersTimeout: 2000,
        bodyTimeout: 2000,
      });
      await r.body.dump();
      if (r.statusCode === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(2);
  }
  throw new Error(`${url}/readyz did not answer 200 in time`);
}

/** Spawns the CLI (`serve`) and times spawn -> first 200 from /readyz. */
export async function benchReadyCli(runs: number, https = false): Promise<ReadyResult> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dataDir = tempDir();
    const args = ['--import', 'tsx', CLI_ENTRY, 'serve', '--port', '0', '--data-dir', dataDir];
    if (!https) args.push('--insecure-http');
    const t0 = performance.now();
    const owned = startOwned(process.execPath, args, { cwd: ROOT });
    try {
      const m = await firstLine(owned.child, /URL:\s+(https?:\/\/\S+)/, 30_000, 'serve');
      await pollReady(m[1]!, t0 + 30_000);
      times.push(performance.now() - t0);
    } finally {
      await stopOwned(owned);
    }
  }
  return summarize(
    `spawn \`cli.ts serve\` (${https ? 'HTTPS, new certificate' : 'plain HTTP'}) to /readyz 200`,
    times,
  );
}

/** build() + listen() in this process (the modules already loaded after the first run). */
export async function benchReadyInProcess(runs: number): Promise<{ importMs: number; ready: ReadyResult }> {
  const t0 = performance.now();
  const { build } = await import('../../reference/src/index.ts');
  const importMs = performance.now() - t0;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dataDir = tempDir();
    const t = performance.now();
    const s = await build({ dataDir, tls: false, host: '127.0.0.1', port: 0 });
    const { url } = await s.listen();
    await pollReady(url, performance.now() + 10_000);
    times.push(performance.now() - t);
    await s.close();
  }
  return { importMs, ready: summarize('build() + listen() in process (durable store)', times) };
}

// ------------------------------------------------------------------ CREATE with validation rules

/** The schema of the benchmark's custom resource; `rules`: its 10 validation rules, or none. */
function ruleBenchSchema(rules: boolean): Record<string, unknown> {
  const v = (rule: string) => (rules ? { 'x-orch-validations': [{ rule }] } : {});
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        ...(rules
          ? {
              'x-orch-validations': [
                { rule: 'self.minReplicas <= self.maxReplicas', message: 'min above max' },
                { rule: "self.image.startsWith('registry.example/')" },
                { rule: "self.image.matches('^[a-z0-9./-]+:[0-9.]+$')" },
                { rule: 'self.ports.all(p, p.port > 0 && p.port < 65536)' },
                { rule: 'self.ports.map(p, p.name).size() == self.ports.size()' },
                { rule: "!has(self.mode) || self.mode in ['fast', 'safe']" },
                { rule: "self.labels.all(k, k.size() <= 63 && !k.startsWith('orch.io/'))" },
                { rule: "self.timeout <= duration('1h')" },
              ],
            }
          : {}),
        properties: {
          minReplicas: { type: 'integer', ...v('self >= 0') },
          maxReplicas: { type: 'integer', ...v('self <= 100') },
          image: { type: 'string', maxLength: 256 },
          mode: { type: 'string', maxLength: 16 },
          timeout: { type: 'string', format: 'duration' },
          labels: {
            type: 'object',
            maxProperties: 16,
            additionalProperties: { type: 'string', maxLength: 63 },
          },
          ports: {
            type: 'array',
            maxItems: 16,
            items: {
              type: 'object',
              properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer' } },
            },
          },
        },
      },
    },
  };
}

async function establishRuleBench(s: ServerProc, group: string, rules: boolean): Promise<string> {
  const name = `widgets.${group}`;
  await must(
    call(s, 'POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.orch.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group,
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: ruleBenchSchema(rules) } },
        ],
      },
    }),
    201,
  );
  const path = `/apis/${group}/v1/namespaces/rules/widgets`;
  for (let i = 0; i < 200; i++) {
    if ((await call(s, 'GET', path)).status === 200) return path;
    await sleep(50);
  }
  throw new Error(`${name} not served`);
}

function widgetBody(group: string, name: string, i: number): string {
  return JSON.stringify({
    apiVersion: `${group}/v1`,
    kind: 'Widget',
    metadata: { name, labels: { app: 'bench' } },
    spec: {
      minReplicas: 1,
      maxReplicas: 3 + (i % 5),
      image: `registry.example/app:1.${i % 100}`,
      mode: 'fast',
      timeout: '30s',
      labels: { team: 'a', tier: 'web' },
      ports: [
        { name: 'http', port: 8080 },
        { name: 'metrics', port: 9090 },
      ],
    },
  });
}

/**
 * Creates per second of a custom resource whose definition has 10 validation rules, against
 * the same definition without rules, on one in-memory server in the same run (alternating
 * rounds, best of each side): the ratio is what evaluating the rules costs a create.
 */
export async function benchCreateRules(s: ServerProc, o: CompareOpts): Promise<Comparison> {
  await ensureNamespace(s, 'rules');
  const run = Date.now().toString(36);
  const withRules = `r${run}.rules.example.com`;
  const without = `n${run}.rules.example.com`;
  const paths = {
    rules: await establishRuleBench(s, withRules, true),
    none: await establishRuleBench(s, without, false),
  };
  const probe = await must(call(s, 'POST', paths.rules, widgetBody(withRules, 'probe', 0)), 201);
  // the rules run: an object that breaks one is refused
  const bad = JSON.parse(widgetBody(withRules, 'bad', 0));
  bad.spec.minReplicas = 50;
  await must(call(s, 'POST', paths.rules, bad), 422);
  let n = 0;
  const mk = (side: 'rules' | 'none'): Options => ({
    url: s.url,
    connections: o.connections,
    requests: [
      {
        method: 'POST',
        path: paths[side],
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        setupRequest: (req: AutocannonRequest) => {
          const i = n++;
          return { ...req, body: widgetBody(side === 'rules' ? withRules : without, `w-${i}`, i) };
        },
      },
    ],
  });
  const best: Record<'rules' | 'none', Load | undefined> = { rules: undefined, none: undefined };
  if (o.warmup > 0)
    for (const side of ['rules', 'none'] as const) await load({ ...mk(side), duration: o.warmup });
  for (let round = 0; round < o.rounds; round++) {
    for (const side of round % 2 ? (['none', 'rules'] as const) : (['rules', 'none'] as const)) {
      const r = await load({ ...mk(side), duration: o.duration }, s);
      if (r.errors || r.non2xx)
        throw new Error(
          `CREATE with rules (${side}): ${r.errors} errors, ${r.non2xx} non-2xx of ${r.requests}`,
        );
      if (!best[side] || r.rps > best[side]!.rps) best[side] = r;
    }
  }
  return {
    name: 'CREATE custom resource, 10 rules vs none (in-memory)',
    orch: best.rules!,
    bare: best.none!,
    ratio: best.rules!.rps / best.none!.rps,
    bytes: probe.body.length,
    connections: o.connections,
  };
}
