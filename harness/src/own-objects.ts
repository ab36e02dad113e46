// The objects a case made, told apart from those it did not. A live cluster's controllers put
// objects into every namespace (the root-CA publisher's orch-root-ca.crt ConfigMap, the default
// ServiceAccount) at moments a case cannot know, so a list or watch assertion compares the
// case's own objects with what it wrote and leaves the others out: it still fails on a missing,
// extra, duplicated, out-of-order or wrong-version object of its own.

interface Named {
  metadata?: { name?: unknown; namespace?: unknown };
}

interface Event {
  type: string;
  object?: any;
}

export class OwnObjects {
  private readonly names = new Set<string>();

  /** `namespace`: the case's namespace; an object of another one is never the case's. */
  constructor(readonly namespace?: string) {}

  /** Records a name the case writes (a name stays the case's after its object is deleted). */
  add(...names: string[]): this {
    for (const n of names) this.names.add(n);
    return this;
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  /** An object (a list item, an event's object) the case made: a name it wrote, in its namespace. */
  owns(o: unknown): boolean {
    const m = (o as Named | undefined)?.metadata;
    if (typeof m?.name !== 'string' || !this.names.has(m.name)) return false;
    return this.namespace === undefined || m.namespace === undefined || m.namespace === this.namespace;
  }

  /** The case's own items of a list, in the list's order. */
  items<T = any>(items: readonly T[] | undefined): T[] {
    return (items ?? []).filter((o) => this.owns(o));
  }

  /** The names of the items the case did not make (for messages). */
  foreign(items: readonly unknown[] | undefined): string[] {
    return (items ?? []).filter((o) => !this.owns(o)).map((o) => String((o as Named)?.metadata?.name));
  }

  /**
   * The events of a stream about the case's own objects, in order. An event whose object names
   * no object (a BOOKMARK, an ERROR holding a Status) is kept: it is about the stream.
   */
  events<E extends Event>(events: readonly E[]): E[] {
    return events.filter((e) => !namesObject(e) || this.owns(e.object));
  }
}

function namesObject(e: Event): boolean {
  const o = e.object;
  return !!o && o.kind !== 'Status' && typeof o.metadata?.name === 'string' && o.metadata.name !== '';
}
