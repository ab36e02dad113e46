// Faults against doc1 § Chunked lists (and the continue-token rows of § Errors), one rule
// each; suites/chunking must catch every one. (drop-continue lives in doc1-core.ts.)
import type { Fault, ProxiedRequest } from '../proxy.ts';
import { bodyOf, failure, mapJson } from '../util.ts';

const isList = (r: ProxiedRequest) => r.method === 'GET' && !r.url.searchParams.has('watch');
const paged = (r: ProxiedRequest) => isList(r) && Number(r.url.searchParams.get('limit') ?? '0') > 0;
const continued = (r: ProxiedRequest) => isList(r) && !!r.url.searchParams.get('continue');
const selected = (r: ProxiedRequest) =>
  !!(r.url.searchParams.get('labelSelector') || r.url.searchParams.get('fieldSelector'));
const isListBody = (j: any) => j && Array.isArray(j.items) && j.metadata;

/** When the proxy first passed on each continue token. */
const tokenIssued = new Map<string, number>();

export const FAULTS: Fault[] = [
  {
    name: 'limit-ignored',
    breaks:
      'doc1 § Chunked lists: with limit=<n> the server returns at most n items (a first chunk is served with twice the limit)',
    area: 'chunking',
    catchers: ['chunking/law/concatenation', 'chunking/limits/chunk-size'],
    // narrowed: the limit is doubled rather than dropped, so a first chunk still ends with a
    // continue token when more remain (the cases that need one to run keep their setup)
    request: (r) => {
      if (!paged(r) || r.url.searchParams.has('continue')) return r;
      const url = new URL(r.url);
      url.searchParams.set('limit', String(2 * Number(r.url.searchParams.get('limit'))));
      return { ...r, url };
    },
  },
  {
    name: 'continue-on-last-chunk',
    breaks: 'doc1 § Chunked lists: continue is empty on the last chunk',
    area: 'chunking',
    catchers: ['chunking/law/continue-until-last'],
    response: (r, res) =>
      paged(r) && res.status === 200
        ? mapJson(res, (j) =>
            isListBody(j) && !j.metadata.continue
              ? { ...j, metadata: { ...j.metadata, continue: 'bm90LWEtdG9rZW4' } }
              : j,
          )
        : res,
  },
  {
    name: 'drop-item-at-chunk-boundary',
    breaks:
      'doc1 § Chunked lists: the chunks together are the whole list (the last item of each non-last chunk is lost)',
    area: 'chunking',
    catchers: ['chunking/law/concatenation', 'chunking/law/selectors'],
    response: (r, res) =>
      paged(r) && res.status === 200
        ? mapJson(res, (j) =>
            isListBody(j) && j.metadata.continue && j.items.length > 1
              ? { ...j, items: j.items.slice(0, -1) }
              : j,
          )
        : res,
  },
  {
    name: 'remaining-count-on-last-chunk',
    breaks: 'doc1 § Chunked lists: remainingItemCount is omitted on the last chunk',
    area: 'chunking',
    catchers: ['chunking/law/remaining-item-count'],
    // narrowed: selected lists are left alone (no remainingItemCount there is another rule)
    response: (r, res) =>
      paged(r) && !selected(r) && res.status === 200
        ? mapJson(res, (j) =>
            isListBody(j) && !j.metadata.continue
              ? { ...j, metadata: { ...j.metadata, remainingItemCount: 0 } }
              : j,
          )
        : res,
  },
  {
    name: 'remaining-count-off-by-one',
    breaks: 'doc1 § Chunked lists: remainingItemCount counts the items after the chunk',
    area: 'chunking',
    catchers: ['chunking/law/remaining-item-count'],
    response: (r, res) =>
      paged(r) && res.status === 200
        ? mapJson(res, (j) =>
            isListBody(j) && typeof j.metadata.remainingItemCount === 'number'
              ? { ...j, metadata: { ...j.metadata, remainingItemCount: j.metadata.remainingItemCount + 1 } }
              : j,
          )
        : res,
  },
  {
    name: 'remaining-count-with-selectors',
    breaks: 'doc1 § Chunked lists: remainingItemCount is omitted when label or field selectors are used',
    area: 'chunking',
    catchers: ['chunking/law/selectors'],
    response: (r, res) =>
      paged(r) && selected(r) && res.status === 200
        ? mapJson(res, (j) =>
            isListBody(j) && j.metadata.continue
              ? { ...j, metadata: { ...j.metadata, remainingItemCount: 1 } }
              : j,
          )
        : res,
  },
  {
    name: 'list-rv-drifts-between-chunks',
    breaks: 'doc1 § Chunked lists: resourceVersion stays constant across chunks',
    area: 'chunking',
    catchers: ['chunking/law/one-resource-version'],
    response: (r, res) =>
      continued(r) && res.status === 200
        ? mapJson(res, (j) =>
            isListBody(j) && /^\d+$/.test(j.metadata.resourceVersion ?? '')
              ? {
                  ...j,
                  metadata: {
                    ...j.metadata,
                    resourceVersion: String(Number(j.metadata.resourceVersion) + 1),
                  },
                }
              : j,
          )
        : res,
  },
  {
    name: 'continued-chunk-shows-current-data',
    breaks:
      'doc1 § Chunked lists: a consistent snapshot (a continued chunk shows objects as they are now: deleted ones vanish, changed ones change)',
    area: 'chunking',
    catchers: ['chunking/law/snapshot-under-writes'],
    response: async (r, res, up) => {
      if (!continued(r) || res.status !== 200) return res;
      let j: any;
      try {
        j = JSON.parse(res.body.toString('utf8'));
      } catch {
        return res;
      }
      if (!isListBody(j)) return res;
      const items: unknown[] = [];
      for (const o of j.items) {
        const path = `${r.url.pathname}/${encodeURIComponent(o?.metadata?.name ?? '')}`;
        const now = await up.send({ ...r, url: new URL(path, r.url), body: Buffer.alloc(0) });
        if (now.status === 200) items.push({ ...JSON.parse(now.body.toString('utf8')) });
      }
      return { ...res, body: Buffer.from(JSON.stringify({ ...j, items })) };
    },
  },
  {
    name: 'bad-continue-restarts-list',
    breaks:
      'doc1 § Errors: a continue token the server cannot honour is refused (400), not answered with a fresh first chunk',
    area: 'chunking',
    catchers: ['chunking/continue/garbage-token'],
    // narrowed: a request that also names a resourceVersion is left alone (its 400 is the rule of
    // chunking/continue/with-resource-version, not this one)
    response: (r, res, up) => {
      if (!continued(r) || res.status !== 400 || r.url.searchParams.has('resourceVersion')) return res;
      const url = new URL(r.url);
      url.searchParams.delete('continue');
      url.searchParams.delete('resourceVersion');
      return up.send({ ...r, url });
    },
  },
  {
    name: 'remaining-count-on-complete-list',
    breaks:
      'doc1 § Chunked lists: remainingItemCount is omitted on a complete list (a list without limit carries 0)',
    area: 'chunking',
    catchers: ['chunking/remaining-item-count/complete-list'],
    response: (r, res) =>
      isList(r) && !paged(r) && res.status === 200
        ? mapJson(res, (j) =>
            isListBody(j) ? { ...j, metadata: { ...j.metadata, remainingItemCount: 0 } } : j,
          )
        : res,
  },
  {
    name: 'chunked-continue-with-rv-accepted',
    breaks:
      'doc1 § Errors: 400 Bad Request for a list with limit, continue and a non-zero resourceVersion (the version is dropped; the same rule as continue-with-rv-accepted, checked here by the chunking case)',
    area: 'chunking',
    catchers: ['chunking/continue/with-resource-version'],
    request: (r) => {
      const rv = r.url.searchParams.get('resourceVersion');
      if (!continued(r) || !rv || rv === '0') return r;
      const url = new URL(r.url);
      url.searchParams.delete('resourceVersion');
      return { ...r, url };
    },
  },
  {
    name: 'expired-continue-restarts-list',
    breaks: 'doc1 § Errors: 410 Gone for an expired continue token (answered with a fresh first chunk)',
    area: 'chunking',
    catchers: ['chunking/continue/expired-token'],
    server: { continueTtlSeconds: 3 },
    response: (r, res, up) => {
      if (!continued(r) || res.status !== 410) return res;
      const url = new URL(r.url);
      url.searchParams.delete('continue');
      return up.send({ ...r, url });
    },
  },
  {
    name: 'continue-lifetime-under-a-second',
    breaks:
      "doc1 § Limits: a continue token's lifetime is 5 minutes by default (a token followed more than 0.9 s after it was issued is refused as expired, 410)",
    area: 'chunking',
    catchers: ['chunking/limits/continue-usable-within-lifetime'],
    response: (r, res) => {
      const token = isList(r) ? r.url.searchParams.get('continue') : null;
      const issued = token ? tokenIssued.get(token) : undefined;
      if (issued !== undefined && Date.now() - issued > 900)
        return failure(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result.',
        );
      const next = paged(r) && res.status === 200 ? bodyOf(res.body)?.metadata?.continue : undefined;
      if (typeof next === 'string' && next && !tokenIssued.has(next)) tokenIssued.set(next, Date.now());
      return res;
    },
  },
];
