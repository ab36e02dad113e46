// A case's history: its own namespace, the ConfigMap writes of the case's setup, the state of
// the collection after each write, the versions seen along the way, and symbolic versions
// (past, current, future, expired) resolved against them. Expected answers are derived from
// this history, never from what the server answered to another request. The collection is the
// case's own objects: what a live cluster's controllers put into the namespace is left out.
import { randomBytes } from 'node:crypto';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import type { CaseContext } from '../../harness/src/case.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { configMap, dropNamespace, paths } from '../../harness/src/fixtures.ts';
import { OwnObjects } from '../../harness/src/own-objects.ts';
import { type ExpiryUse, expiredVersion } from '../../harness/src/retention.ts';
import type { MarkName, SymbolicRv, Write } from './table-cases.ts';

export type Data = Record<string, string>;
/** The collection: ConfigMap name -> data. */
export type State = Map<string, Data>;

export interface KnownVersion {
  rv: string;
  /** Order in which the suite learnt it. */
  seq: number;
  /** Index in `states` of the collection at this version. */
  state: number;
}

export interface Change {
  type: 'create' | 'update' | 'delete';
  name: string;
  /** The data after the change (before it, for a delete). */
  data: Data;
  /** Index in `states` of the state this change produced. */
  state: number;
}

export type ListQuery = {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
};

export class Scenario {
  /** states[0] is the empty collection before the case's first write. */
  readonly states: State[] = [new Map()];
  readonly versions: KnownVersion[] = [];
  readonly marks = new Map<MarkName, KnownVersion>();
  readonly log: Change[] = [];
  private writes = 0;
  /** The names the case writes: its own objects, in lists and watch streams. */
  readonly own: OwnObjects;

  private constructor(
    readonly client: Client,
    readonly ns: string,
  ) {
    this.own = new OwnObjects(ns);
  }

  static async open(client: Client): Promise<Scenario> {
    const ns = `rv-${randomBytes(5).toString('hex')}`;
    const r = await client.post(paths.namespaces(), {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
    checkStatus(r, 201, undefined, `setup: create namespace ${ns}`);
    return new Scenario(client, ns);
  }

  async close(): Promise<void> {
    await dropNamespace(this.client, this.ns);
  }

  get path(): string {
    return paths.configmaps(this.ns);
  }

  get current(): State {
    return this.states[this.states.length - 1]!;
  }

  list(q: ListQuery = {}): Promise<Response> {
    return this.client.get(this.path, { query: q });
  }

  private remember(rv: unknown): void {
    if (typeof rv === 'string' && rv !== '')
      this.versions.push({ rv, seq: this.versions.length, state: this.states.length - 1 });
  }

  async apply(w: Write): Promise<void> {
    if ('mark' in w) return this.mark(w.mark);
    this.claim([w]);
    const next: State = new Map(this.current);
    this.writes++;
    if ('create' in w) {
      const data = { v: `${w.create}-${this.writes}` };
      const r = await this.client.post(this.path, configMap(w.create, data));
      checkStatus(r, 201, undefined, `setup: create ConfigMap ${w.create}`);
      next.set(w.create, data);
      this.states.push(next);
      this.log.push({ type: 'create', name: w.create, data, state: this.states.length - 1 });
      this.remember(r.json?.metadata?.resourceVersion);
    } else if ('update' in w) {
      const data = { v: `${w.update}-${this.writes}` };
      const r = await this.client.patch(
        paths.configmap(this.ns, w.update),
        { data },
        'application/merge-patch+json',
      );
      checkStatus(r, 200, undefined, `setup: change ConfigMap ${w.update}`);
      next.set(w.update, data);
      this.states.push(next);
      this.log.push({ type: 'update', name: w.update, data, state: this.states.length - 1 });
      this.remember(r.json?.metadata?.resourceVersion);
    } else {
      const r = await this.client.delete(paths.configmap(this.ns, w.delete));
      checkStatus(r, [200, 202], undefined, `setup: delete ConfigMap ${w.delete}`);
      const data = this.current.get(w.delete) ?? {};
      next.delete(w.delete);
      this.states.push(next);
      this.log.push({ type: 'delete', name: w.delete, data, state: this.states.length - 1 });
    }
  }

  /** Records the collection's version now, read by a list without resourceVersion (Most Recent). */
  async mark(name: MarkName): Promise<void> {
    const r = await this.list();
    checkStatus(r, 200, undefined, `setup: list the collection to mark version "${name}"`);
    const got = this.stateOf(r.json?.items);
    check(
      sameState(got, this.current),
      showState(this.current),
      this.showItems(r.json?.items),
      `setup: a list without resourceVersion (Most Recent) shows every write made so far (marking "${name}")`,
    );
    const rv = r.json?.metadata?.resourceVersion;
    check(
      typeof rv === 'string' && rv !== '',
      'a non-empty metadata.resourceVersion on the list',
      show(rv),
      'setup',
    );
    this.remember(rv);
    this.marks.set(name, this.versions[this.versions.length - 1]!);
  }

  /** Records the names these writes make the case's own. */
  claim(writes: Write[]): void {
    for (const w of writes) if (!('mark' in w)) this.own.add(Object.values(w)[0] as string);
  }

  /** The case's own objects among list items (or event objects): name -> data. */
  stateOf(items: unknown): State {
    return stateOf(this.own.items(Array.isArray(items) ? items : []));
  }

  /** The case's objects among items, and the names of the others, left out (for messages). */
  showItems(items: unknown): string {
    const all = Array.isArray(items) ? items : [];
    const foreign = this.own.foreign(all);
    return `${showState(this.stateOf(all))}${foreign.length ? ` (left out, not made by the case: ${foreign.join(', ')})` : ''}`;
  }

  marked(name: MarkName): KnownVersion {
    const m = this.marks.get(name);
    if (!m) throw new Error(`case setup marks no version "${name}"`);
    return m;
  }

  /** The versions learnt before `v` (other than v's own string): older than it. */
  olderThan(v: KnownVersion): KnownVersion[] {
    return this.versions.filter((x) => x.seq < v.seq && x.rv !== v.rv);
  }

  known(rv: string): KnownVersion | undefined {
    return this.versions.find((x) => x.rv === rv);
  }

  /** The changes made after version v, in order. */
  changesAfter(v: KnownVersion): Change[] {
    return this.log.filter((c) => c.state > v.state);
  }

  /**
   * The value to send for a symbolic version; skips the case when the target has none. An
   * expired version is found for the way the case uses it (harness/src/retention.ts).
   */
  async resolve(rv: SymbolicRv, t: CaseContext, use: ExpiryUse): Promise<string | undefined> {
    switch (rv) {
      case 'unset':
        return undefined;
      case '0':
        return '0';
      case 'past':
      case 'current':
        return this.marked(rv).rv;
      case 'future': {
        const base = this.marks.get('current')?.rv ?? this.versions[this.versions.length - 1]?.rv;
        if (!base || !/^\d+$/.test(base))
          t.skip(
            `the target's resource versions (${show(base)}) are not decimal numbers, so the suite cannot name one it has not reached`,
          );
        // far enough ahead that no concurrent writer reaches it while the server waits
        return String(BigInt(base) + 1_000_000n);
      }
      case 'expired':
        return t.step('a version the target no longer retains', () => expiredVersion(t, use));
    }
  }
}

export function stateOf(items: unknown): State {
  const m: State = new Map();
  for (const o of Array.isArray(items) ? items : []) m.set(String(o?.metadata?.name), { ...(o?.data ?? {}) });
  return m;
}

export function sameState(a: State, b: State): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w || JSON.stringify(Object.entries(v).sort()) !== JSON.stringify(Object.entries(w).sort()))
      return false;
  }
  return true;
}

export function showState(s: State): string {
  const names = [...s.keys()].sort();
  return `{${names.map((n) => `${n}: ${Object.values(s.get(n) ?? {}).join(',')}`).join('; ')}}`;
}
