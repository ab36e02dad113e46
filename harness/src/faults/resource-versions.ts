// Faults against doc1 § Resource version semantics (the get, watch and list tables), one rule
// each; suites/resource-versions must catch every one.
import type { Fault, ProxiedRequest } from '../fault-proxy.ts';
import { mapJson } from './util.ts';

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

export const RESOURCE_VERSION_FAULTS: Fault[] = [
  {
    name: 'exact-list-served-current',
    breaks:
      'doc1 § Resource version semantics: resourceVersionMatch=Exact, rv=other is Exact (an Exact list at a past version gets the current collection)',
    area: 'resource-versions',
    catchers: ['resource-versions/list/exact/no-limit/rv-past', 'resource-versions/list/exact/limit/rv-past'],
    // the expired row reads an Exact list too: served the current state, it answers 200 where 410 is due
    alsoFails: ['resource-versions/list/exact/no-limit/rv-expired'],
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
    breaks:
      'doc1 § Resource version semantics: resourceVersionMatch unset, limit=n, rv=other is Exact (the version is dropped from a paged list)',
    area: 'resource-versions',
    catchers: ['resource-versions/list/match-unset/limit/rv-past'],
    // the expired row pages a list at a version too: served the current state, it answers 200 where 410 is due
    alsoFails: ['resource-versions/list/match-unset/limit/rv-expired'],
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
    breaks:
      'doc1 § Resource version semantics, Meanings: Exact, the collection version equals the requested one',
    area: 'resource-versions',
    catchers: ['resource-versions/list/exact/no-limit/rv-past', 'resource-versions/list/exact/limit/rv-past'],
    // the expired row reads an Exact list too: the other version it names is served, where 410 is due
    alsoFails: ['resource-versions/list/exact/no-limit/rv-expired'],
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
    breaks:
      'doc1 § Resource version semantics, Meanings: Not older than, at least as new as the given version (a NotOlderThan list is answered from an older version)',
    area: 'resource-versions',
    catchers: [
      'resource-versions/list/not-older-than/no-limit/rv-past',
      'resource-versions/list/not-older-than/limit/rv-past',
    ],
    request: (r) => {
      const rv = r.url.searchParams.get('resourceVersion') ?? '';
      if (
        !isRead(r) ||
        r.url.searchParams.get('resourceVersionMatch') !== 'NotOlderThan' ||
        !/^\d+$/.test(rv) ||
        Number(rv) < 5
      )
        return r;
      return withQuery(r, [], { resourceVersion: String(Number(rv) - 3), resourceVersionMatch: 'Exact' });
    },
  },
  {
    name: 'future-rv-served',
    breaks:
      "doc1 § Resource version semantics: an unrecognized resource version on get or list answers 504 or Retry-After ('Too large resource version'), not data",
    area: 'resource-versions',
    catchers: ['resource-versions/get/rv-future', 'resource-versions/list/not-older-than/no-limit/rv-future'],
    response: (r, res, up) =>
      isRead(r) && res.status === 504
        ? up.send(withQuery(r, ['resourceVersion', 'resourceVersionMatch']))
        : res,
  },
  {
    name: 'too-large-as-500',
    breaks:
      'doc1 § Errors: 504 Gateway Timeout when an unrecognized resource version did not become available (answered 500 without Retry-After)',
    area: 'resource-versions',
    catchers: ['resource-versions/get/rv-future', 'resource-versions/list/not-older-than/no-limit/rv-future'],
    response: (_r, res) => {
      if (res.status !== 504) return res;
      const headers = { ...res.headers };
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'retry-after') delete headers[k];
      return { ...res, status: 500, headers };
    },
  },
  {
    name: 'invalid-list-options-accepted',
    breaks:
      'doc1 § Resource version semantics: the cells marked invalid are refused (Kubernetes: 422 Invalid), not served as if resourceVersionMatch were unset',
    area: 'resource-versions',
    catchers: [
      'resource-versions/list/exact/limit/rv-0',
      'resource-versions/list/exact/limit/rv-unset',
      'resource-versions/list/exact/no-limit/rv-0',
      'resource-versions/list/exact/no-limit/rv-unset',
      'resource-versions/list/not-older-than/limit/rv-unset',
      'resource-versions/list/not-older-than/no-limit/rv-unset',
      'resource-versions/list/unknown-match/no-limit/rv-past',
      'resource-versions/list/exact/continue/rv-past',
    ],
    response: (r, res, up) =>
      isRead(r) && res.status === 422 ? up.send(withQuery(r, ['resourceVersionMatch'])) : res,
  },
  {
    name: 'continue-with-rv-accepted',
    breaks: 'doc1 § Resource version semantics: limit=n, continue=token, rv=other is invalid, HTTP 400',
    area: 'resource-versions',
    catchers: ['resource-versions/list/match-unset/continue/rv-other'],
    request: (r) =>
      isRead(r) && r.url.searchParams.has('continue') && nonZeroRv(r) ? withQuery(r, ['resourceVersion']) : r,
  },
  {
    name: 'expired-exact-list-served',
    breaks:
      'doc1 § Errors: 410 Gone for an Exact list at a version no longer retained (answered with current data)',
    area: 'resource-versions',
    catchers: [
      'resource-versions/list/exact/no-limit/rv-expired',
      'resource-versions/list/match-unset/limit/rv-expired',
    ],
    server: { historySeconds: 2 },
    response: (r, res, up) =>
      isRead(r) && res.status === 410 && nonZeroRv(r)
        ? up.send(withQuery(r, ['resourceVersion', 'resourceVersionMatch']))
        : res,
  },
  {
    name: 'expired-watch-wrong-code',
    breaks:
      'doc1 § Errors: 410 Gone for a watch at a version no longer retained (the error in the stream says 500)',
    area: 'resource-versions',
    catchers: ['resource-versions/watch/rv-expired', 'resource-versions/watch/rv-expired-error-event'],
    server: { historySeconds: 2 },
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
    breaks: 'doc1 § Resource version semantics: watch, other value = Start at Exact (no synthetic events)',
    area: 'resource-versions',
    catchers: ['resource-versions/watch/rv-current', 'resource-versions/watch/rv-past'],
    request: (r) => (isWatch(r) && nonZeroRv(r) ? withQuery(r, ['resourceVersion']) : r),
  },
  {
    name: 'watch-drops-initial-state',
    breaks:
      'doc1 § Resource version semantics: watch, unset or 0 = Get State (synthetic ADDED events for all existing instances)',
    area: 'resource-versions',
    catchers: ['resource-versions/watch/rv-unset', 'resource-versions/watch/rv-0'],
    // the expired rows first probe a watch from "1" as they will use it; without its first events the probe reads the wrong state
    alsoFails: ['resource-versions/watch/rv-expired', 'resource-versions/watch/rv-expired-error-event'],
    // the ADDED events before the first other event of a stream are the synthetic ones
    watch: (s, line) => {
      if (!s.live && line.includes('"ADDED"')) return [];
      if (line.trim()) s.live = true;
      return [line];
    },
  },
];
