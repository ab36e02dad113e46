// The prom-client side of the metrics: loaded at the first scrape (a server nobody scrapes never
// loads it), it turns the registered metrics into prom-client counters, gauges and histograms
// whose values come from their `collect` functions, and writes the text format.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { MetricDescriptor } from './catalog.ts';
import type { Buckets } from './series.ts';

/** Label name to value, as prom-client takes a label set. */
export type Labels = Record<string, string>;
export type EmitLabelled = (labels: Labels, value: number) => void;

/** A registered metric: its descriptor (help already in its life-cycle form) and where its values come from. */
export type Registered =
  | { type: 'counter' | 'gauge'; d: MetricDescriptor; help: string; collect: (emit: EmitLabelled) => void }
  | {
      type: 'histogram';
      d: MetricDescriptor;
      help: string;
      source: () => Iterable<readonly [Labels, Buckets]>;
    };

let processRegistry: Registry | undefined;
/** The process and Node.js metrics (one set per process: their collectors are process-wide). */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

type HistogramValues = Awaited<ReturnType<Histogram<string>['get']>>;

/**
 * A prom-client histogram whose series come from `source` at scrape time, in the shape
 * prom-client's own histograms give (cumulative `_bucket` lines with `le`, then `_sum`, `_count`).
 */
class SeriesHistogram extends Histogram<string> {
  private readonly source: () => Iterable<readonly [Labels, Buckets]>;
  private readonly bounds: readonly number[];
  private readonly metricName: string;
  private readonly helpText: string;

  constructor(r: Extract<Registered, { type: 'histogram' }>, registry: Registry) {
    const bounds = r.d.buckets ?? [];
    super({
      name: r.d.name,
      help: r.help,
      labelNames: r.d.labels,
      buckets: [...bounds],
      registers: [registry],
    });
    this.source = r.source;
    this.bounds = bounds;
    this.metricName = r.d.name;
    this.helpText = r.help;
  }

  override async get(): Promise<HistogramValues> {
    const values: HistogramValues['values'] = [];
    const name = this.metricName;
    for (const [labels, h] of this.source()) {
      let acc = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        acc += h.counts[i]!;
        values.push({ labels: { ...labels, le: this.bounds[i]! }, value: acc, metricName: `${name}_bucket` });
      }
      values.push(
        { labels: { ...labels, le: '+Inf' }, value: h.count, metricName: `${name}_bucket` },
        { labels, value: h.sum, metricName: `${name}_sum` },
        { labels, value: h.count, metricName: `${name}_count` },
      );
    }
    // the fields prom-client's histograms give (`type` is the string prom-client writes; its
    // typings call it an enum)
    return {
      name,
      help: this.helpText,
      type: 'histogram',
      aggregator: 'sum',
      values,
    } as unknown as HistogramValues;
  }

  /** What prom-client's registry reads when it writes the text format. */
  getForPromString(): Promise<HistogramValues> {
    return this.get();
  }
}

/** A prom-client registry of the registered metrics. */
export function promRegistry(metrics: readonly Registered[]): Registry {
  const registry = new Registry();
  for (const r of metrics) {
    if (r.type === 'histogram') {
      new SeriesHistogram(r, registry);
      continue;
    }
    const common = { name: r.d.name, help: r.help, labelNames: [...r.d.labels], registers: [registry] };
    if (r.type === 'counter')
      new Counter({
        ...common,
        collect() {
          this.reset();
          r.collect((labels, n) => this.inc(labels, n));
        },
      });
    else
      new Gauge({
        ...common,
        collect() {
          this.reset();
          r.collect((labels, v) => this.set(labels, v));
        },
      });
  }
  return registry;
}
