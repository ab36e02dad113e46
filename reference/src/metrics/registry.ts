// The server's metric registry: each metric is registered through the life cycle (a hidden one
// is not registered at all; a deprecated one is described `(Deprecated from x.y) ...` and its
// registration logs nothing, as Kubernetes 1.28 logs nothing then; only while
// `--show-hidden-metrics-for-version` overrides the hiding does registering a deprecated metric log
// a warning, once a logger and metric). Values are read from `collect` functions at scrape time, by
// prom-client (prom.ts), which is loaded at the first scrape: nothing is computed, and nothing
// of prom-client loaded, while nobody scrapes.
import { HIDDEN_METRICS, type MetricDescriptor, REGISTERED_METRICS } from './catalog.ts';
import { describe, isDeprecated, isShown, showHiddenProblem } from './lifecycle.ts';
import type { Labels, Registered } from './prom.ts';
import type { Buckets } from './series.ts';

export interface MetricsRegistryOptions {
  /** The server's release (`1.28`): what deprecation and hiding are judged against. */
  release: string;
  /** `--show-hidden-metrics-for-version`: only the previous minor release is accepted. */
  showHiddenFor?: string;
  /**
   * Where registration warnings go (default: standard error): a deprecated metric registered
   * while `showHiddenFor` overrides the hiding. Each logger hears of a metric once.
   */
  warn?: (message: string) => void;
}

/** Values of a metric's labels, in its descriptor's order. */
export type LabelValues = readonly string[];
export type Emit = (values: LabelValues, value: number) => void;

const defaultWarn = (message: string) => console.warn(message);
const warned = new WeakMap<(message: string) => void, Set<string>>();

/** A label set as prom-client takes it, names in alphabetical order (as Kubernetes prints them). */
function labeller(names: readonly string[]): (values: LabelValues) => Labels {
  const order = names
    .map((_, i) => i)
    .sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
  return (values) => {
    const o: Labels = {};
    for (const i of order) o[names[i]!] = values[i] ?? '';
    return o;
  };
}

export class MetricsRegistry {
  readonly release: string;
  /** The text format's content type (Prometheus 0.0.4). */
  readonly contentType = 'text/plain; version=0.0.4; charset=utf-8';
  private readonly showHiddenFor?: string;
  private readonly warn: (message: string) => void;
  private readonly registeredByLevel = new Map<string, { level: string; deprecated: string; n: number }>();
  private hidden = 0;
  private readonly metrics: Registered[] = [];
  private prom?: Promise<{ own: { metrics(): Promise<string> }; proc: { metrics(): Promise<string> } }>;

  constructor(o: MetricsRegistryOptions) {
    const problem = showHiddenProblem(o.showHiddenFor, o.release);
    if (problem) throw new Error(problem);
    this.release = o.release;
    this.showHiddenFor = o.showHiddenFor || undefined;
    this.warn = o.warn ?? defaultWarn;
    this.metrics.push(
      {
        type: 'counter',
        d: REGISTERED_METRICS,
        help: describe(REGISTERED_METRICS, o.release),
        collect: (emit) => {
          for (const r of this.registeredByLevel.values())
            emit({ deprecated_version: r.deprecated, stability_level: r.level }, r.n);
        },
      },
      {
        type: 'counter',
        d: HIDDEN_METRICS,
        help: describe(HIDDEN_METRICS, o.release),
        collect: (emit) => emit({}, this.hidden),
      },
    );
  }

  /** Whether a metric of this name is registered (shown). */
  has(name: string): boolean {
    return this.metrics.some((m) => m.d.name === name);
  }

  /** Applies the life cycle: false when the metric is hidden (then it is not registered). */
  private admit(d: MetricDescriptor): boolean {
    if (this.has(d.name)) throw new Error(`metric ${d.name} is registered twice`);
    // a metric added after a scrape: the next scrape builds prom-client's side again
    this.prom = undefined;
    if (!isShown(d, this.release, this.showHiddenFor)) {
      this.hidden++;
      return false;
    }
    const deprecated = isDeprecated(d, this.release);
    const key = `${d.stability}/${deprecated ? d.deprecatedVersion : ''}`;
    const r = this.registeredByLevel.get(key) ?? {
      level: d.stability,
      deprecated: deprecated ? d.deprecatedVersion! : '',
      n: 0,
    };
    r.n++;
    this.registeredByLevel.set(key, r);
    if (this.showHiddenFor && d.deprecatedVersion) {
      let heard = warned.get(this.warn);
      if (!heard) warned.set(this.warn, (heard = new Set()));
      if (!heard.has(d.name)) {
        heard.add(d.name);
        this.warn(
          `Hidden metrics (${d.name}) have been manually overridden, showing this very deprecated metric.`,
        );
      }
    }
    return true;
  }

  /** A counter whose series `collect` emits at each scrape; false when it is hidden. */
  counter(d: MetricDescriptor, collect: (emit: Emit) => void): boolean {
    return this.valued('counter', d, collect);
  }

  /** A gauge whose series `collect` emits at each scrape; false when it is hidden. */
  gauge(d: MetricDescriptor, collect: (emit: Emit) => void): boolean {
    return this.valued('gauge', d, collect);
  }

  private valued(type: 'counter' | 'gauge', d: MetricDescriptor, collect: (emit: Emit) => void): boolean {
    if (!this.admit(d)) return false;
    const labels = labeller(d.labels);
    this.metrics.push({
      type,
      d,
      help: describe(d, this.release),
      collect: (emit) => collect((values, v) => emit(labels(values), v)),
    });
    return true;
  }

  /** A histogram whose series `source` gives at each scrape; false when it is hidden. */
  histogram(d: MetricDescriptor, source: () => Iterable<readonly [LabelValues, Buckets]>): boolean {
    if (!this.admit(d)) return false;
    const labels = labeller(d.labels);
    this.metrics.push({
      type: 'histogram',
      d,
      help: describe(d, this.release),
      source: function* () {
        for (const [values, h] of source()) yield [labels(values), h] as const;
      },
    });
    return true;
  }

  /** The text exposition: the process metrics, then the server's own. */
  async text(): Promise<string> {
    this.prom ??= import('./prom.ts').then((p) => ({
      own: p.promRegistry(this.metrics),
      proc: p.processMetrics(),
    }));
    const { own, proc } = await this.prom;
    const [p, o] = await Promise.all([proc.metrics(), own.metrics()]);
    return `${p}\n${o}`;
  }
}
