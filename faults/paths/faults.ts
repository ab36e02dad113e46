// Faults against doc1 § Path shapes, the discovery documents and deletecollection, one rule
// each; suites/paths must catch every one.
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { answer, bodyOf, divert, failure, mapJson, unlessDiverted } from '../util.ts';

const PREFIX = '(api/v1|apis/[^/]+/[^/]+)';
/** A discovery document of one group version: `/api/v1` or `/apis/<group>/<version>`. */
const DISCOVERY = /^\/(api\/v1|apis\/[^/]+\/[^/]+)$/;
/** `.../<plural>` right below the group version: a cluster-scoped or all-namespaces collection. */
const TOP_COLLECTION = new RegExp(`^/${PREFIX}/[^/]+$`);
const NS_COLLECTION = new RegExp(`^/${PREFIX}/namespaces/[^/]+/[^/]+$`);
const NS_RESOURCE = new RegExp(`^/${PREFIX}/namespaces/[^/]+/[^/]+/[^/]+$`);
const EVICTION = new RegExp(`^/${PREFIX}/namespaces/[^/]+/pods/[^/]+/eviction$`);

/** Eviction requests turned into reads by eviction-ignored. */
const evictions = new WeakSet<ProxiedRequest>();

const isRead = (r: ProxiedRequest) => r.method === 'GET' && !r.url.searchParams.has('watch');

const mapResources = (res: ProxiedResponse, f: (r: any) => any) =>
  mapJson(res, (j) =>
    j?.kind === 'APIResourceList' && Array.isArray(j.resources) ? { ...j, resources: j.resources.map(f) } : j,
  );

export const HOOKS: FaultHooks[] = [
  {
    name: 'discovery-drops-namespaced',
    response: (r, res) =>
      isRead(r) && DISCOVERY.test(r.url.pathname)
        ? mapResources(res, (x) => {
            const { namespaced: _, ...rest } = x;
            return rest;
          })
        : res,
  },
  {
    name: 'discovery-scope-flipped',
    response: (r, res) =>
      isRead(r) && DISCOVERY.test(r.url.pathname)
        ? mapResources(res, (x) => ({ ...x, namespaced: !x.namespaced }))
        : res,
  },
  {
    name: 'resource-path-answers-other-object',
    response: async (r, res, up) => {
      if (!isRead(r) || res.status !== 200 || !NS_RESOURCE.test(r.url.pathname)) return res;
      const obj = bodyOf(res.body);
      const coll = r.url.pathname.slice(0, r.url.pathname.lastIndexOf('/'));
      const l = await up.send({ ...r, url: new URL(coll, r.url) });
      const other = (bodyOf(l.body)?.items ?? []).find((o: any) => o?.metadata?.name !== obj?.metadata?.name);
      return other ? answer(200, { ...other, kind: obj?.kind, apiVersion: obj?.apiVersion }) : res;
    },
  },
  {
    name: 'all-namespaces-collection-one-namespace',
    response: (r, res) =>
      isRead(r) && res.status === 200 && TOP_COLLECTION.test(r.url.pathname)
        ? mapJson(res, (j) => {
            if (!Array.isArray(j?.items) || !j.items.length) return j;
            const first = j.items[0]?.metadata?.namespace;
            return { ...j, items: j.items.filter((o: any) => o?.metadata?.namespace === first) };
          })
        : res,
  },
  {
    name: 'named-group-core-apiversion',
    response: (r, res) =>
      r.url.pathname.startsWith('/apis/') && !DISCOVERY.test(r.url.pathname)
        ? mapJson(res, (j) => (j?.apiVersion && j.kind !== 'Status' ? { ...j, apiVersion: 'v1' } : j))
        : res,
  },
  {
    name: 'subresource-across-collection',
    response: async (r, res, up) => {
      if (!isRead(r) || !r.url.pathname.endsWith('/status') || res.status !== 404) return res;
      const coll = r.url.pathname.slice(0, -'/status'.length);
      const l = await up.send({ ...r, url: new URL(coll, r.url) });
      return l.status === 200 && Array.isArray(bodyOf(l.body)?.items) ? l : res;
    },
  },
  {
    name: 'eviction-ignored',
    request: (r) => {
      if (r.method !== 'POST' || !EVICTION.test(r.url.pathname)) return r;
      // read the pod instead, and answer as if the eviction had been done
      const out = {
        ...r,
        method: 'GET',
        url: new URL(r.url.pathname.slice(0, -'/eviction'.length), r.url),
        body: Buffer.alloc(0),
      };
      evictions.add(out);
      return out;
    },
    response: (r, res) =>
      evictions.has(r) && res.status === 200
        ? answer(201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 })
        : res,
  },
  {
    name: 'deletecollection-ignores-selector',
    request: (r) => {
      if (r.method !== 'DELETE' || !NS_COLLECTION.test(r.url.pathname)) return r;
      const url = new URL(r.url);
      url.searchParams.delete('labelSelector');
      return { ...r, url };
    },
  },
  {
    name: 'namespace-shows-namespace',
    response: (_r, res) =>
      mapJson(res, (j) => {
        const mark = (o: any) =>
          o?.kind === 'Namespace' || o?.metadata?.name !== undefined
            ? { ...o, metadata: { ...o.metadata, namespace: 'default' } }
            : o;
        if (j?.kind === 'Namespace') return mark(j);
        if (j?.kind === 'NamespaceList' && Array.isArray(j.items)) return { ...j, items: j.items.map(mark) };
        return j;
      }),
  },
  {
    name: 'namespaced-list-all-namespaces',
    request: (r) => {
      const m = /^\/api\/v1\/namespaces\/[^/]+\/(configmaps)$/.exec(r.url.pathname);
      if (!isRead(r) || !m) return r;
      const url = new URL(r.url);
      url.pathname = `/api/v1/${m[1]}`;
      return { ...r, url };
    },
  },
  {
    name: 'status-subresource-missing',
    request: (r) =>
      r.method === 'GET' &&
      /\/[^/]+\/[^/]+\/status$/.test(r.url.pathname) &&
      !/\/pods\/status$/.test(r.url.pathname)
        ? divert(r, () => failure(404, 'NotFound', 'the server could not find the requested resource'))
        : r,
    response: unlessDiverted,
  },
  {
    name: 'eviction-across-pods',
    response: async (r, res, up) => {
      const m = /^(\/api\/v1\/namespaces\/[^/]+\/pods)\/eviction$/.exec(r.url.pathname);
      if (r.method !== 'POST' || !m) return res;
      const list = await up.send({ ...r, method: 'GET', url: new URL(m[1]!, r.url), body: Buffer.alloc(0) });
      const pods: any[] = list.status === 200 ? (bodyOf(list.body)?.items ?? []) : [];
      for (const pod of pods) {
        const name = pod?.metadata?.name;
        if (!name) continue;
        const body = { ...bodyOf(r.body), metadata: { ...bodyOf(r.body)?.metadata, name } };
        await up.send({
          ...r,
          url: new URL(`${m[1]}/${encodeURIComponent(name)}/eviction`, r.url),
          body: Buffer.from(JSON.stringify(body)),
        });
      }
      return answer(201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    },
  },
];
