// A map keyed by two strings, looked up without joining them: a joined key is a new string,
// made, flattened and hashed at every lookup, where each part's hash is kept on the string
// (the registry's lookups by group and resource run several times a request).

export class PairMap<V> {
  private readonly byFirst = new Map<string, Map<string, V>>();

  get(a: string, b: string): V | undefined {
    return this.byFirst.get(a)?.get(b);
  }

  set(a: string, b: string, v: V): void {
    let inner = this.byFirst.get(a);
    if (!inner) this.byFirst.set(a, (inner = new Map()));
    inner.set(b, v);
  }

  delete(a: string, b: string): void {
    const inner = this.byFirst.get(a);
    if (!inner) return;
    inner.delete(b);
    if (inner.size === 0) this.byFirst.delete(a);
  }
}
