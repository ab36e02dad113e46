// The server's metric registry: each metric is registered through the life cycle (a hidden one
// is not registered at all; a deprecated one is described `(Deprecated from x.y) ...` and its
// registration logs a warning), on a prom-client registry that writes the text format. The
// values are read at scrape time from `collect` functions: nothing is computed while nobody
// scrapes.
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { HIDDEN_METRICS, type MetricDescriptor, REGISTERED_METRICS } from './catalog.ts';
import { describe, isDeprecated, isShown, showHiddenProblem } from './lifecycle.ts';
import { type Buckets, SeriesHistogram } from './series.ts';

export interface MetricsRegistryOptions {
  /** The server's release (`1.28`): what deprecation and hiding are judged against. */
  release: string;
  /** `--show-hidden-metrics-for-version`: only the previous minor release is accepted. */
  showHiddenFor?: string;
  /** Where registration warnings go (default: standard error). Each logger hears of a metric once. */
  warn?: (message: string) => void;
}

/** Values of a metric's labels, in its descriptor's order. */
export type LabelValues = readonly string[];
export type Emit = (values: LabelValues, value: number) => void;

const defaultWarn = (message: string) => console.warn(message);
const warned = new WeakMap<(message: string) => void, Set<string>>();

let processRegistry: Registry | undefined;
/** The process and Node.js metrics (one set per process: their collectors are process-wide). */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** A label set as prom-client takes it: label name to value, names in alphabetical order (as Kubernetes prints them). */
function labelObject(names: readonly string[], order: readonly number[], values: LabelValues): Record<string, string> {
  const o: Record<string, string> = {};
  for (const i of order) o[names[i]!] = values[i] ?? '';
  return o;
}

function alphabetical(names: readonly string[]): number[] {
  return names.map((_, i) => i).sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
}

export class MetricsRegistry {
  readonly prom = new Registry();
  readonly release: string;
  private readonly showHiddenFor?: string;
  private readonly warn: (message: string) => void;
  private readonly registeredByLevel = new Map<string, { level: string; deprecated: string; n: number }>();
  private hidden = 0;
  private readonly names = new Set<string>();

  constructor(o: MetricsRegistryOptions) {
    const problem = showHiddenProblem(o.showHiddenFor, o.release);
    if (problem) throw new Error(problem);
    this.release = o.release;
    this.showHiddenFor = o.showHiddenFor || undefined;
    this.warn = o.warn ?? defaultWarn;
    const registered = this.registeredByLevel;
    new Counter({
      name: REGISTERED_METRICS.name,
      help: describe(REGISTERED_METRICS, o.release),
      labelNames: [...REGISTERED_METRICS.labels],
      registers: [this.prom],
      collect() {
        this.reset();
        for (const r of registered.values()) this.inc({ deprecated_version: r.deprecated, stability_level: r.level }, r.n);
      },
    });
    const self = this;
    new Counter({
      name: HIDDEN_METRICS.name,
      help: describe(HIDDEN_METRICS, o.release),
      registers: [this.prom],
      collect() {
        this.reset();
        this.inc(self.hidden);
      },
    });
  }

  /** Whether a metric of this name is registered (shown). */
  has(name: string): boolean {
    return this.names.has(name);
  }

  /** Applies the life cycle: false when the metric is hidden (then it is not registered). */
  private admit(d: MetricDescriptor): boolean {
    if (!isShown(d, this.release, this.showHiddenFor)) {
      this.hidden++;
      return false;
    }
    const deprecated = isDeprecated(d, this.release);
    const key = `${d.stability}/${deprecated ? d.deprecatedVersion : ''}`;
    const r = this.registeredByLevel.get(key) ?? { level: d.stability, deprecated: deprecated ? d.deprecatedVersion! : '', n: 0 };
    r.n++;
    this.registeredByLevel.set(key, r);
    this.names.add(d.name);
    if (deprecated) {
      let heard = warned.get(this.warn);
      if (!heard) warned.set(this.warn, (heard = new Set()));
      if (!heard.has(d.name)) {
        heard.add(d.name);
        this.warn(`metric ${d.name} is deprecated from ${d.deprecatedVersion} (${d.stability}); it will be hidden in a later release`);
      }
    }
    return true;
  }

  /** A counter whose series `collect` emits at each scrape. */
  counter(d: MetricDescriptor, collect: (emit: Emit) => void): boolean {
    if (!this.admit(d)) return false;
    const names = d.labels;
    const order = alphabetical(names);
    new Counter({
      name: d.name,
      help: describe(d, this.release),
      labelNames: [...names],
      registers: [this.prom],
      collect() {
        this.reset();
        collect((values, n) => this.inc(labelObject(names, order, values), n));
      },
    });
    return true;
  }

  /** A gauge whose series `collect` emits at each scrape. */
  gauge(d: MetricDescriptor, collect: (emit: Emit) => void): boolean {
    if (!this.admit(d)) return false;
    const names = d.labels;
    const order = alphabetical(names);
    new Gauge({
      name: d.name,
      help: describe(d, this.release),
      labelNames: [...names],
      registers: [this.prom],
      collect() {
        this.reset();
        collect((values, v) => this.set(labelObject(names, order, values), v));
      },
    });
    return true;
  }

  /** A histogram whose series `source` gives at each scrape. */
  histogram(d: MetricDescriptor, source: () => Iterable<readonly [LabelValues, Buckets]>): boolean {
    if (!this.admit(d)) return false;
    const names = d.labels;
    const order = alphabetical(names);
    new SeriesHistogram(
      { name: d.name, help: describe(d, this.release), labelNames: names, buckets: d.buckets ?? [], registers: [this.prom] },
      function* () {
        for (const [values, h] of source()) yield [labelObject(names, order, values), h] as const;
      },
    );
    return true;
  }

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  /** The text exposition: the process metrics, then the server's own. */
  async text(): Promise<string> {
    const [proc, own] = await Promise.all([processMetrics().metrics(), this.prom.metrics()]);
    return `${proc}\n${own}`;
  }
}
