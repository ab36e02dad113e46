// Faults against doc1 § Resource version semantics (the get, watch and list tables), one rule
// each; suites/resource-versions must catch every one.
import type { FaultHooks, ProxiedRequest, ProxiedResponse, Upstream } from '../proxy.ts';
import { bodyOf, mapJson } from '../util.ts';

const isRead = (r: ProxiedRequest) => r.method === 'GET' && !r.url.searchParams.has('watch');
const isWatch = (r: ProxiedRequest) =>
  r.method === 'GET' &&
  (r.url.searchParams.get('watch') === '1' || r.url.searchParams.get('watch') === 'true');
const nonZeroRv = (r: ProxiedRequest) => {
  const rv = r.url.searchParams.get('resourceVersion');
  return rv !== null && rv !== '' && rv !== '0';
};

/** The request with some query parameters removed or set. */
function withQuery(r: ProxiedRequest, drop: string[], set: Record<string, string> = {}): ProxiedRequest {
  const url = new URL(r.url);
  for (const k of drop) url.searchParams.delete(k);
  for (const [k, v] of Object.entries(set)) url.searchParams.set(k, v);
  return { ...r, url };
}

/** A namespaced collection path and an object path below it (`/api/v1/namespaces/x/configmaps[/name]`). */
const COLLECTION = /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)\/namespaces\/[^/]+\/[^/]+$/;
const OBJECT = /^((?:\/api\/v1|\/apis\/[^/]+\/[^/]+)\/namespaces\/[^/]+\/[^/]+)\/([^/]+)$/;

/** The versions of the writes seen to each collection (not-older-than-served-older), in order. */
const writesTo = new Map<string, bigint[]>();
/** The newest version any answer named (not-older-than-served-older). */
let newestSeen = 0n;

/** The version before a decimal one ('' when it is none). */
const before = (rv: unknown) =>
  typeof rv === 'string' && /^\d+$/.test(rv) && BigInt(rv) > 1n ? String(BigInt(rv) - 1n) : '';

/**
 * The object at a path as it was at a version: read from an Exact list of its collection
 * selected by name (`undefined`: the read failed; `null`: the object did not exist then).
 */
async function objectAt(r: ProxiedRequest, up: Upstream, rv: string): Promise<unknown> {
  const m = OBJECT.exec(r.url.pathname);
  if (!m) return undefined;
  const url = new URL(m[1]!, r.url);
  url.searchParams.set('resourceVersion', rv);
  url.searchParams.set('resourceVersionMatch', 'Exact');
  url.searchParams.set('fieldSelector', `metadata.name=${decodeURIComponent(m[2]!)}`);
  const l = await up.send({ ...r, url });
  if (l.status !== 200) return undefined;
  const j = bodyOf(l.body);
  const item = (j?.items ?? [])[0];
  if (!item) return null;
  const kind = String(j.kind ?? '').replace(/List$/, '');
  return { kind, apiVersion: j.apiVersion, ...item };
}

/** An object answer made of an object read at an older version (404 when it did not exist then). */
function answerWith(res: ProxiedResponse, o: unknown): ProxiedResponse {
  if (o === undefined) return res;
  if (o === null)
    return {
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          reason: 'NotFound',
          message: 'not found',
          code: 404,
        }),
      ),
    };
  return { ...res, body: Buffer.from(JSON.stringify(o)) };
}

/** The newest resourceVersion among a list's items ('' when none is a decimal). */
function newestItem(j: any): string {
  let n = 0n;
  for (const o of j?.items ?? []) {
    const v = o?.metadata?.resourceVersion;
    if (typeof v === 'string' && /^\d+$/.test(v) && BigInt(v) > n) n = BigInt(v);
  }
  return n > 0n ? String(n) : '';
}

/** Collections whose last request through the proxy was a list without parameters, with no write since. */
const justListed = new Set<string>();

/** Continue tokens of first chunks read without a version: what the chunk ended with, its version, its limit. */
const chunkEnds = new Map<string, { after: string; rv: string }>();
/** Continued lists the proxy answers from the current collection (sent upstream as a list of all). */
const continuedFrom = new WeakMap<ProxiedRequest, { after: string; rv: string; limit: number }>();
let minted = 0;

export const HOOKS: FaultHooks[] = [
  {
    name: 'get-unset-served-stale',
    response: async (r, res, up) => {
      if (!isRead(r) || r.url.searchParams.has('resourceVersion') || res.status !== 200) return res;
      if (!OBJECT.exec(r.url.pathname) || COLLECTION.test(r.url.pathname)) return res;
      const prev = before(bodyOf(res.body)?.metadata?.resourceVersion);
      return prev ? answerWith(res, await objectAt(r, up, prev)) : res;
    },
  },
  {
    name: 'get-rv-served-older',
    // the object's own version at the requested one, not the requested one less one: other
    // namespaces' writes (the suite's other cases, other faults' runs) move the global version
    response: async (r, res, up) => {
      if (!isRead(r) || !nonZeroRv(r) || res.status !== 200) return res;
      if (!OBJECT.exec(r.url.pathname) || COLLECTION.test(r.url.pathname)) return res;
      const then = await objectAt(r, up, r.url.searchParams.get('resourceVersion')!);
      const prev = before((then as any)?.metadata?.resourceVersion);
      return prev ? answerWith(res, await objectAt(r, up, prev)) : res;
    },
  },
  {
    name: 'list-rv-unset-match-served-older',
    response: async (r, res, up) => {
      const q = r.url.searchParams;
      if (
        !isRead(r) ||
        !COLLECTION.test(r.url.pathname) ||
        !nonZeroRv(r) ||
        q.has('resourceVersionMatch') ||
        q.has('limit') ||
        q.has('continue') ||
        res.status !== 200
      )
        return res;
      const then = await up.send(withQuery(r, [], { resourceVersionMatch: 'Exact' }));
      const prev = then.status === 200 ? before(newestItem(bodyOf(then.body))) : '';
      if (!prev) return res;
      const older = await up.send(withQuery(r, [], { resourceVersion: prev, resourceVersionMatch: 'Exact' }));
      return older.status === 200 ? older : res;
    },
  },
  {
    name: 'most-recent-list-served-stale',
    // the setup of every row marks versions with a list without parameters right after its
    // writes: that read is left alone, the row's own read after it is the stale one
    request: (r) => {
      const path = r.url.pathname;
      if (r.method !== 'GET') {
        for (const c of justListed) if (path.startsWith(c)) justListed.delete(c);
        const col = OBJECT.exec(path)?.[1] ?? path;
        justListed.delete(col);
      }
      return r;
    },
    response: async (r, res, up) => {
      const path = r.url.pathname;
      if (!isRead(r) || !COLLECTION.test(path) || res.status !== 200) return res;
      const q = r.url.searchParams;
      if ([...q.keys()].length === 0 && !justListed.has(path)) {
        justListed.add(path);
        return res;
      }
      if (!justListed.has(path)) return res;
      justListed.delete(path);
      if (q.has('resourceVersion') || q.has('resourceVersionMatch') || q.has('continue')) return res;
      // before the collection's newest write (not its version less one: other namespaces' writes
      // move the global version)
      const fresh = withQuery(r, ['limit']);
      const all = q.has('limit') ? await up.send(fresh) : res;
      const prev = all.status === 200 ? before(newestItem(bodyOf(all.body))) : '';
      if (!prev) return res;
      const stale = await up.send(withQuery(r, [], { resourceVersion: prev, resourceVersionMatch: 'Exact' }));
      return stale.status === 200 ? stale : res;
    },
  },
  {
    name: 'continue-served-current',
    request: (r) => {
      const q = r.url.searchParams;
      const token = q.get('continue');
      const end = token ? chunkEnds.get(token) : undefined;
      const rv = q.get('resourceVersion');
      if (!isRead(r) || !end || (rv !== null && rv !== '' && rv !== '0') || q.has('resourceVersionMatch'))
        return r;
      const read = withQuery(r, ['continue', 'limit', 'resourceVersion']);
      continuedFrom.set(read, { ...end, limit: Number(q.get('limit')) || 0 });
      return read;
    },
    response: (r, res) => {
      const q = r.url.searchParams;
      const from = continuedFrom.get(r);
      if (from) {
        if (res.status !== 200) return res;
        return mapJson(res, (j) => {
          const name = (o: any) => String(o?.metadata?.name ?? '');
          const rest = [...(j?.items ?? [])]
            .filter((o) => name(o) > from.after)
            .sort((a, b) => (name(a) < name(b) ? -1 : 1));
          const items = from.limit ? rest.slice(0, from.limit) : rest;
          const metadata: Record<string, unknown> = { ...(j?.metadata ?? {}), resourceVersion: from.rv };
          delete metadata.continue;
          delete metadata.remainingItemCount;
          if (items.length < rest.length) {
            const token = `proxy-${++minted}`;
            chunkEnds.set(token, { after: name(items[items.length - 1]), rv: from.rv });
            metadata.continue = token;
          }
          return { ...j, metadata, items };
        });
      }
      // a first chunk read without a version: remember where its token goes on from
      if (!isRead(r) || res.status !== 200 || !q.has('limit') || q.has('continue')) return res;
      if (q.has('resourceVersion') || q.has('resourceVersionMatch')) return res;
      const j = bodyOf(res.body);
      const token = j?.metadata?.continue;
      const items = j?.items ?? [];
      if (typeof token === 'string' && token && items.length)
        chunkEnds.set(token, {
          after: String(items[items.length - 1]?.metadata?.name ?? ''),
          rv: String(j.metadata.resourceVersion ?? ''),
        });
      return res;
    },
  },
  {
    name: 'exact-list-served-current',
    // narrowed: a continued request is left alone (dropping its resourceVersionMatch made the
    // invalid continue+Exact combination valid, which is another rule's case)
    request: (r) =>
      isRead(r) &&
      r.url.searchParams.get('resourceVersionMatch') === 'Exact' &&
      nonZeroRv(r) &&
      !r.url.searchParams.has('continue')
        ? withQuery(r, ['resourceVersion', 'resourceVersionMatch'])
        : r,
  },
  {
    name: 'paged-list-ignores-rv',
    request: (r) =>
      isRead(r) &&
      r.url.searchParams.has('limit') &&
      !r.url.searchParams.has('resourceVersionMatch') &&
      !r.url.searchParams.has('continue') &&
      nonZeroRv(r)
        ? withQuery(r, ['resourceVersion'])
        : r,
  },
  {
    name: 'exact-list-names-other-version',
    response: (r, res) =>
      isRead(r) && r.url.searchParams.get('resourceVersionMatch') === 'Exact' && res.status === 200
        ? mapJson(res, (j) =>
            j?.metadata?.resourceVersion
              ? { ...j, metadata: { ...j.metadata, resourceVersion: `${j.metadata.resourceVersion}1` } }
              : j,
          )
        : res,
  },
  {
    name: 'not-older-than-served-older',
    // answered Exact at the version just before the last write to the collection that the
    // requested version covers: a collection older than the one asked for whatever else the
    // target wrote meanwhile (a fixed step back could land on another client's write); a version
    // the target has not yet reached (no answer named it) is left to be refused
    request: (r) => {
      const rv = r.url.searchParams.get('resourceVersion') ?? '';
      if (
        !isRead(r) ||
        r.url.searchParams.get('resourceVersionMatch') !== 'NotOlderThan' ||
        !/^\d+$/.test(rv) ||
        BigInt(rv) > newestSeen
      )
        return r;
      const last = (writesTo.get(r.url.pathname) ?? []).reduce<bigint | undefined>(
        (m, w) => (w <= BigInt(rv) && (m === undefined || w > m) ? w : m),
        undefined,
      );
      if (last === undefined) return r;
      return withQuery(r, [], { resourceVersion: before(String(last)), resourceVersionMatch: 'Exact' });
    },
    response: (r, res) => {
      const collection =
        OBJECT.exec(r.url.pathname)?.[1] ?? (COLLECTION.test(r.url.pathname) ? r.url.pathname : '');
      const rv = res.status < 300 ? bodyOf(res.body)?.metadata?.resourceVersion : undefined;
      if (typeof rv !== 'string' || !/^\d+$/.test(rv)) return res;
      if (BigInt(rv) > newestSeen) newestSeen = BigInt(rv);
      if (collection && r.method !== 'GET')
        writesTo.set(collection, [...(writesTo.get(collection) ?? []), BigInt(rv)]);
      return res;
    },
  },
  {
    name: 'future-rv-served',
    response: (r, res, up) =>
      isRead(r) && res.status === 504
        ? up.send(withQuery(r, ['resourceVersion', 'resourceVersionMatch']))
        : res,
  },
  {
    name: 'too-large-as-500',
    response: (_r, res) => {
      if (res.status !== 504) return res;
      const headers = { ...res.headers };
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'retry-after') delete headers[k];
      return { ...res, status: 500, headers };
    },
  },
  {
    name: 'invalid-list-options-accepted',
    response: (r, res, up) =>
      isRead(r) && res.status === 422 ? up.send(withQuery(r, ['resourceVersionMatch'])) : res,
  },
  {
    name: 'continue-with-rv-accepted',
    request: (r) =>
      isRead(r) && r.url.searchParams.has('continue') && nonZeroRv(r) ? withQuery(r, ['resourceVersion']) : r,
  },
  {
    name: 'expired-exact-list-served',
    response: (r, res, up) =>
      isRead(r) && res.status === 410 && nonZeroRv(r)
        ? up.send(withQuery(r, ['resourceVersion', 'resourceVersionMatch']))
        : res,
  },
  {
    name: 'expired-watch-wrong-code',
    watch: (_s, line) => {
      if (!line.includes('"ERROR"')) return [line];
      try {
        const e = JSON.parse(line);
        if (e?.object?.code !== 410) return [line];
        return [JSON.stringify({ ...e, object: { ...e.object, code: 500, reason: 'InternalError' } })];
      } catch {
        return [line];
      }
    },
  },
  {
    name: 'watch-exact-sends-initial-state',
    request: (r) => (isWatch(r) && nonZeroRv(r) ? withQuery(r, ['resourceVersion']) : r),
  },
  {
    name: 'watch-drops-initial-state',
    // the ADDED events before the first other event of a stream are the synthetic ones
    watch: (s, line) => {
      if (!s.live && line.includes('"ADDED"')) return [];
      if (line.trim()) s.live = true;
      return [line];
    },
  },
];
