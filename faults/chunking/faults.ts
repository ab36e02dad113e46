// Faults against doc1 § Chunked lists (and the continue-token rows of § Errors), one rule
// each; suites/chunking must catch every one. (drop-continue lives in doc1-core.ts.)
import type { FaultHooks, ProxiedRequest } from '../proxy.ts';
import { bodyOf, failure, mapJson } from '../util.ts';

const isList = (r: ProxiedRequest) => r.method === 'GET' && !r.url.searchParams.has('watch');
const paged = (r: ProxiedRequest) => isList(r) && Number(r.url.searchParams.get('limit') ?? '0') > 0;
const continued = (r: ProxiedRequest) => isList(r) && !!r.url.searchParams.get('continue');
const selected = (r: ProxiedRequest) =>
  !!(r.url.searchParams.get('labelSelector') || r.url.searchParams.get('fieldSelector'));
const isListBody = (j: any) => j && Array.isArray(j.items) && j.metadata;

/** When the proxy first passed on each continue token. */
const tokenIssued = new Map<string, number>();

export const HOOKS: FaultHooks[] = [
  {
    name: 'limit-ignored',
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
    response: (r, res) =>
      isList(r) && !paged(r) && res.status === 200
        ? mapJson(res, (j) =>
            isListBody(j) ? { ...j, metadata: { ...j.metadata, remainingItemCount: 0 } } : j,
          )
        : res,
  },
  {
    name: 'chunked-continue-with-rv-accepted',
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
    response: (r, res, up) => {
      if (!continued(r) || res.status !== 410) return res;
      const url = new URL(r.url);
      url.searchParams.delete('continue');
      return up.send({ ...r, url });
    },
  },
  {
    name: 'continue-lifetime-under-a-second',
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
