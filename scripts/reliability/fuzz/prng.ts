// A small seeded pseudo-random generator (sfc32, seeded through splitmix32) with the picks the
// request generator needs. Each request draws from its own generator, seeded by the run's seed
// and the request's index: request i of seed S is the same whatever the concurrency, the
// order answers come back in, or the requests before it, and `--replay i` rebuilds it alone.
// (fast-check's arbitraries sample a sequence from a seed; they have no random access by index.)

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** The generator of request `index` of the run seeded `seed`. */
  constructor(seed: number, index = 0) {
    const mix = splitmix32((seed >>> 0) ^ Math.imul(index + 1, 0x27d4eb2d));
    this.a = mix();
    this.b = mix();
    this.c = mix() ^ index;
    this.d = 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A 32-bit unsigned integer. */
  next(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error('pick from an empty list');
    return xs[Math.floor(this.float() * xs.length)]!;
  }

  /** One of the choices, by weight. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((n, [w]) => n + w, 0);
    let r = this.float() * total;
    for (const [w, v] of choices) {
      r -= w;
      if (r < 0) return v;
    }
    return choices[choices.length - 1]![1];
  }

  /** A string of `n` characters from `alphabet`. */
  string(alphabet: string, n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.float() * alphabet.length)];
    return s;
  }
}
