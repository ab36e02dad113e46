// What a controller waits to see before it acts on an object again (Kubernetes' controller
// expectations): how many objects it is creating, and which it is deleting. Until its
// informer has shown each creation and deletion, another pass would count them wrong and make
// or delete too many. Creations are expected before they are sent (the store may report one
// before the request returns); after five minutes expectations are dropped anyway (Kubernetes'
// ExpectationsTimeout).
const TIMEOUT_MS = 5 * 60_000;

interface Expected {
  adds: number;
  dels: Set<string>;
  at: number;
}

export class Expectations {
  private readonly byKey = new Map<string, Expected>();

  constructor(private readonly now: () => number = Date.now) {}

  private entry(key: string): Expected {
    let e = this.byKey.get(key);
    if (!e) this.byKey.set(key, (e = { adds: 0, dels: new Set(), at: this.now() }));
    return e;
  }

  /** `key` is about to create `n` objects. */
  expectCreations(key: string, n: number): void {
    const e = this.entry(key);
    e.adds += n;
    e.at = this.now();
  }

  /** `key` is about to delete these objects (by informer key). */
  expectDeletions(key: string, names: Iterable<string>): void {
    const e = this.entry(key);
    for (const n of names) e.dels.add(n);
    e.at = this.now();
  }

  /** A creation of `key`'s was seen (or failed, so it will never be). */
  creationObserved(key: string): void {
    const e = this.byKey.get(key);
    if (e && e.adds > 0) e.adds--;
  }

  /** A deletion was seen (or failed). */
  deletionObserved(key: string, name: string): void {
    this.byKey.get(key)?.dels.delete(name);
  }

  /** Whether `key` may act on what its informer shows. */
  satisfied(key: string): boolean {
    const e = this.byKey.get(key);
    if (!e) return true;
    if ((e.adds <= 0 && !e.dels.size) || this.now() - e.at > TIMEOUT_MS) {
      this.byKey.delete(key);
      return true;
    }
    return false;
  }

  forget(key: string): void {
    this.byKey.delete(key);
  }
}
