// Faults against doc1 § Path shapes, the discovery documents and deletecollection, one rule
// each; suites/paths must catch every one.
import type { Fault, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
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

export const FAULTS: Fault[] = [
  {
    name: 'discovery-drops-namespaced',
    breaks:
      'discovery (Kubernetes, beyond doc1): every resource entry says whether it is namespaced (the field is left out)',
    area: 'paths',
    catchers: [
      'paths/discovery/core-resources',
      'paths/discovery/group-resources',
      'paths/discovery/scope-matches-paths',
    ],
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
    breaks:
      'doc1 § Path shapes: a namespace is a cluster-scoped type (discovery says namespaced where it is not, and the reverse)',
    area: 'paths',
    catchers: ['paths/discovery/core-resources', 'paths/discovery/scope-matches-paths'],
    response: (r, res) =>
      isRead(r) && DISCOVERY.test(r.url.pathname)
        ? mapResources(res, (x) => ({ ...x, namespaced: !x.namespaced }))
        : res,
  },
  {
    name: 'resource-path-answers-other-object',
    breaks:
      'doc1 § Path shapes: `.../<resource-type>/<name>` is one resource (answered with another object of the collection)',
    area: 'paths',
    catchers: ['paths/core/one-resource'],
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
    breaks:
      'doc1 § Path shapes: a namespaced type has a collection across all namespaces (it lists one namespace only)',
    area: 'paths',
    catchers: ['paths/core/all-namespaces-collection', 'paths/named-group/all-namespaces-collection'],
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
    breaks: 'doc1 § Versioning: named groups are written `apiVersion: <group>/<version>` (answered as "v1")',
    area: 'paths',
    catchers: ['paths/named-group/namespaced-collection-and-resource'],
    response: (r, res) =>
      r.url.pathname.startsWith('/apis/') && !DISCOVERY.test(r.url.pathname)
        ? mapJson(res, (j) => (j?.apiVersion && j.kind !== 'Status' ? { ...j, apiVersion: 'v1' } : j))
        : res,
  },
  {
    name: 'subresource-across-collection',
    breaks:
      'doc1 § Path shapes: subresources cannot be accessed across several resources (status of a whole collection served)',
    area: 'paths',
    catchers: ['paths/subresource/status-not-across-pods'],
    response: async (r, res, up) => {
      if (!isRead(r) || !r.url.pathname.endsWith('/status') || res.status !== 404) return res;
      const coll = r.url.pathname.slice(0, -'/status'.length);
      const l = await up.send({ ...r, url: new URL(coll, r.url) });
      return l.status === 200 && Array.isArray(bodyOf(l.body)?.items) ? l : res;
    },
  },
  {
    name: 'eviction-ignored',
    breaks: 'doc1 § Operations: eviction triggers API-initiated eviction (answered 201, pod left running)',
    area: 'paths',
    catchers: ['paths/subresource/eviction'],
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
    breaks:
      'deletecollection (Kubernetes, beyond doc1): DELETE on a collection path deletes the selected objects only',
    area: 'paths',
    catchers: ['paths/deletecollection/label-selector'],
    request: (r) => {
      if (r.method !== 'DELETE' || !NS_COLLECTION.test(r.url.pathname)) return r;
      const url = new URL(r.url);
      url.searchParams.delete('labelSelector');
      return { ...r, url };
    },
  },
  {
    name: 'namespace-shows-namespace',
    breaks:
      'doc1 § Path shapes: a namespace is itself a cluster-scoped type (a Namespace is answered with a metadata.namespace)',
    area: 'paths',
    catchers: ['paths/namespaces/get', 'paths/namespaces/list'],
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
    breaks:
      "doc1 § Path shapes: `/api/v1/namespaces/<namespace>/<resource-type>` is one namespace's collection (a list of it answers every namespace)",
    area: 'paths',
    catchers: ['paths/core/namespaced-collection'],
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
    breaks:
      'doc1 § Path shapes: a subresource is `<resource path>/<name>/<subresource>`, for cluster and namespace scope (status answered 404)',
    area: 'paths',
    catchers: ['paths/subresource/status-namespaced', 'paths/subresource/status-cluster-scoped'],
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
    breaks:
      'doc1 § Path shapes: subresources cannot be accessed across several resources (an Eviction posted to `.../pods/eviction` evicts every pod of the namespace)',
    area: 'paths',
    catchers: ['paths/subresource/eviction-not-across-pods'],
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
