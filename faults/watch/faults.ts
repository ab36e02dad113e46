// Faults against the watch stream (doc1 § Events, § Watch recovery, § Streaming initial state,
// the watch row of § Resource version semantics), one rule each; suites/watch must catch every
// one. (reorder-watch-events and drop-watch-events live in core.ts.)
import type { FaultHooks, ProxiedRequest, WatchState } from '../proxy.ts';
import { bodyOf } from '../util.ts';

interface Event {
  type: string;
  object: any;
}

/** The event of a stream line, or undefined when it is not one. */
function parse(line: string): Event | undefined {
  try {
    const e = JSON.parse(line);
    return e && typeof e.type === 'string' ? e : undefined;
  } catch {
    return undefined;
  }
}

const isWatch = (r: ProxiedRequest) =>
  r.method === 'GET' &&
  (r.url.searchParams.get('watch') === '1' || r.url.searchParams.get('watch') === 'true');

/** The request with some query parameters removed. */
function without(r: ProxiedRequest, ...drop: string[]): ProxiedRequest {
  const url = new URL(r.url);
  for (const k of drop) url.searchParams.delete(k);
  return { ...r, url };
}

const END_ANNOTATIONS = ['orch.io/initial-events-end', 'k8s.io/initial-events-end'];
const isChange = (e?: Event) => !!e && (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED');
/** A watch that starts with the state (rv unset or 0, or sendInitialEvents=true). */
const getsState = (s: WatchState) => {
  const rv = s.url?.searchParams.get('resourceVersion') ?? '';
  return rv === '' || rv === '0' || s.url?.searchParams.get('sendInitialEvents') === 'true';
};

/** When each watch request reached the proxy (by its URL, which the stream's state keeps). */
const watchOpened = new WeakMap<URL, number>();
/** When the proxy first passed on each resource version, for watch-history-skipped. */
const firstPassed = new Map<string, number>();

/** The versions of the lists of the concurrent-writes law's rooms (its watches start there). */
const roomListVersions = new Set<string>();
/** The room namespace of a path (`/api/v1/namespaces/<ns>/...`). */
const roomOf = (path: string | undefined) => /^\/api\/v1\/namespaces\/([^/]+)\//.exec(path ?? '')?.[1] ?? '';

/** A watch-list stream (sendInitialEvents=true) whose initial events end with a BOOKMARK. */
const initialWithBookmark = (s: WatchState) =>
  s.url?.searchParams.get('sendInitialEvents') === 'true' &&
  s.url?.searchParams.get('allowWatchBookmarks') === 'true';

/** The newest resource version the proxy passed on (in answers other than watches). */
let newestSeen = 0n;
/** Writes refused with 409 for a stale version: their collection, and the object they asked for. */
const refusedWrites: { collection: string; object: any; at: number }[] = [];

/** When the proxy first passed on each resource version (in an answer other than a watch). */
const versionSeen = new Map<string, number>();

export const HOOKS: FaultHooks[] = [
  {
    name: 'duplicate-watch-event',
    watch: (s, line) => {
      const e = parse(line);
      if (s.duped || !(e?.type === 'MODIFIED' || e?.type === 'DELETED')) return [line];
      s.duped = true;
      return [line, line];
    },
  },
  {
    name: 'deleted-as-modified',
    watch: (_s, line) => {
      const e = parse(line);
      return e?.type === 'DELETED' ? [JSON.stringify({ ...e, type: 'MODIFIED' })] : [line];
    },
  },
  {
    name: 'modified-as-added',
    watch: (_s, line) => {
      const e = parse(line);
      return e?.type === 'MODIFIED' ? [JSON.stringify({ ...e, type: 'ADDED' })] : [line];
    },
  },
  {
    name: 'deleted-object-emptied',
    watch: (_s, line) => {
      const e = parse(line);
      if (e?.type !== 'DELETED' || !e.object?.data) return [line];
      const { data: _drop, ...object } = e.object;
      return [JSON.stringify({ ...e, object })];
    },
  },
  {
    name: 'partial-initial-state',
    watch: (s, line) => {
      const e = parse(line);
      if (!getsState(s) || s.live) return [line];
      if (e?.type !== 'ADDED') {
        s.live = true;
        return [line];
      }
      s.added = ((s.added as number) ?? 0) + 1;
      return s.added === 1 ? [line] : [];
    },
  },
  {
    name: 'unrequested-bookmarks',
    watch: (s, line) => {
      const e = parse(line);
      if (!isChange(e) || s.url?.searchParams.get('allowWatchBookmarks') === 'true') return [line];
      const o = e!.object ?? {};
      const bookmark = {
        type: 'BOOKMARK',
        object: {
          kind: o.kind,
          apiVersion: o.apiVersion,
          metadata: { resourceVersion: o.metadata?.resourceVersion },
        },
      };
      return [line, JSON.stringify(bookmark)];
    },
  },
  {
    name: 'end-watch-early',
    watch: (s, line) => {
      if (s.n >= 1) s.end = true;
      return [line];
    },
  },
  {
    name: 'event-version-off-by-one',
    watch: (_s, line) => {
      const e = parse(line);
      const rv = e?.object?.metadata?.resourceVersion;
      if (e?.type !== 'MODIFIED' || typeof rv !== 'string') return [line];
      const changed = /^\d+$/.test(rv) ? String(Number(rv) - 1) : `${rv}0`;
      return [
        JSON.stringify({
          ...e,
          object: { ...e.object, metadata: { ...e.object.metadata, resourceVersion: changed } },
        }),
      ];
    },
  },
  {
    name: 'expired-watch-silent',
    watch: (_s, line) => (parse(line)?.type === 'ERROR' ? [] : [line]),
  },
  {
    name: 'watch-ignores-label-selector',
    request: (r) => (isWatch(r) && r.url.searchParams.has('labelSelector') ? without(r, 'labelSelector') : r),
  },
  {
    name: 'watch-ignores-field-selector',
    request: (r) => (isWatch(r) && r.url.searchParams.has('fieldSelector') ? without(r, 'fieldSelector') : r),
  },
  {
    name: 'resource-path-watch-widened',
    request: (r) => {
      const m = /^(.*\/namespaces\/[^/]+\/[^/]+)\/[^/]+$/.exec(r.url.pathname);
      if (!isWatch(r) || !m) return r;
      const url = new URL(r.url);
      url.pathname = m[1]!;
      return { ...r, url };
    },
  },
  {
    name: 'watch-ignores-timeout',
    request: (r) =>
      isWatch(r) && r.url.searchParams.has('timeoutSeconds') ? without(r, 'timeoutSeconds') : r,
  },
  {
    name: 'strip-initial-events-end',
    watch: (_s, line) => {
      const e = parse(line);
      const ann = e?.object?.metadata?.annotations;
      if (e?.type !== 'BOOKMARK' || !ann) return [line];
      const rest = Object.fromEntries(Object.entries(ann).filter(([k]) => !END_ANNOTATIONS.includes(k)));
      const metadata = { ...e.object.metadata, annotations: Object.keys(rest).length ? rest : undefined };
      return [JSON.stringify({ ...e, object: { ...e.object, metadata } })];
    },
  },
  {
    name: 'initial-bookmark-first',
    watch: (s, line) => {
      if (s.url?.searchParams.get('sendInitialEvents') !== 'true' || s.released) return [line];
      const e = parse(line);
      const held = (s.addedHeld as string[] | undefined) ?? [];
      if (e?.type === 'ADDED') {
        s.addedHeld = [...held, line];
        return [];
      }
      s.released = true;
      return e?.type === 'BOOKMARK' ? [line, ...held] : [...held, line];
    },
  },
  {
    name: 'bookmark-carries-fields',
    watch: (_s, line) => {
      const e = parse(line);
      if (e?.type !== 'BOOKMARK') return [line];
      return [JSON.stringify({ ...e, object: { ...e.object, data: { leaked: 'x' } } })];
    },
  },
  {
    name: 'history-under-a-second',
    response: (_r, res) => {
      const rv = res.status < 300 ? bodyOf(res.body)?.metadata?.resourceVersion : undefined;
      if (typeof rv === 'string' && rv && !versionSeen.has(rv)) versionSeen.set(rv, Date.now());
      return res;
    },
    watch: (s, line) => {
      if (s.n > 0) return [line];
      const rv = s.url?.searchParams.get('resourceVersion') ?? '';
      const seen = versionSeen.get(rv);
      if (seen === undefined || Date.now() - seen <= 900) return [line];
      s.end = true;
      return [
        JSON.stringify({
          type: 'ERROR',
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: `too old resource version: ${rv}`,
            reason: 'Expired',
            code: 410,
          },
        }),
      ];
    },
  },
  {
    name: 'added-event-other-object',
    watch: (_s, line) => {
      const e = parse(line);
      if (e?.type !== 'ADDED' || typeof e.object?.metadata?.uid !== 'string') return [line];
      const uid = [...e.object.metadata.uid].reverse().join('');
      return [JSON.stringify({ ...e, object: { ...e.object, metadata: { ...e.object.metadata, uid } } })];
    },
  },
  {
    name: 'refused-write-streamed',
    response: (r, res) => {
      if (r.method === 'PUT' && res.status === 409) {
        try {
          const object = JSON.parse(r.body.toString('utf8'));
          const collection = r.url.pathname.replace(/\/[^/]+$/, '');
          refusedWrites.push({ collection, object, at: Date.now() });
        } catch {
          // not a JSON body
        }
      }
      return res;
    },
    request: (r) => {
      if (isWatch(r)) watchOpened.set(r.url, Date.now());
      return r;
    },
    watch: (s, line) => {
      const started = (s.url && watchOpened.get(s.url)) ?? Date.now();
      const sent = (s.sentRefused as number | undefined) ?? 0;
      const due = refusedWrites.filter((w) => w.collection === s.url?.pathname && w.at >= started);
      if (due.length <= sent) return [line];
      s.sentRefused = due.length;
      return [...due.slice(sent).map((w) => JSON.stringify({ type: 'MODIFIED', object: w.object })), line];
    },
  },
  {
    name: 'cluster-scoped-watch-silent',
    watch: (s, line) => (s.url?.pathname === '/api/v1/namespaces' && isChange(parse(line)) ? [] : [line]),
  },
  {
    name: 'all-namespaces-watch-drops-modified',
    watch: (s, line) =>
      /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/[^/]+$/.test(s.url?.pathname ?? '') &&
      !s.url?.pathname.includes('/namespaces') &&
      parse(line)?.type === 'MODIFIED'
        ? []
        : [line],
  },
  {
    name: 'watch-object-envelope-dropped',
    watch: (_s, line) => {
      const e = parse(line);
      if (!isChange(e) || !e!.object) return [line];
      const { kind: _k, apiVersion: _a, ...object } = e!.object;
      return [JSON.stringify({ ...e, object })];
    },
  },
  {
    name: 'watch-history-skipped',
    response: (_r, res) => {
      try {
        const rv = JSON.parse(res.body.toString('utf8'))?.metadata?.resourceVersion;
        if (typeof rv === 'string' && /^\d+$/.test(rv)) {
          if (BigInt(rv) > newestSeen) newestSeen = BigInt(rv);
          if (!firstPassed.has(rv)) firstPassed.set(rv, Date.now());
        }
      } catch {
        // not JSON
      }
      return res;
    },
    request: (r) => {
      const rv = isWatch(r) ? (r.url.searchParams.get('resourceVersion') ?? '') : '';
      // narrowed: only a version the proxy passed on in the last 3 s (an expired or unknown one is
      // another rule's)
      const seen = firstPassed.get(rv);
      if (!/^\d+$/.test(rv) || rv === '0' || BigInt(rv) >= newestSeen || !seen || Date.now() - seen > 3000)
        return r;
      const url = new URL(r.url);
      url.searchParams.set('resourceVersion', String(newestSeen));
      return { ...r, url };
    },
  },
  {
    name: 'relist-misses-newest',
    response: (r, res) => {
      const ns = roomOf(r.url.pathname);
      if (
        r.method !== 'GET' ||
        !/^(wrel|wgone)-/.test(ns) ||
        r.url.pathname !== `/api/v1/namespaces/${ns}/configmaps` ||
        r.url.search
      )
        return res;
      try {
        const j = JSON.parse(res.body.toString('utf8'));
        const items: any[] = j?.items ?? [];
        if (!items.length) return res;
        const rv = (o: any) =>
          BigInt(/^\d+$/.test(o?.metadata?.resourceVersion ?? '') ? o.metadata.resourceVersion : '0');
        const newest = items.reduce((a, b) => (rv(b) > rv(a) ? b : a));
        return {
          ...res,
          body: Buffer.from(JSON.stringify({ ...j, items: items.filter((o) => o !== newest) })),
        };
      } catch {
        return res;
      }
    },
  },
  {
    name: 'concurrent-restart-skips-first',
    response: (r, res) => {
      if (r.method === 'GET' && /^wcon-/.test(roomOf(r.url.pathname)) && !r.url.searchParams.has('watch'))
        try {
          const rv = JSON.parse(res.body.toString('utf8'))?.metadata?.resourceVersion;
          if (typeof rv === 'string') roomListVersions.add(rv);
        } catch {
          // not JSON
        }
      return res;
    },
    watch: (s, line) => {
      const rv = s.url?.searchParams.get('resourceVersion') ?? '';
      if (!/^wcon-/.test(roomOf(s.url?.pathname)) || !rv || roomListVersions.has(rv) || s.skipped)
        return [line];
      if (!isChange(parse(line))) return [line];
      s.skipped = true;
      return [];
    },
  },
  {
    name: 'initial-events-miss-newest',
    // only a stream whose initial events end with a BOOKMARK (allowWatchBookmarks=true) is held
    watch: (s, line) => {
      if (!initialWithBookmark(s) || s.synced) return [line];
      const e = parse(line);
      const initial = (s.initial as string[] | undefined) ?? [];
      s.initial = initial;
      if (e?.type === 'ADDED') {
        initial.push(line);
        return [];
      }
      if (e?.type !== 'BOOKMARK') return [line];
      s.synced = true;
      const rv = (l: string) => {
        const v = parse(l)?.object?.metadata?.resourceVersion;
        return typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : 0n;
      };
      const newest = initial.reduce<string | undefined>(
        (a, b) => (a === undefined || rv(b) > rv(a) ? b : a),
        undefined,
      );
      return [...initial.filter((l) => l !== newest), line];
    },
  },
  {
    name: 'initial-bookmark-version-behind',
    // the version just before the newest object of the state was written
    watch: (s, line) => {
      if (!initialWithBookmark(s) || s.synced) return [line];
      const e = parse(line);
      const v = e?.object?.metadata?.resourceVersion;
      const n = typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : 0n;
      if (e?.type === 'ADDED') {
        if (n > ((s.newest as bigint | undefined) ?? 0n)) s.newest = n;
        return [line];
      }
      if (e?.type !== 'BOOKMARK') return [line];
      s.synced = true;
      const newest = (s.newest as bigint | undefined) ?? 0n;
      if (newest < 2n) return [line];
      const metadata = { ...e.object.metadata, resourceVersion: String(newest - 1n) };
      return [JSON.stringify({ ...e, object: { ...e.object, metadata } })];
    },
  },
];
