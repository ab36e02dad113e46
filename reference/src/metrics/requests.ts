// The request metrics Kubernetes' API server exposes: counts by code, latency and response
// size histograms, requests in flight, long-running requests, and the deprecated APIs asked for.
//
// A request costs a string key, one map lookup and a few additions: each label set is looked up
// once in the series cache and keeps its own numbers; prom-client reads them only at scrape time.
import {
  CURRENT_INFLIGHT,
  LONGRUNNING,
  REQUEST_DURATION,
  REQUEST_SLI_DURATION,
  REQUEST_SLO_DURATION,
  REQUEST_TOTAL,
  REQUESTED_DEPRECATED_APIS,
  RESPONSE_SIZES,
} from './catalog.ts';
import type { LabelValues, MetricsRegistry } from './registry.ts';
import { Buckets } from './series.ts';

const COMPONENT = 'apiserver';

/**
 * One request as the metrics see it. The HTTP layer fills in the labels as it learns them
 * (`verb` in Kubernetes' reported form: GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE,
 * DELETECOLLECTION; `scope`: resource, namespace, cluster, or empty for non-resource paths).
 */
export class RequestObservation {
  verb = '';
  dryRun = '';
  group = '';
  version = '';
  resource = '';
  subresource = '';
  scope = '';
  /** The reply body's length, once the HTTP layer wrote it. */
  bytes: number | undefined = undefined;
  /** Set by `startLongRunning` (watches): not in flight, not in the latency objectives. */
  longRunning = false;
  ended = false;

  constructor(
    readonly start: number,
    readonly mutating: boolean,
  ) {}
}

/** The numbers of the histograms without a dry_run label: one label set, any dry-run value. */
class PlainSeries {
  sli?: Buckets;
  sizes?: Buckets;

  constructor(readonly values: LabelValues) {}
}

/** The numbers of one label set (the request labels without the code). */
class RequestSeries {
  readonly codes = new Map<number, number>();
  readonly duration = new Buckets(REQUEST_DURATION.buckets!);

  constructor(
    readonly values: LabelValues,
    readonly plain: PlainSeries,
  ) {}
}

function plainKey(o: RequestObservation): string {
  return `${o.verb}\u0000${o.group}\u0000${o.version}\u0000${o.resource}\u0000${o.subresource}\u0000${o.scope}`;
}

function seriesKey(o: RequestObservation): string {
  return `${o.dryRun}\u0000${plainKey(o)}`;
}

/** Label values in REQUEST_LABELS order (verb, dry_run, group, version, resource, subresource, scope, component). */
function requestValues(o: RequestObservation): LabelValues {
  return [o.verb, o.dryRun, o.group, o.version, o.resource, o.subresource, o.scope, COMPONENT];
}

/** The same without dry_run (the histograms other than the request duration). */
function withoutDryRun(v: LabelValues): LabelValues {
  return [v[0]!, ...v.slice(2)];
}

/** The in-flight gauge reports the most requests in flight within one-second windows. */
const WINDOW_MS = 1000;

export class RequestMetrics {
  private readonly series = new Map<string, RequestSeries>();
  private readonly plain = new Map<string, PlainSeries>();
  private readonly longRunning = new Map<string, { values: LabelValues; n: number }>();
  private readonly deprecated = new Map<string, LabelValues>();
  private readonly inflight = [0, 0];
  private peak = [0, 0];
  private previousPeak = [0, 0];
  private windowStart = 0;

  constructor(
    reg: MetricsRegistry,
    private readonly now: () => number = () => performance.now(),
  ) {
    const series = this.series;
    reg.counter(REQUEST_TOTAL, (emit) => {
      for (const s of series.values()) for (const [code, n] of s.codes) emit([...s.values, String(code)], n);
    });
    reg.histogram(REQUEST_DURATION, function* () {
      for (const s of series.values()) yield [s.values, s.duration] as const;
    });
    const plain = this.plain;
    const sli = function* () {
      for (const s of plain.values()) if (s.sli) yield [s.values, s.sli] as const;
    };
    reg.histogram(REQUEST_SLI_DURATION, sli);
    // the deprecated twin (hidden in 1.28 unless --show-hidden-metrics-for-version=1.27) counts the same
    reg.histogram(REQUEST_SLO_DURATION, sli);
    reg.histogram(RESPONSE_SIZES, function* () {
      for (const s of plain.values()) if (s.sizes) yield [s.values, s.sizes] as const;
    });
    reg.gauge(CURRENT_INFLIGHT, (emit) => {
      const [readOnly, mutating] = this.inflightNow();
      emit(['readOnly'], readOnly);
      emit(['mutating'], mutating);
    });
    const longRunning = this.longRunning;
    reg.gauge(LONGRUNNING, (emit) => {
      for (const l of longRunning.values()) emit(l.values, l.n);
    });
    const deprecated = this.deprecated;
    reg.gauge(REQUESTED_DEPRECATED_APIS, (emit) => {
      for (const values of deprecated.values()) emit(values, 1);
    });
  }

  /** A request arrives: it is in flight (read-only or mutating) until `end`. */
  begin(mutating: boolean): RequestObservation {
    const now = this.now();
    const k = mutating ? 1 : 0;
    const n = ++this.inflight[k]!;
    if (now - this.windowStart >= WINDOW_MS) this.roll(now);
    if (n > this.peak[k]!) this.peak[k] = n;
    return new RequestObservation(now, mutating);
  }

  private roll(now: number): void {
    this.previousPeak = this.peak;
    this.peak = [this.inflight[0]!, this.inflight[1]!];
    this.windowStart = now;
  }

  /** Read-only and mutating requests: the most in flight in the last window, or now. */
  private inflightNow(): [number, number] {
    const age = this.now() - this.windowStart;
    const out: [number, number] = [this.inflight[0]!, this.inflight[1]!];
    for (const k of [0, 1] as const) {
      if (age < 2 * WINDOW_MS) out[k] = Math.max(out[k], this.peak[k]!);
      if (age < WINDOW_MS) out[k] = Math.max(out[k], this.previousPeak[k]!);
    }
    return out;
  }

  /** The request is long-running (a watch): counted as such until it ends, no longer in flight. */
  startLongRunning(o: RequestObservation): void {
    if (o.longRunning || o.ended) return;
    o.longRunning = true;
    this.inflight[o.mutating ? 1 : 0]!--;
    const key = plainKey(o);
    let l = this.longRunning.get(key);
    if (!l) this.longRunning.set(key, (l = { values: withoutDryRun(requestValues(o)), n: 0 }));
    l.n++;
  }

  /** The request was answered with `code`; `bytes` is the body's length when known. */
  end(o: RequestObservation, code: number, bytes: number | undefined): void {
    if (o.ended) return;
    o.ended = true;
    const seconds = (this.now() - o.start) / 1000;
    if (o.longRunning) {
      const l = this.longRunning.get(plainKey(o));
      if (l) l.n--;
    } else this.inflight[o.mutating ? 1 : 0]!--;
    const key = seriesKey(o);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = this.newSeries(o)));
    s.codes.set(code, (s.codes.get(code) ?? 0) + 1);
    s.duration.observe(seconds);
    const p = s.plain;
    if (o.verb !== 'WATCH') (p.sli ??= new Buckets(REQUEST_SLI_DURATION.buckets!)).observe(seconds);
    // Kubernetes records the sizes of read replies only
    if (bytes !== undefined && (o.verb === 'GET' || o.verb === 'LIST'))
      (p.sizes ??= new Buckets(RESPONSE_SIZES.buckets!)).observe(bytes);
  }

  /** A new label set: its series without dry_run is shared with the other dry-run values' (looked up once, here). */
  private newSeries(o: RequestObservation): RequestSeries {
    const values = requestValues(o);
    const key = plainKey(o);
    let p = this.plain.get(key);
    if (!p) this.plain.set(key, (p = new PlainSeries(withoutDryRun(values))));
    return new RequestSeries(values, p);
  }

  /** A request to a deprecated version: the gauge of that group, version, resource, subresource is 1. */
  deprecatedRequest(
    group: string,
    version: string,
    resource: string,
    subresource: string,
    removedRelease: string,
  ): void {
    const key = `${group}\u0000${version}\u0000${resource}\u0000${subresource}\u0000${removedRelease}`;
    if (!this.deprecated.has(key))
      this.deprecated.set(key, [group, version, resource, subresource, removedRelease]);
  }
}
