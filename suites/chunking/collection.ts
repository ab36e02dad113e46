// Helpers of the chunking suite: a collection of ConfigMaps in a namespace of its own, and a
// client-side reader of chunked lists that keeps every chunk's metadata for the laws to check.
// A list may hold objects the run did not make (a live cluster's controllers put a root-CA
// ConfigMap into every namespace, at a moment the run cannot know): the laws hold over the
// run's own objects (`OwnObjects`), and where a rule counts items or chunks, over the items the
// chunks themselves hold.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import type { Client } from '../../harness/src/client.ts';
import { configMap, dropNamespace, paths } from '../../harness/src/fixtures.ts';
import { OwnObjects } from '../../harness/src/own-objects.ts';

export interface Obj {
  name: string;
  tier?: 'web' | 'db' | 'cache';
}

/** A DNS-label name; several objects share first letters so the order is not trivial. */
export const nameArb = fc.stringMatching(/^[a-e][a-z0-9]{0,5}$/);
export const objArb: fc.Arbitrary<Obj> = fc.record(
  { name: nameArb, tier: fc.constantFrom('web', 'db', 'cache') as fc.Arbitrary<'web' | 'db' | 'cache'> },
  { requiredKeys: ['name'] },
);
export const objectsArb = (minLength: number, maxLength: number) =>
  fc.uniqueArray(objArb, { minLength, maxLength, selector: (o) => o.name });

export interface Chunk {
  status: number;
  names: string[];
  data: Record<string, string>[];
  rv: unknown;
  continue: string;
  /** metadata.remainingItemCount, undefined when omitted (or null). */
  remaining: unknown;
  metadata: Record<string, unknown>;
}

export interface ListQuery {
  limit?: number;
  labelSelector?: string;
  fieldSelector?: string;
  continue?: string;
  resourceVersion?: string;
}

/**
 * A namespace holding `objs` (data {v: name}, label tier when set) for the time of fn, and the
 * run's own objects (`own`: a name the run writes later is added to it before the write).
 */
export async function withCollection<T>(
  client: Client,
  objs: Obj[],
  fn: (ns: string, own: OwnObjects) => Promise<T>,
): Promise<T> {
  const ns = `chunk-${randomBytes(5).toString('hex')}`;
  const r = await client.post(paths.namespaces(), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  checkStatus(r, 201, undefined, `setup: create namespace ${ns}`);
  const own = new OwnObjects(ns).add(...objs.map((o) => o.name));
  try {
    for (let i = 0; i < objs.length; i += 10) {
      await Promise.all(
        objs.slice(i, i + 10).map(async (o) => {
          const c = await client.post(
            paths.configmaps(ns),
            configMap(o.name, { v: o.name }, o.tier ? { tier: o.tier } : undefined),
          );
          checkStatus(c, 201, undefined, `setup: create ConfigMap ${o.name}`);
        }),
      );
    }
    return await fn(ns, own);
  } finally {
    await dropNamespace(client, ns);
  }
}

export async function listOnce(client: Client, ns: string, q: ListQuery): Promise<Chunk> {
  const r = await client.get(paths.configmaps(ns), { query: { ...q } });
  const metadata = (r.json?.metadata ?? {}) as Record<string, unknown>;
  const items: any[] = r.json?.items ?? [];
  return {
    status: r.status,
    names: items.map((o) => o?.metadata?.name),
    data: items.map((o) => o?.data ?? {}),
    rv: metadata.resourceVersion,
    continue: typeof metadata.continue === 'string' ? metadata.continue : '',
    remaining: metadata.remainingItemCount ?? undefined,
    metadata,
  };
}

/** The complete list (no limit) with the same selectors. */
export async function fullList(
  client: Client,
  ns: string,
  q: Omit<ListQuery, 'limit' | 'continue'> = {},
): Promise<Chunk> {
  const full = await listOnce(client, ns, q);
  check(
    full.status === 200,
    '200 for a complete list',
    `${full.status} ${show(full.metadata)}`,
    'setup: a list without limit',
  );
  return full;
}

/**
 * Reads a paged list as a client does: the same limit (and selectors) with the previous
 * chunk's token until the token is empty. `between(i)` runs after chunk i when more follow.
 */
export async function readChunks(
  client: Client,
  ns: string,
  q: Omit<ListQuery, 'continue'>,
  maxChunks: number,
  between?: (i: number) => Promise<void>,
): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  let token = '';
  do {
    check(
      chunks.length < maxChunks,
      `a paged list ends within ${maxChunks} chunks (at most ceil(items / limit) + 1)`,
      `${chunks.length} chunks so far: ${show(chunks.map((c) => c.names))}`,
      'the client repeats the request until the returned continue is empty',
    );
    if (chunks.length && between) await between(chunks.length - 1);
    const c = await listOnce(client, ns, { ...q, ...(token ? { continue: token } : {}) });
    check(c.status === 200, `200 for chunk ${chunks.length + 1}`, `${c.status} ${show(c.metadata)}`);
    chunks.push(c);
    token = c.continue;
  } while (token);
  return chunks;
}

/** The run's own names among a list's, in the list's order. */
export function ownNames(own: OwnObjects, names: string[]): string[] {
  return names.filter((n) => own.has(n));
}

/**
 * How many chunks a paged read may take before it is taken for one that never ends: as many as
 * the items need (the run's, those of others the complete list showed, and one another writer
 * may add after it was read), and two more.
 */
export function chunkBound(own: number, others: number, limit: number): number {
  return Math.ceil((own + others + 1) / limit) + 2;
}

export function showChunks(chunks: Chunk[]): string {
  return show(
    chunks.map((c) => ({
      names: c.names,
      continue: c.continue ? '<token>' : '',
      remainingItemCount: c.remaining,
      rv: c.rv,
    })),
  );
}
