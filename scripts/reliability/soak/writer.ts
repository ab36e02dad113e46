// The soak's writers: a paced loop of ConfigMap creates, updates (PUT with the last known
// resourceVersion) and deletes (with a resourceVersion precondition) over a fixed set of names
// in a few namespaces, at a steady rate, alternating between the servers. One write at a time
// per name, so each name's acknowledged history is exact; every acknowledged write is recorded
// with its type, name and resourceVersion for the watchers' check.
import { Pool } from 'undici';
import type { AckedWrite } from './check.ts';
import { labelsOf, objectName, type ObjectRef } from './scope.ts';
import { seeded } from '../seeded.ts';

export interface Endpoint {
  url: string;
  token: string;
}

export interface WriterOptions {
  endpoints: Endpoint[];
  namespaces: string[];
  objectsPerNamespace: number;
  /** Writes per second. */
  rate: number;
  seed: number;
}

interface KeyState {
  ref: ObjectRef;
  exists: boolean;
  rv: number;
  busy: boolean;
  /** Index in `acked` of the last delete, whose `before` the next create fills. */
  lastDelete?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Writer {
  readonly acked: AckedWrite[] = [];
  sent = 0;
  failed = 0;
  readonly failures: string[] = [];
  /** Names whose last write failed: its outcome is unknown, so the check leaves them out. */
  readonly tainted = new Set<string>();
  private inflight = 0;
  private stopped = false;
  private loop?: Promise<void>;
  private readonly keys: KeyState[] = [];
  private readonly pools: Pool[];
  private readonly random: () => number;

  constructor(private readonly opts: WriterOptions) {
    this.random = seeded(opts.seed);
    this.pools = opts.endpoints.map(
      (e) => new Pool(e.url, { connections: 8, headersTimeout: 30_000, bodyTimeout: 30_000 }),
    );
    for (const namespace of opts.namespaces)
      for (let i = 0; i < opts.objectsPerNamespace; i++)
        this.keys.push({
          ref: { namespace, name: objectName(i), labels: labelsOf(i) },
          exists: false,
          rv: 0,
          busy: false,
        });
  }

  /** The object of a soak key (namespace/name), or undefined. */
  refOf(key: string): ObjectRef | undefined {
    const [ns, name] = key.split('/');
    const i = this.opts.namespaces.indexOf(ns!);
    const m = /^cm-(\d+)$/.exec(name ?? '');
    if (i < 0 || !m || Number(m[1]) >= this.opts.objectsPerNamespace) return undefined;
    return this.keys[i * this.opts.objectsPerNamespace + Number(m[1])]!.ref;
  }

  start(): void {
    const t0 = performance.now();
    this.loop = (async () => {
      while (!this.stopped) {
        const due = Math.floor(((performance.now() - t0) / 1000) * this.opts.rate) + 1;
        while (this.sent < due && this.inflight < 256) {
          const k = this.pick();
          if (!k) break;
          this.write(k, this.sent++);
        }
        await sleep(5);
      }
    })();
  }

  /** Stops sending and waits for the writes in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    while (this.inflight > 0) await sleep(10);
    await Promise.all(this.pools.map((p) => p.close()));
  }

  private pick(): KeyState | undefined {
    for (let tries = 0; tries < 16; tries++) {
      const k = this.keys[Math.floor(this.random() * this.keys.length)]!;
      if (!k.busy && !this.tainted.has(`${k.ref.namespace}/${k.ref.name}`)) return k;
    }
    return undefined;
  }

  private write(k: KeyState, seq: number): void {
    const { namespace, name, labels } = k.ref;
    const key = `${namespace}/${name}`;
    const type: AckedWrite['type'] = !k.exists ? 'ADDED' : this.random() < 0.75 ? 'MODIFIED' : 'DELETED';
    const coll = `/api/v1/namespaces/${namespace}/configmaps`;
    const obj = (rv?: number) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace, labels, ...(rv ? { resourceVersion: String(rv) } : {}) },
      data: { seq: String(seq) },
    });
    const [method, path, body, ok] =
      type === 'ADDED'
        ? ['POST', coll, obj(), 201]
        : type === 'MODIFIED'
          ? ['PUT', `${coll}/${name}`, obj(k.rv), 200]
          : [
              'DELETE',
              `${coll}/${name}`,
              { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: String(k.rv) } },
              200,
            ];
    const e = this.opts.endpoints[seq % this.opts.endpoints.length]!;
    k.busy = true;
    this.inflight++;
    this.pools[seq % this.pools.length]!.request({
      method: method as 'POST',
      path,
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
      .then(async (r) => {
        const text = await r.body.text();
        if (r.statusCode !== ok)
          throw new Error(`${method} ${path} answered ${r.statusCode}: ${text.slice(0, 200)}`);
        if (type === 'DELETED') {
          k.lastDelete = this.acked.length;
          this.acked.push({ type, key, ref: k.ref, after: k.rv });
          k.exists = false;
          return;
        }
        const rv = Number(JSON.parse(text).metadata?.resourceVersion);
        if (!Number.isSafeInteger(rv)) throw new Error(`${method} ${path}: no resourceVersion in the answer`);
        if (type === 'ADDED' && k.lastDelete !== undefined) this.acked[k.lastDelete]!.before = rv;
        this.acked.push({ type, key, ref: k.ref, rv });
        k.exists = true;
        k.rv = rv;
      })
      .catch((err: Error) => {
        this.failed++;
        this.tainted.add(key);
        if (this.failures.length < 20) this.failures.push(err.message);
      })
      .finally(() => {
        k.busy = false;
        this.inflight--;
      });
  }
}
