// `npm run bench`: the reference server's speed, each figure in ONE run and, where there is
// a baseline, as a ratio against a bare Node HTTP server answering the same bytes.
//
//   tsx scripts/bench/run.ts [--quick] [--only get,get-auth,create,create-rules,create-webhooks,list,watch,
//                             etcd-get,etcd-create,etcd-list,etcd-watch,etcd2-get,etcd2-create,etcd2-watch,memory,ready,kube]
//                             [--kubernetes-assets DIR] [--no-write]
//
// The etcd rows: one etcd child (Debian's etcd-server), reference servers on it, the same
// loads as the write-ahead log rows; `etcd2-*`: two servers on one etcd at once. The `kube`
// rows: a real kube-apiserver (../shared/kubernetes-1.28/bin, or --kubernetes-assets) on an
// etcd of its own, beside the reference, both over HTTPS (kube.ts, versus-kube.ts).
//
// Prints a table and writes scripts/bench/RESULTS.md (unless --no-write or --only).
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startAuthCallbacks } from '../../harness/src/auth/callbacks.ts';
import { makeAuthFixtures, serverFlags } from '../../harness/src/auth/fixtures.ts';
import { parseServeArgs } from '../../reference/src/cli.ts';
import { startEtcdBench } from './etcd.ts';
import { startKubeApiserver } from './kube.ts';
import {
  benchCreate,
  benchCreateRules,
  benchGet,
  benchGetAuthorized,
  benchList,
  benchMemory,
  benchReadyCli,
  benchReadyInProcess,
  benchWatch,
  type CompareOpts,
  type Comparison,
  cleanupTempDirs,
  type Load,
  type MemResult,
  type ReadyResult,
  ROOT,
  type ServerProc,
  serverGroup,
  spawnServer,
  tempDir,
  type WatchResult,
} from './lib.ts';
import { benchVersusKube } from './versus-kube.ts';
import { benchCreateWebhooks, type WebhookComparison } from './webhooks.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    'no-write': { type: 'boolean' },
    'kubernetes-assets': { type: 'string' },
  },
});
const quick = values.quick === true;
const only = values.only ? new Set(values.only.split(',').map((s) => s.trim())) : undefined;
const want = (k: string) => !only || only.has(k);

const TARGETS = {
  get: 0.65,
  getAuth: 0.6,
  // durable CREATE (fdatasync before the answer) at a third of the bare server
  create: 0.33,
  createRules: 0.7,
  // median of 10 process starts, with the default flags and with every authenticator's
  readyMs: 500,
  readyAuthMs: 800,
  watchP99: 50,
  // GET on etcd from the watch cache, against the bare server
  etcdGet: 0.5,
  // twice the creates/s of a kube-apiserver 1.28 on etcd 3.4 on this machine class (970/s)
  etcdCreatePerSec: 2 * 970,
  // durable CREATE over HTTPS at three times a kube-apiserver 1.28 on etcd 3.4, in the same run
  kubeCreate: 3,
};
const ETCD_KEYS = [
  'etcd-get',
  'etcd-create',
  'etcd-list',
  'etcd-watch',
  'etcd2-get',
  'etcd2-create',
  'etcd2-watch',
];
const cmp: CompareOpts = quick
  ? { duration: 2, rounds: 1, connections: 16, warmup: 1 }
  : { duration: 5, rounds: 2, connections: 16, warmup: 2 };
const createCmp: CompareOpts = { ...cmp, connections: 32 };
// 1 s of writes first (warm-up: JIT, sockets), then 5 s measured
const watchOpts = { watchers: 100, rate: 1000, seconds: quick ? 2 : 6, warmupSeconds: quick ? 0.5 : 1 };

const log = (s: string) => process.stderr.write(`${s}\n`);
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : '-');
const int = (n: number) => Math.round(n).toLocaleString('en-US');

const started = new Date();
const loadBefore = os.loadavg()[0]!;
log(`load average (1 min) at start: ${loadBefore.toFixed(2)}`);
const results: {
  ready?: {
    cli: ReadyResult;
    cliAuth?: ReadyResult;
    cliTls?: ReadyResult;
    cliEnv?: ReadyResult;
    importMs: number;
    inProc: ReadyResult;
  };
  get?: Comparison;
  getAuth?: Comparison;
  create?: Comparison;
  /** The floor of a durable create (floor.ts) against the bare server: the most the create row can reach. */
  createFloor?: Comparison;
  createRules?: Comparison;
  createWebhooks?: WebhookComparison;
  list?: Comparison & { chunks: number };
  watch?: WatchResult;
  memory?: MemResult[];
  etcd?: {
    version: string;
    fsType: string;
    get?: Comparison;
    getConsistent?: Comparison;
    create?: Comparison;
    list?: Comparison & { chunks: number };
    watch?: WatchResult;
    get2?: Comparison;
    create2?: Comparison;
    watch2?: WatchResult;
  };
  /** The reference and a real kube-apiserver side by side, both over HTTPS. */
  kube?: { version: string; get: Comparison; create: Comparison };
} = {};

async function main(): Promise<void> {
  if (want('ready')) {
    log('time to ready ...');
    const runs = quick ? 2 : 10;
    const cli = await benchReadyCli(runs);
    // every authenticator on, over HTTPS as client certificates need (token file, service-account keys, the
    // authenticating proxy, OIDC, the token webhook): the flags of a set of fixtures, whose
    // issuer and webhook are served from here
    const fixtures = await makeAuthFixtures(tempDir('orch-bench-fixtures-'));
    const callbacks = await startAuthCallbacks(fixtures);
    let cliAuth: ReadyResult;
    try {
      cliAuth = await benchReadyCli(runs, true, {
        args: serverFlags(fixtures),
        what: ' with every authenticator',
      });
    } finally {
      await callbacks.close();
    }
    const cliTls = quick ? undefined : await benchReadyCli(2, true);
    // where this machine sets NODE_EXTRA_CA_CERTS, what the server's start pays for it
    const cliEnv =
      quick || !process.env.NODE_EXTRA_CA_CERTS
        ? undefined
        : await benchReadyCli(4, false, {
            args: [],
            what: ` with NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS}`,
            envAsIs: true,
          });
    const ip = await benchReadyInProcess(runs);
    results.ready = { cli, cliAuth, cliTls, cliEnv, importMs: ip.importMs, inProc: ip.ready };
  }
  if (
    want('get') ||
    want('get-auth') ||
    want('create') ||
    want('create-rules') ||
    want('create-webhooks') ||
    want('list') ||
    want('watch')
  ) {
    const bare = await spawnServer('bare');
    const orch = await spawnServer('orch', { dataDir: tempDir(), fsync: true });
    try {
      if (want('get')) {
        log('GET ...');
        results.get = await benchGet(orch, bare, cmp);
      }
      if (want('list')) {
        log('LIST ...');
        results.list = await benchList(orch, bare, cmp);
      }
      if (want('create')) {
        log('CREATE ...');
        results.create = await benchCreate(orch, bare, createCmp);
        log('CREATE floor ...');
        const floor = await spawnServer('floor', { dataDir: tempDir() });
        try {
          results.createFloor = await benchCreate(
            floor,
            bare,
            createCmp,
            'CREATE floor: parse, stamp, log, fdatasync',
          );
        } finally {
          await floor.stop();
        }
      }
    } finally {
      await orch.stop();
      await bare.stop();
    }
    if (want('get-auth')) {
      log('GET with RBAC and every authenticator ...');
      // a server started with the flags of a set of authentication fixtures, the issuer and
      // the token webhook they name served from here
      const fixtures = await makeAuthFixtures(tempDir('orch-bench-fixtures-'));
      const callbacks = await startAuthCallbacks(fixtures);
      const options = parseServeArgs(serverFlags(fixtures))!.options;
      const bare2 = await spawnServer('bare');
      const auth = await spawnServer('orch', {
        ...options,
        tls: false,
        port: 0,
        dataDir: tempDir(),
        fsync: true,
      });
      try {
        const alice = fixtures.tokens[0]!;
        results.getAuth = await benchGetAuthorized(auth, bare2, cmp, {
          name: alice.user,
          token: alice.token,
        });
      } finally {
        await auth.stop();
        await bare2.stop();
        await callbacks.close();
      }
    }
    if (want('create-rules')) {
      log('CREATE of a custom resource with validation rules ...');
      // in memory: no fsync, so that the rules' share of a create shows
      const s = await spawnServer('orch', { inMemory: true });
      try {
        results.createRules = await benchCreateRules(s, createCmp);
      } finally {
        await s.stop();
      }
    }
    if (want('create-webhooks')) {
      log('CREATE through admission webhooks ...');
      // in memory: no fsync, so that the webhooks' share of a create shows
      const s = await spawnServer('orch', { inMemory: true });
      try {
        results.createWebhooks = await benchCreateWebhooks(s, createCmp);
      } finally {
        await s.stop();
      }
    }
    if (want('watch')) {
      // a fresh server: the creates above do not weigh on it
      log('watch fan-out ...');
      const w = await spawnServer('orch', { dataDir: tempDir(), fsync: true });
      try {
        results.watch = await benchWatch(w, watchOpts);
      } finally {
        await w.stop();
      }
    }
  }
  if (ETCD_KEYS.some(want)) await etcdRows();
  if (want('kube')) {
    log('kube-apiserver side by side ...');
    const kube = await startKubeApiserver(values['kubernetes-assets']);
    const orch = await spawnServer('orch', { dataDir: tempDir(), fsync: true, tls: true });
    try {
      results.kube = { version: kube.version, ...(await benchVersusKube(orch, kube, cmp, createCmp)) };
    } finally {
      await orch.stop();
      await kube.stop();
    }
  }
  if (want('memory')) {
    log('memory ...');
    const n = quick ? 2000 : 10_000;
    results.memory = [await benchMemory('in-memory', n), await benchMemory('durable', n)];
  }
}

/** The etcd rows: one etcd child, reference servers on it (each set on its own key prefix). */
async function etcdRows(): Promise<void> {
  log('etcd ...');
  const e = await startEtcdBench();
  const r: NonNullable<typeof results.etcd> = { version: e.version, fsType: e.fsType };
  results.etcd = r;
  // servers of one API accept the same token
  const adminToken = `bench-${process.pid}-${Date.now().toString(36)}`;
  let prefixes = 0;
  const onEtcd = async (prefix = `/bench-${++prefixes}`): Promise<ServerProc> => {
    const s = await spawnServer('orch', { etcdServers: [e.etcd.url], etcdPrefix: prefix, adminToken });
    return { ...s, etcd: e };
  };
  const pairOnEtcd = async (): Promise<ServerProc> => {
    const prefix = `/bench-${++prefixes}`;
    const g = serverGroup(await Promise.all([onEtcd(prefix), onEtcd(prefix)]));
    return { ...g, etcd: e };
  };
  const pairOfBare = async () => serverGroup(await Promise.all([spawnServer('bare'), spawnServer('bare')]));
  try {
    if (want('etcd-get') || want('etcd-create') || want('etcd-list')) {
      const [s, bare] = await Promise.all([onEtcd(), spawnServer('bare')]);
      try {
        if (want('etcd-get')) {
          log('GET on etcd ...');
          r.get = await benchGet(s, bare, cmp, {
            name: 'etcd: GET one object, watch cache (resourceVersion=0)',
            token: s.token,
            query: 'resourceVersion=0',
          });
          r.getConsistent = await benchGet(s, bare, cmp, {
            name: 'etcd: GET one object, consistent',
            token: s.token,
          });
        }
        if (want('etcd-list')) {
          log('LIST on etcd ...');
          r.list = await benchList(s, bare, cmp, 500, 100, 'etcd: LIST 500 in chunks of 100, consistent');
        }
        if (want('etcd-create')) {
          log('CREATE on etcd ...');
          r.create = await benchCreate(s, bare, createCmp, 'etcd: CREATE');
        }
      } finally {
        await Promise.all([s.stop(), bare.stop()]);
      }
    }
    if (want('etcd-watch')) {
      log('watch fan-out on etcd ...');
      const w = await onEtcd();
      try {
        r.watch = await benchWatch(w, watchOpts);
      } finally {
        await w.stop();
      }
    }
    if (want('etcd2-get') || want('etcd2-create')) {
      const [two, bare2] = await Promise.all([pairOnEtcd(), pairOfBare()]);
      try {
        if (want('etcd2-get')) {
          log('GET on two servers over one etcd ...');
          r.get2 = await benchGet(two, bare2, cmp, {
            name: 'etcd, 2 servers: GET one object, watch cache (resourceVersion=0)',
            token: two.token,
            query: 'resourceVersion=0',
          });
        }
        if (want('etcd2-create')) {
          log('CREATE on two servers over one etcd ...');
          r.create2 = await benchCreate(two, bare2, createCmp, 'etcd, 2 servers: CREATE');
        }
      } finally {
        await Promise.all([two.stop(), bare2.stop()]);
      }
    }
    if (want('etcd2-watch')) {
      log('watch fan-out across two servers over one etcd ...');
      const two = await pairOnEtcd();
      try {
        const [a, b] = two.members!;
        r.watch2 = await benchWatch(a!, { ...watchOpts, watchOn: b! });
      } finally {
        await two.stop();
      }
    }
  } finally {
    await e.stop();
  }
}

function comparisonRow(c: Comparison | undefined, target?: number): string[] | undefined {
  if (!c) return undefined;
  return [
    c.name,
    `${int(c.orch.rps)} req/s (p99 ${c.orch.p99} ms, loop ${pct(c.orch.serverElu)})`,
    `${int(c.bare.rps)} req/s (p99 ${c.bare.p99} ms, loop ${pct(c.bare.serverElu)})`,
    f2(c.ratio),
    target === undefined ? '' : `>= ${f2(target)}`,
    target === undefined ? '' : c.ratio >= target ? 'ok' : 'MISSED',
  ];
}

/** A row of the reference beside kube-apiserver: requests per second, p99 and the CPU each used. */
function kubeRow(c: Comparison, version: string, target?: number): string[] {
  const side = (l: Comparison['orch']) =>
    `${int(l.rps)} req/s (p99 ${l.p99} ms, CPU ${f2(l.serverCpu)} cores)`;
  return [
    `${c.name}: reference / kube-apiserver ${version.replace(/^Kubernetes /, '')}`,
    side(c.orch),
    side(c.bare),
    f2(c.ratio),
    target === undefined ? '' : `>= ${f2(target)}`,
    target === undefined ? '' : c.ratio >= target ? 'ok' : 'MISSED',
  ];
}

function table(): { rows: string[][]; notes: string[] } {
  const rows: string[][] = [];
  const notes: string[] = [];
  const add = (r?: string[]) => r && rows.push(r);
  const k = results.kube;
  if (k) {
    rows.push(kubeRow(k.get, k.version));
    rows.push(kubeRow(k.create, k.version, TARGETS.kubeCreate));
    notes.push(
      `kube-apiserver rows: the third column is a real kube-apiserver (${k.version}, from --kubernetes-assets or ../shared/kubernetes-1.28/bin) on an etcd of its own (fsync as etcd does by default), alone (no controller manager), with a token of system:masters; the reference beside it on its write-ahead log with fdatasync before every answer; both over HTTPS with the same requests (GET ${k.get.connections} connections, CREATE ${k.create.connections}), alternating rounds. CPU is each server's own (kube-apiserver's from /proc; etcd's not counted).`,
    );
  }
  add(comparisonRow(results.get, TARGETS.get));
  add(comparisonRow(results.getAuth, TARGETS.getAuth));
  add(comparisonRow(results.create, TARGETS.create));
  add(comparisonRow(results.createFloor));
  add(comparisonRow(results.createRules, TARGETS.createRules));
  add(comparisonRow(results.createWebhooks));
  add(comparisonRow(results.list));
  if (results.get)
    notes.push(`GET: ${results.get.bytes} bytes per answer, ${results.get.connections} connections.`);
  if (results.getAuth)
    notes.push(
      'GET with RBAC and every authenticator: the server started with the flags of `orch-conformance fixtures` (client certificates, token file, service-account keys, bootstrap tokens, authenticating proxy, OIDC, token webhook) and --authorization-mode RBAC; the request is a token-file user granted get on configmaps by a Role.',
    );
  if (results.create)
    notes.push(
      `CREATE: durable store, fdatasync before every answer (group commit), ${results.create.connections} connections; bare answers the ${results.create.bytes}-byte created object.`,
    );
  if (results.createFloor)
    notes.push(
      `CREATE floor: the least a durable create does, in a Node server of its own (scripts/bench/floor.ts): read and parse the body, stamp uid, time and version, serialise it once, append it to a log (a turn's records in one write(2), into space grown ahead in 1 MiB of zeros), answer once an fdatasync shared by the turn's writes returns; no authentication, admission, validation, managedFields or watchers. Its ratio is the most the CREATE row can reach on this machine; the CREATE row over this ratio is the share of the floor the reference keeps with the API's semantics.`,
    );
  if (results.createRules)
    notes.push(
      `CREATE custom resource with rules: one in-memory server, ${results.createRules.connections} connections; the "orch" column creates objects of a definition with 10 validation rules (comparisons, startsWith, a regex, all() over a list and a map, map(), has(), a duration), the "bare Node" column the same objects of the same definition without rules, alternating rounds in the same run.`,
    );
  if (results.createWebhooks)
    notes.push(
      `CREATE through webhooks: one in-memory server, ${results.createWebhooks.connections} connections; the "orch" column creates ConfigMaps in a namespace that one no-op mutating and one no-op validating webhook select (HTTPS, answered from the benchmark process), the "bare Node" column in a namespace they do not select, alternating rounds in the same run. ${int(results.createWebhooks.calls)} webhook calls over ${results.createWebhooks.tlsConnections} TLS connections (kept alive).`,
    );
  if (results.list)
    notes.push(
      `LIST: ${results.list.chunks} chunks per pass (limit=100, following continue tokens), ${results.list.bytes} bytes per chunk on average; req/s counts chunks.`,
    );
  const w = results.watch;
  if (w) {
    rows.push(watchRow(`watch fan-out: ${w.watchers} watchers, 1 writer`, w, TARGETS.watchP99));
    notes.push(`watch: durable store (fsync on); ${watchNote(w)}`);
  }
  etcdTable(rows, notes);
  for (const m of results.memory ?? [])
    rows.push([
      `memory per 10,000 ConfigMaps (${m.mode})`,
      `heap +${f1(m.heapMB)} MB, RSS +${f1(m.rssMB)} MB, buffers +${f1(m.externalMB)} MB`,
      '',
      '',
      '',
      '',
    ]);
  if (results.memory)
    notes.push(
      `memory: after a full GC, before and after creating ${int(results.memory[0]!.objects)} ConfigMaps over HTTP (${results.memory[0]!.objectBytes} bytes of JSON each, managedFields included)${results.memory[0]!.objects !== 10_000 ? ', scaled to 10,000' : ''}.`,
    );
  const r = results.ready;
  if (r) {
    /** A time-to-ready row: the median (and max) of its starts, against its target when it has one. */
    const readyRow = (what: string, x: ReadyResult, fmt: (n: number) => string, target?: number) =>
      rows.push([
        `time to ready: ${what}`,
        `median ${fmt(x.median)} ms (max ${fmt(x.max)})`,
        '',
        '',
        target === undefined ? '' : `< ${target} ms`,
        target === undefined ? '' : x.median < target ? 'ok' : 'MISSED',
      ]);
    readyRow('process start', r.cli, int, TARGETS.readyMs);
    if (r.cliAuth) readyRow('every authenticator', r.cliAuth, int, TARGETS.readyAuthMs);
    if (r.cliTls) readyRow('process start, HTTPS', r.cliTls, int);
    if (r.cliEnv) readyRow('process start, NODE_EXTRA_CA_CERTS set', r.cliEnv, int);
    readyRow('build()+listen()', r.inProc, f1);
    notes.push(
      `ready: ${r.cli.what}, ${r.cli.runs.length} runs (${r.cli.runs.map((x) => int(x)).join(', ')} ms), fresh data dir each; ${r.cliAuth ? `${r.cliAuth.what}: ${r.cliAuth.runs.map((x) => int(x)).join(', ')} ms; ` : ''}${r.cliTls ? `${r.cliTls.what}: ${r.cliTls.runs.map((x) => int(x)).join(', ')} ms; ` : ''}${r.cliEnv ? `${r.cliEnv.what}: ${r.cliEnv.runs.map((x) => int(x)).join(', ')} ms; ` : ''}the servers start without NODE_EXTRA_CA_CERTS unless a row says so (Node reads that file before any code of the server runs); in process: first import of the server modules ${int(r.importMs)} ms, then ${r.inProc.what}: ${r.inProc.runs.map((x) => f1(x)).join(', ')} ms.`,
    );
  }
  return { rows, notes };
}

function watchRow(name: string, w: WatchResult, targetP99?: number): string[] {
  const complete = w.complete && w.inOrder;
  return [
    name,
    `p50 ${f1(w.p50)} ms, p99 ${f1(w.p99)} ms (max ${f1(w.max)})`,
    '',
    '',
    targetP99 === undefined ? '' : `p99 < ${targetP99} ms`,
    !complete ? 'INCOMPLETE' : targetP99 === undefined ? '' : w.p99 < targetP99 ? 'ok' : 'MISSED',
  ];
}

function watchNote(w: WatchResult): string {
  return `${int(w.writes)} writes at ${int(w.achievedRate)}/s (target ${int(w.targetRate)}/s) to ${w.watchers} watchers = ${int(w.writes * w.watchers)} deliveries; every event reached every watcher in order: ${w.complete && w.inOrder ? 'yes' : `NO (${w.problems.join('; ')})`}. Latency from just before the POST is sent to the event's arrival at the watcher, over the last ${int(w.measuredWrites)} writes (the first ${f1(watchOpts.warmupSeconds)} s are warm-up); write acks (after fsync) p50 ${f1(w.ackP50)} ms, p99 ${f1(w.ackP99)} ms. CPU: server ${f2(w.serverCpu)} cores, load generator ${f2(w.clientCpu)} cores.`;
}

/** Creates per second against the absolute aim (twice a kube-apiserver's on etcd). */
function createRow(c: Comparison, aim?: number): string[] {
  const row = comparisonRow(c)!;
  row[1] = `${int(c.orch.rps)} creates/s (p99 ${c.orch.p99} ms, loop ${pct(c.orch.serverElu)})`;
  if (aim !== undefined) {
    row[4] = `>= ${int(aim)} creates/s (2 x 970)`;
    row[5] = c.orch.rps >= aim ? 'ok' : 'MISSED';
  }
  return row;
}

/** What etcd did in the best measured round of the server on it. */
function etcdNote(l: Load): string {
  const e = l.etcd;
  if (!e) return '';
  return `in the best round etcd used ${f2(e.cores)} cores, ${int(e.walFsyncs)} WAL fsyncs (${f2(e.walFsyncs / Math.max(1, l.requests))} per request, mean ${f2(e.walFsyncMs)} ms) and ${int(e.commits)} backend commits (mean ${f2(e.commitMs)} ms); the server(s) ${f2(l.serverCpu)} cores`;
}

function etcdTable(rows: string[][], notes: string[]): void {
  const e = results.etcd;
  if (!e) return;
  const add = (r?: string[]) => r && rows.push(r);
  add(comparisonRow(e.get, TARGETS.etcdGet));
  add(comparisonRow(e.getConsistent));
  if (e.create) add(createRow(e.create, TARGETS.etcdCreatePerSec));
  add(comparisonRow(e.list));
  if (e.watch) rows.push(watchRow(`etcd: watch fan-out: ${e.watch.watchers} watchers, 1 writer`, e.watch));
  add(comparisonRow(e.get2));
  if (e.create2) add(createRow(e.create2));
  if (e.watch2)
    rows.push(
      watchRow(`etcd, 2 servers: watch fan-out: ${e.watch2.watchers} watchers on B, 1 writer on A`, e.watch2),
    );
  notes.push(
    `etcd rows: one etcd ${e.version} child (Debian's etcd-server, started by reference/src/etcd-process.ts: one member on loopback, its data dir a fresh temp dir on ${e.fsType}, fsync as etcd does by default: the WAL is fsynced before a write is acknowledged), reference servers on it as child processes (\`build({ etcdServers, etcdPrefix })\`, each measurement on a fresh key prefix); etcd shares the 2 cores with the servers and the load generator. The bare Node column: a bare server answering the bytes captured from the server on etcd.`,
  );
  if (e.get)
    notes.push(
      `etcd GET (resourceVersion=0): doc1 "Any": answered from the server's watch cache, no etcd request; ${e.get.bytes} bytes per answer, ${e.get.connections} connections.`,
    );
  if (e.getConsistent)
    notes.push(
      `etcd GET consistent (no resourceVersion): before answering, the server makes its cache as new as etcd is (one quorum read of etcd's revision per batch of waiting requests, then waits for its watch to reach it); ${etcdNote(e.getConsistent.orch)}.`,
    );
  if (e.create)
    notes.push(
      `etcd CREATE: ${e.create.connections} connections; each create a conditional transaction (create if absent) acknowledged once etcd has committed it (WAL fsync) and the server's watch cache holds it; the aim is twice the 970 creates/s a kube-apiserver 1.28 on etcd 3.4 reached on this machine class; ${etcdNote(e.create.orch)}. Bare answers the ${e.create.bytes}-byte created object.`,
    );
  if (e.list)
    notes.push(
      `etcd LIST: ${e.list.chunks} chunks per pass (limit=100, following continue tokens); the first chunk is a consistent list (the cache synced with etcd first), the rest read at the first chunk's revision; ${e.list.bytes} bytes per chunk on average; req/s counts chunks.`,
    );
  if (e.watch) notes.push(`etcd watch: one server on etcd; ${watchNote(e.watch)}`);
  if (e.get2)
    notes.push(
      `etcd, 2 servers: two reference servers on one etcd and one key prefix (one API), the load spread over both by one autocannon (connections round-robin over the two URLs, ${e.get2.connections} in all); req/s is the sum; the bare column is two bare servers the same way; CPU and loop figures are over both servers (loop: their mean). GET at resourceVersion=0 (watch cache).`,
    );
  if (e.create2)
    notes.push(
      `etcd, 2 servers, CREATE: as above, ${e.create2.connections} connections; ${etcdNote(e.create2.orch)}.`,
    );
  if (e.watch2)
    notes.push(
      `etcd, 2 servers, watch: the writer writes through server A, the watchers watch server B (each event reaches B through etcd's watch); latency from the POST to A to the event's arrival from B; CPU over both servers; ${watchNote(e.watch2)}`,
    );
}

function render(rows: string[][], md: boolean): string {
  const head = ['measure', 'orch', 'bare Node (kube rows: kube-apiserver)', 'ratio', 'target', ''];
  if (md) {
    return [head, head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
  }
  const widths = head.map((_, i) => Math.max(head[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'} x ${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}`;
}

try {
  await main();
} finally {
  cleanupTempDirs();
}
const { rows, notes } = table();
log(`load average (1 min) at end: ${os.loadavg()[0]!.toFixed(2)}`);
process.stdout.write(`\n${render(rows, false)}\n\n${notes.map((n) => `- ${n}`).join('\n')}\n`);
if (!values['no-write'] && !only && !quick) {
  const md = `# Benchmark results

Written by \`npm run bench\` (scripts/bench/run.ts). All figures come from one run.

- date: ${started.toISOString()}
- machine: ${machine()}
- node: ${process.version}
- load average (1 min) at start and end: ${loadBefore.toFixed(2)}, ${os.loadavg()[0]!.toFixed(2)} (other work on the machine skews every figure)
- load generator: autocannon (and undici / node:http for the watch clients), in its own process; each server under test (the reference server, or a bare \`node:http\` server answering the same bytes) in another, so each gets a core.

${render(rows, true)}

${notes.map((n) => `- ${n}`).join('\n')}

Method: for GET, CREATE and LIST each side runs ${cmp.rounds} rounds of ${cmp.duration} s (after ${cmp.warmup} s of warm-up), alternating reference and bare server; the best round of each side counts. The bare server reads the request body and answers the bytes captured from the reference server (for CREATE, the created object; for LIST, each chunk for its continue token). "loop" is the share of the time the server's event loop was busy: near 100% the server is the limit; well below it (often the bare server), the load generator is the limit, and the ratio is higher than it would be against a bare server not held back by its load.${results.etcd ? ' The etcd rows run the same loads with etcd as a fourth process on the same 2 cores; for CREATE the absolute creates/s is what the aim is about.' : ''}
`;
  writeFileSync(join(ROOT, 'scripts/bench/RESULTS.md'), md);
  log('wrote scripts/bench/RESULTS.md');
}
