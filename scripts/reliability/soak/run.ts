// One soak on one backend: its servers as real processes, N watchers over the scope mix, the
// paced writers for the given time, memory sampled throughout, then a settle time and the check.
import { parsePrometheusText } from '../../../harness/src/prometheus-text.ts';
import { type BackendKind, rssOf, startBackend } from '../server.ts';
import { checkWatcher, type EventTotals, totals, type WatcherCheck } from './check.ts';
import { type Flatness, type FlatnessLimits, flatness } from './memory.ts';
import { type Scope, scopeMix } from './scope.ts';
import { Watcher } from './watcher.ts';
import { Writer } from './writer.ts';
import { seeded } from '../seeded.ts';

export interface SoakOptions {
  backend: BackendKind;
  /** Servers on the backend (etcd: 1 or 2; watchers spread over them, writes alternate). */
  servers: number;
  seconds: number;
  watchers: number;
  /** Writes per second. */
  rate: number;
  namespaces: number;
  objectsPerNamespace: number;
  /** Each watch's timeoutSeconds is drawn from this range, so watchers resume all along. */
  watchTimeout: [number, number];
  sampleSeconds: number;
  progressSeconds: number;
  /** The servers' change history (their --history-seconds; 300 by default). */
  historySeconds: number;
  /** Longest wait after the last write for the watchers to catch up. */
  settleSeconds: number;
  limits: FlatnessLimits;
  seed: number;
  /** More `serve` flags for every server. */
  serverFlags?: string[];
  log: (line: string) => void;
}

export interface ProcessSample {
  rss?: number;
  /** nodejs_heap_size_used_bytes from the server's /metrics. */
  heap?: number;
  /** nodejs_external_memory_bytes from the server's /metrics. */
  external?: number;
}

export interface Sample {
  /** Seconds since the writes began. */
  t: number;
  writes: number;
  events: number;
  servers: ProcessSample[];
  driverRss: number;
  driverHeap: number;
  etcdRss?: number;
}

export interface ScopeTotals extends Omit<EventTotals, 'failing'> {
  kind: Scope['kind'];
}

export interface SoakResult {
  backend: BackendKind;
  servers: number;
  seconds: number;
  watchersCount: number;
  rate: number;
  seed: number;
  sampleSeconds: number;
  startedAt: string;
  writes: {
    sent: number;
    acknowledged: number;
    failed: number;
    failures: string[];
    byType: Record<string, number>;
  };
  achievedRate: number;
  watch: {
    resumed: number;
    expired: number;
    expiredBeyond: number;
    errors: number;
    errorTexts: string[];
    bookmarks: number;
  };
  events: Omit<EventTotals, 'failing'> & { failing: WatcherCheck[] };
  byScope: ScopeTotals[];
  settleSeconds: number;
  memory: {
    limits: FlatnessLimits;
    servers: { rss: Flatness; heap: Flatness; heapFloor: Flatness; external: Flatness }[];
    driver: Flatness;
    etcd?: Flatness;
  };
  samples: Sample[];
  pass: boolean;
  reasons: string[];
}

/** The minimum of each run of `width` values. */
function minima(xs: number[], width: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + width <= xs.length; i += width) out.push(Math.min(...xs.slice(i, i + width)));
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MB = 1024 * 1024;
const mb = (b: number | undefined) => (b === undefined ? '-' : `${(b / MB).toFixed(0)} MB`);

async function json(url: string, token: string, method = 'GET', body?: unknown): Promise<any> {
  const r = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${url} answered ${r.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** The server's heap used and external memory (Buffers) from its /metrics. */
async function serverMemory(url: string, token: string): Promise<{ heap?: number; external?: number }> {
  try {
    const r = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    if (r.status !== 200) return {};
    const samples = parsePrometheusText(await r.text()).samples;
    const value = (name: string) => samples.find((x) => x.name === name)?.value;
    return { heap: value('nodejs_heap_size_used_bytes'), external: value('nodejs_external_memory_bytes') };
  } catch {
    return {};
  }
}

export async function soak(o: SoakOptions): Promise<SoakResult> {
  const startedAt = new Date().toISOString();
  const b = await startBackend(o.backend, { servers: o.servers, flags: o.serverFlags });
  try {
    const endpoints = b.servers.map((s) => ({ url: s.url, token: s.token }));
    const first = endpoints[0]!;
    const run = Date.now().toString(36);
    const namespaces = Array.from({ length: o.namespaces }, (_, i) => `soak-${run}-${i}`);
    for (const ns of namespaces)
      await json(`${first.url}/api/v1/namespaces`, first.token, 'POST', { metadata: { name: ns } });
    const startRv = Number(
      (await json(`${first.url}/api/v1/configmaps?limit=1`, first.token)).metadata.resourceVersion,
    );

    const keys = new Map<string, string>();
    const intern = (k: string) => {
      const have = keys.get(k);
      if (have !== undefined) return have;
      keys.set(k, k);
      return k;
    };
    const random = seeded(o.seed + 1);
    const scopes = scopeMix(o.watchers, namespaces, o.objectsPerNamespace);
    const watchers = scopes.map(
      (scope, i) =>
        new Watcher({
          ...endpoints[i % endpoints.length]!,
          scope,
          startRv,
          timeoutSeconds: o.watchTimeout,
          historySeconds: o.historySeconds,
          random,
          intern,
        }),
    );
    for (const w of watchers) w.start();
    const writer = new Writer({
      endpoints,
      namespaces,
      objectsPerNamespace: o.objectsPerNamespace,
      rate: o.rate,
      seed: o.seed,
    });

    const samples: Sample[] = [];
    const delivered = () => watchers.reduce((a, w) => a + w.delivered, 0);
    const t0 = performance.now();
    const elapsed = () => (performance.now() - t0) / 1000;
    const sample = async () => {
      const servers = await Promise.all(
        b.servers.map(async (s) => ({ rss: s.rss(), ...(await serverMemory(s.url, s.token)) })),
      );
      const m = process.memoryUsage();
      samples.push({
        t: elapsed(),
        writes: writer.acked.length,
        events: delivered(),
        servers,
        driverRss: m.rss,
        driverHeap: m.heapUsed,
        etcdRss: b.etcd ? rssOf(b.etcd.pid()) : undefined,
      });
    };
    const progress = () => {
      const s = samples.at(-1);
      const t = elapsed();
      const w = watchers;
      o.log(
        `[${o.backend}${o.servers > 1 ? ` x${o.servers}` : ''}] ${t.toFixed(0)} s: writes ${writer.acked.length} ` +
          `(${(writer.acked.length / Math.max(t, 1)).toFixed(1)}/s, ${writer.failed} failed), events ${delivered()}, ` +
          `resumed ${w.reduce((a, x) => a + x.resumed, 0)}, 410 ${w.reduce((a, x) => a + x.expired, 0)}, ` +
          `errors ${w.reduce((a, x) => a + x.errors, 0)}, server RSS ${s?.servers.map((x) => mb(x.rss)).join(' / ')}, ` +
          `heap ${s?.servers.map((x) => mb(x.heap)).join(' / ')}, driver RSS ${mb(s?.driverRss)}` +
          (s?.etcdRss ? `, etcd RSS ${mb(s.etcdRss)}` : ''),
      );
    };

    let sampling = Promise.resolve();
    const sampler = setInterval(() => {
      sampling = sampling.then(sample);
    }, o.sampleSeconds * 1000);
    const progressTimer = setInterval(progress, o.progressSeconds * 1000);
    await sample();
    writer.start();
    await sleep(o.seconds * 1000);
    await writer.stop();
    const writeEnd = elapsed();
    const writePhase = samples.filter((s) => s.t <= writeEnd + 0.5);

    // settle: every watcher has every event in its scope, or the settle time is over
    const tainted = writer.tainted;
    const acked = writer.acked.filter((w) => !tainted.has(w.key));
    const refOf = (k: string) => (tainted.has(k) ? undefined : writer.refOf(k));
    const expectedCounts = watchers.map((w) => checkWatcher({ ...w.log, events: [] }, acked, refOf).expected);
    const settleStart = performance.now();
    while (
      watchers.some((w, i) => w.delivered < expectedCounts[i]!) &&
      performance.now() - settleStart < o.settleSeconds * 1000
    )
      await sleep(250);
    const settleSeconds = (performance.now() - settleStart) / 1000;
    await sleep(500); // anything extra (a duplicate) still on its way
    clearInterval(sampler);
    clearInterval(progressTimer);
    await sampling;
    for (const w of watchers) w.stop();
    progress();

    const checks = watchers.map((w) => checkWatcher(w.log, acked, refOf));
    const t = totals(checks);
    const byScope: ScopeTotals[] = [];
    checks.forEach((c, i) => {
      const kind = scopes[i]!.kind;
      let s = byScope.find((x) => x.kind === kind);
      if (!s) {
        s = {
          kind,
          watchers: 0,
          expected: 0,
          delivered: 0,
          lost: 0,
          duplicated: 0,
          reordered: 0,
          unexpected: 0,
        };
        byScope.push(s);
      }
      s.watchers++;
      s.expected += c.expected;
      s.delivered += c.delivered;
      s.lost += c.lost;
      s.duplicated += c.duplicated;
      s.reordered += c.reordered;
      s.unexpected += c.unexpected;
    });

    const series = (f: (s: Sample) => number | undefined) =>
      writePhase.map(f).filter((x): x is number => x !== undefined);
    const memory: SoakResult['memory'] = {
      limits: o.limits,
      servers: b.servers.map((_, i) => ({
        rss: flatness(
          series((s) => s.servers[i]?.rss),
          o.limits,
        ),
        // the lowest heap of each minute: what survives collections, without the sawtooth between them
        heapFloor: flatness(
          minima(
            series((s) => s.servers[i]?.heap),
            Math.max(1, Math.round(60 / o.sampleSeconds)),
          ),
          o.limits,
        ),
        external: flatness(
          series((s) => s.servers[i]?.external),
          o.limits,
        ),
        heap: flatness(
          series((s) => s.servers[i]?.heap),
          o.limits,
        ),
      })),
      driver: flatness(
        series((s) => s.driverRss),
        o.limits,
      ),
      etcd: b.etcd
        ? flatness(
            series((s) => s.etcdRss),
            o.limits,
          )
        : undefined,
    };

    const watch = {
      resumed: watchers.reduce((a, w) => a + w.resumed, 0),
      expired: watchers.reduce((a, w) => a + w.expired, 0),
      expiredBeyond: watchers.reduce((a, w) => a + w.expiredBeyond, 0),
      errors: watchers.reduce((a, w) => a + w.errors, 0),
      errorTexts: watchers.flatMap((w) => w.errorTexts).slice(0, 10),
      bookmarks: watchers.reduce((a, w) => a + w.bookmarks, 0),
    };
    const byType: Record<string, number> = { ADDED: 0, MODIFIED: 0, DELETED: 0 };
    for (const w of writer.acked) byType[w.type]!++;

    const reasons: string[] = [];
    if (t.lost) reasons.push(`${t.lost} events lost`);
    if (t.duplicated) reasons.push(`${t.duplicated} events duplicated`);
    if (t.reordered) reasons.push(`${t.reordered} events out of resourceVersion order`);
    if (t.unexpected) reasons.push(`${t.unexpected} events no acknowledged write explains`);
    if (writer.failed) reasons.push(`${writer.failed} writes failed`);
    // a watcher resumes from a version it learnt within the history (bookmarks keep it fresh)
    if (watch.expired)
      reasons.push(`${watch.expired} watches answered 410 Gone to a version within the history`);
    if (watch.errors) reasons.push(`${watch.errors} watch errors`);
    memory.servers.forEach((m, i) => {
      if (m.rss.flat === false)
        reasons.push(
          `server ${i + 1} RSS grew ${mb(m.rss.growthBytes)} (${m.rss.growthPct.toFixed(0)}%) from the second quarter to the last`,
        );
    });
    if (writer.acked.length < o.rate * o.seconds * 0.9)
      reasons.push(`only ${writer.acked.length} of ${Math.round(o.rate * o.seconds)} writes acknowledged`);

    return {
      backend: o.backend,
      servers: o.servers,
      seconds: o.seconds,
      watchersCount: o.watchers,
      rate: o.rate,
      seed: o.seed,
      sampleSeconds: o.sampleSeconds,
      startedAt,
      writes: {
        sent: writer.sent,
        acknowledged: writer.acked.length,
        failed: writer.failed,
        failures: writer.failures,
        byType,
      },
      achievedRate: writer.acked.length / writeEnd,
      watch,
      events: { ...t, failing: t.failing.slice(0, 20) },
      byScope,
      settleSeconds,
      memory,
      samples,
      pass: reasons.length === 0,
      reasons,
    };
  } finally {
    await b.stop();
  }
}
