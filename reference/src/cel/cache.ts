// A bounded cache of compiled work keyed by its source text (a definition version's schema),
// so that a definition is compiled once, not per request, and a definition that comes back
// (a restart of its controller, the same schema in several versions) reuses its programs.

export class CompileCache<T> {
  private readonly entries = new Map<string, T>();
  constructor(private readonly limit = 256) {}

  get(key: string, make: () => T): T {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // most recently used last
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const v = make();
    if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, v);
    return v;
  }
}
