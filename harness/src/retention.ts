// A resource version the target no longer retains, for the cases that check the 410 of doc1
// § Errors ("Watch or Exact list at a version no longer retained").
//
// Declared history window (ORCH_HISTORY_SECONDS, or an embedded server's): the case REQUIRES
// a 410. When the target already answers 410 for version "1" (asked as the case will ask),
// that is the version; otherwise the harness makes a version of its own (a write, then a
// later write that supersedes it) and waits out the window. Either way the case never skips,
// so no answer of the target can hide a broken 410.
//
// Undeclared: the oldest version a numbering server can have issued, "1", asked the way the
// case itself will ask (a watch from it, an Exact list at it, a paged list at it): these are
// retained differently (a kube-apiserver serves watches from its watch cache, a few minutes,
// and Exact or paged lists from etcd, until compaction). The case skips only on proof that
// the version is still served: the watch streams the changes since it, or the list answers
// the collection at exactly that version. Any other answer (410, an error, a 200 that is not
// such a list) runs the case, whose checks then judge it, so a fault that breaks the 410 is
// reported as a failure, never hidden as "still retained".
import { randomBytes } from 'node:crypto';
import type { Client } from './client.ts';
import { configMap, dropNamespace, paths } from './fixtures.ts';
import { OwnObjects } from './own-objects.ts';
import { DECLARE_ENV, MAX_WAIT_SECONDS, type NamedTarget } from './targets.ts';
import { WatchStream } from './watch.ts';

/** How the case will use the version. */
export type ExpiryUse = 'watch' | 'exact-list' | 'paged-list';

/** Seconds added to a declared window before a version is taken as gone (clocks, trimming). */
export const HISTORY_MARGIN_SECONDS = 2;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A scratch namespace for the harness's own writes; removed afterwards. */
async function scratch<T>(client: Client, fn: (ns: string) => Promise<T>): Promise<T> {
  const ns = `rv-probe-${randomBytes(4).toString('hex')}`;
  const r = await client.post(paths.namespaces(), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  if (r.status !== 201) throw new Error(`setup: create namespace ${ns}: ${r.describe()}`);
  try {
    return await fn(ns);
  } finally {
    await dropNamespace(client, ns);
  }
}

interface Superseded {
  rv: string;
  /** When the write that superseded it was acknowledged (ms since the epoch, local clock). */
  at: number;
}

const superseded = new WeakMap<Client, Promise<Superseded>>();

/** A version of the harness's own, superseded by a later write (one per client per worker). */
function supersededVersion(client: Client): Promise<Superseded> {
  let p = superseded.get(client);
  if (!p) {
    p = scratch(client, async (ns) => {
      const c = await client.post(paths.configmaps(ns), configMap('aged', { v: '0' }));
      if (c.status !== 201) throw new Error(`setup: create ConfigMap aged: ${c.describe()}`);
      const rv = c.json?.metadata?.resourceVersion;
      if (typeof rv !== 'string' || rv === '')
        throw new Error(`setup: the created ConfigMap has no resourceVersion: ${c.describe()}`);
      const u = await client.patch(
        paths.configmap(ns, 'aged'),
        { data: { v: '1' } },
        'application/merge-patch+json',
      );
      if (u.status !== 200) throw new Error(`setup: change ConfigMap aged: ${u.describe()}`);
      return { rv, at: Date.now() };
    });
    superseded.set(client, p);
  }
  return p;
}

const probes = new WeakMap<Client, Map<ExpiryUse, Promise<string | undefined>>>();

/**
 * Proof that version "1" is still served for this use (a sentence for the skip reason), or
 * undefined when the target gave none.
 */
function stillServed(client: Client, use: ExpiryUse): Promise<string | undefined> {
  let m = probes.get(client);
  if (!m) probes.set(client, (m = new Map()));
  let p = m.get(use);
  if (!p) {
    p = scratch(client, async (ns) => {
      const c = await client.post(paths.configmaps(ns), configMap('probe', { v: '0' }));
      if (c.status !== 201) throw new Error(`setup: create ConfigMap probe: ${c.describe()}`);
      if (use === 'watch') {
        const w = await WatchStream.open(client, {
          path: paths.configmaps(ns),
          query: { resourceVersion: '1', timeoutSeconds: 5 },
        });
        try {
          if (w.status !== 200) return undefined;
          // a watch from a retained version streams the changes since it: the probe's create.
          // The namespace's other objects (a live cluster's root-CA ConfigMap) are passed over.
          const own = new OwnObjects(ns).add('probe');
          for (let i = 0; i < 10; i++) {
            const e = await w.next(3_000).catch(() => undefined);
            if (!e) return undefined;
            if (e.type === 'BOOKMARK' || !own.events([e]).length) continue;
            return e.type === 'ADDED' && own.owns(e.object)
              ? 'a watch from it streamed the changes since it (ADDED probe)'
              : undefined;
          }
          return undefined;
        } finally {
          w.close();
        }
      }
      const query =
        use === 'exact-list'
          ? { resourceVersion: '1', resourceVersionMatch: 'Exact' }
          : { resourceVersion: '1', limit: 2 };
      const r = await client.get(paths.configmaps(ns), { query });
      // the collection at version "1": the namespace did not exist yet, so no items
      const atOne =
        r.status === 200 &&
        r.json?.kind === 'ConfigMapList' &&
        r.json?.metadata?.resourceVersion === '1' &&
        Array.isArray(r.json?.items) &&
        r.json.items.length === 0;
      return atOne
        ? `${use === 'exact-list' ? 'an Exact list' : 'a paged list (limit=2)'} at it answered 200 with the collection at version "1"`
        : undefined;
    });
    m.set(use, p);
  }
  return p;
}

const gone = new WeakMap<Client, Set<ExpiryUse>>();

/** The target answers 410 for version "1" asked this way (a sure answer, so it is kept). */
async function goneAlready(client: Client, use: ExpiryUse): Promise<boolean> {
  let known = gone.get(client);
  if (!known) gone.set(client, (known = new Set()));
  if (known.has(use)) return true;
  const path = paths.configmaps('default');
  let is410 = false;
  if (use === 'watch') {
    const w = await WatchStream.open(client, { path, query: { resourceVersion: '1', timeoutSeconds: 5 } });
    try {
      if (w.status === 410) is410 = true;
      else if (w.status === 200) {
        const e = await w.next(3_000).catch(() => undefined);
        is410 = e?.object?.kind === 'Status' && e.object.code === 410;
      }
    } finally {
      w.close();
    }
  } else {
    const query =
      use === 'exact-list'
        ? { resourceVersion: '1', resourceVersionMatch: 'Exact' }
        : { resourceVersion: '1', limit: 2 };
    is410 = (await client.get(path, { query })).status === 410;
  }
  if (is410) known.add(use);
  return is410;
}

function howToRun(use: ExpiryUse): string {
  const k8s =
    use === 'watch'
      ? 'a kube-apiserver serves watches from its watch cache, which keeps a few minutes of changes'
      : 'a kube-apiserver serves Exact and paged lists from etcd, which keeps every revision until it compacts (--etcd-compaction-interval, default 5m)';
  return (
    `To run it, declare the target's history window with ${DECLARE_ENV.historySeconds}=N (N <= ${MAX_WAIT_SECONDS}; ` +
    `versions superseded more than N seconds ago must then answer 410), or run the suite once the target has let version "1" go (${k8s}; doc1: 5 minutes of history by default)`
  );
}

/**
 * A version the target no longer retains, for a case that will use it as `use` says. Skips
 * (through `skip`) only on an undeclared target that proves it still serves "1".
 */
export async function expiredVersion(
  t: { client: Client; target: NamedTarget; skip(reason: string): never },
  use: ExpiryUse,
): Promise<string> {
  const window = t.target.declared.historySeconds;
  if (window !== undefined) {
    if (await goneAlready(t.client, use)) return '1';
    const v = await supersededVersion(t.client);
    const wait = v.at + (window + HISTORY_MARGIN_SECONDS) * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    return v.rv;
  }
  const proof = await stillServed(t.client, use);
  if (proof)
    t.skip(
      `needs a resource version older than the target's retained history; the oldest candidate, "1", is still served (${proof}). ${howToRun(use)}`,
    );
  return '1';
}

/**
 * How long (seconds) a case may wait and stay well inside a retention window: a third of the
 * declared window (`declared`, the value of ORCH_HISTORY_SECONDS or ORCH_CONTINUE_TTL_SECONDS),
 * at most one second, which any server's default keeps.
 */
export function waitInsideWindow(declared: string | undefined): number {
  const s = Number(declared);
  return Number.isFinite(s) && s > 0 ? Math.min(1, s / 3) : 1;
}
