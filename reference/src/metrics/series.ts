// Histogram series kept by the server itself: a request adds to plain numbers (no label
// hashing, no allocation), and prom-client reads them only when /metrics is scraped.
import { Histogram, type Registry } from 'prom-client';

/** One histogram series: counts per bucket (not cumulative), sum and count. */
export class Buckets {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    if (i < b.length) this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

/** The series of a histogram: each label set (label name to value) with its numbers. */
export type HistogramSource = () => Iterable<readonly [Record<string, string>, Buckets]>;

/**
 * A prom-client histogram whose series come from `source` at scrape time, in the shape
 * prom-client's own histograms give (cumulative `_bucket` lines with `le`, then `_sum`, `_count`).
 */
export class SeriesHistogram extends Histogram<string> {
  private readonly source: HistogramSource;
  private readonly bounds: readonly number[];
  private readonly metricName: string;
  private readonly helpText: string;

  constructor(
    o: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[]; registers: Registry[] },
    source: HistogramSource,
  ) {
    super({ name: o.name, help: o.help, labelNames: o.labelNames, buckets: [...o.buckets], registers: o.registers });
    this.source = source;
    this.bounds = o.buckets;
    this.metricName = o.name;
    this.helpText = o.help;
  }

  override async get(): ReturnType<Histogram<string>['get']> {
    const values: Awaited<ReturnType<Histogram<string>['get']>>['values'] = [];
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
    return { name, help: this.helpText, type: 'histogram', aggregator: 'sum', values } as unknown as Awaited<
      ReturnType<Histogram<string>['get']>
    >;
  }

  /** What prom-client's registry reads when it writes the text format. */
  getForPromString(): ReturnType<Histogram<string>['get']> {
    return this.get();
  }
}
