// "Memory flat": the mean of the last quarter of a series against the mean of its second quarter
// (the first quarter is warm-up: code compiled, caches and pools filled). The growth fails the
// soak when it is above both limits, a share and an amount, so that neither a small process's
// few megabytes nor a large process's few percent count as a leak.

export interface FlatnessLimits {
  /** Growth allowed in percent of the second quarter's mean. */
  maxPct: number;
  /** Growth allowed in bytes. */
  maxBytes: number;
}

export interface Flatness {
  samples: number;
  /** Mean of the second quarter, bytes. */
  early: number;
  /** Mean of the last quarter, bytes. */
  late: number;
  growthBytes: number;
  growthPct: number;
  /** Least-squares slope of the second half, bytes per sample (times the samples per minute: the trend per minute). */
  slopePerSample: number;
  /** undefined: too few samples to judge (fewer than 8). */
  flat: boolean | undefined;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export function flatness(series: number[], limits: FlatnessLimits): Flatness {
  const n = series.length;
  if (n < 8) {
    return {
      samples: n,
      early: Number.NaN,
      late: Number.NaN,
      growthBytes: 0,
      growthPct: 0,
      slopePerSample: Number.NaN,
      flat: undefined,
    };
  }
  const q = Math.floor(n / 4);
  const early = mean(series.slice(q, 2 * q));
  const late = mean(series.slice(n - q));
  const growthBytes = late - early;
  const growthPct = (growthBytes / early) * 100;
  const flat = !(growthBytes > limits.maxBytes && growthPct > limits.maxPct);
  return {
    samples: n,
    early,
    late,
    growthBytes,
    growthPct,
    slopePerSample: slope(series.slice(Math.floor(n / 2))),
    flat,
  };
}

/** Least-squares slope of a series against its index. */
export function slope(ys: number[]): number {
  const n = ys.length;
  const mx = (n - 1) / 2;
  const my = mean(ys);
  let num = 0;
  let den = 0;
  ys.forEach((y, x) => {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  });
  return den ? num / den : 0;
}
