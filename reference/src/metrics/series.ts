// Histogram series kept by the server itself: a request adds to plain numbers (no label
// hashing, no allocation), and prom-client reads them only when /metrics is scraped.

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
