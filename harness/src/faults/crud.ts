// Faults against doc1's create, get, list, update and patch, and the uniqueness of names, one
// rule each; suites/crud must catch every one. (stale-update-accepted lives in doc1-core.ts.)
import type { Fault, ProxiedRequest, ProxiedResponse } from '../fault-proxy.ts';
import { mapJson } from './util.ts';

/** `.../namespaces/<ns>/<plural>` of the core or a named group. */
const COLLECTION = /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/namespaces\/[^/]+\/[^/]+$/;
/** `.../namespaces/<ns>/<plural>/<name>`. */
const RESOURCE = /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/namespaces\/[^/]+\/[^/]+\/[^/]+$/;

const isWatch = (r: ProxiedRequest) => r.url.searchParams.has('watch');

function jsonBody(r: ProxiedRequest): any {
  try {
    return JSON.parse(r.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function statusResponse(code: number, reason: string, message: string, details?: object): ProxiedResponse {
  const body = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
    details,
  };
  return {
    status: code,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(body)),
  };
}

/** Requests the fault answers itself: the request sent upstream is made a harmless GET. */
const diverted = new WeakMap<ProxiedRequest, () => ProxiedResponse>();
function divert(r: ProxiedRequest, answer: () => ProxiedResponse): ProxiedRequest {
  const out: ProxiedRequest = { ...r, method: 'GET', body: Buffer.alloc(0) };
  diverted.set(out, answer);
  return out;
}
const divertedAnswer = (r: ProxiedRequest) => diverted.get(r)?.();

/** Names deleted through the proxy (collection path + name), for name-not-reusable. */
const deletedNames = new Set<string>();

export const CRUD_FAULTS: Fault[] = [
  {
    name: 'generate-name-fixed',
    breaks:
      'doc1 § Resources and their fields: generateName, the server generates a unique random name (always the same suffix)',
    area: 'crud',
    request: (r) => {
      if (r.method !== 'POST' || !COLLECTION.test(r.url.pathname)) return r;
      const b = jsonBody(r);
      if (!b?.metadata?.generateName || b.metadata.name) return r;
      // a fixed name in place of the generated one (so the server cannot retry another)
      b.metadata = { ...b.metadata, name: `${b.metadata.generateName}fixed`, generateName: undefined };
      return { ...r, body: Buffer.from(JSON.stringify(b)) };
    },
  },
  {
    name: 'duplicate-create-overwrites',
    breaks:
      'doc1 § What the service does: a name is unique for its kind within its namespace (a create with a name in use replaces the object)',
    area: 'crud',
    response: async (r, res, up) => {
      if (r.method !== 'POST' || res.status !== 409 || !COLLECTION.test(r.url.pathname)) return res;
      const b = jsonBody(r);
      const name = b?.metadata?.name;
      if (!name) return res;
      const url = new URL(`${r.url.pathname}/${encodeURIComponent(name)}`, r.url);
      const cur = await up.send({ ...r, method: 'GET', url, body: Buffer.alloc(0) });
      if (cur.status !== 200) return res;
      const rv = JSON.parse(cur.body.toString('utf8'))?.metadata?.resourceVersion;
      const put = await up.send({
        ...r,
        method: 'PUT',
        url,
        body: Buffer.from(JSON.stringify({ ...b, metadata: { ...b.metadata, resourceVersion: rv } })),
      });
      return put.status === 200 ? { ...put, status: 201 } : res;
    },
  },
  {
    name: 'list-kind-generic',
    breaks:
      'doc1 § Resources and their fields: a collection response has kind `<Kind>List` (answered as kind "List")',
    area: 'crud',
    response: (r, res) =>
      r.method === 'GET' && !isWatch(r) && res.status === 200
        ? mapJson(res, (j) =>
            Array.isArray(j?.items) && /List$/.test(j?.kind ?? '') ? { ...j, kind: 'List' } : j,
          )
        : res,
  },
  {
    name: 'merge-patch-replaces',
    breaks:
      'doc1 § Operations: patch is distinct from update; a merge patch is merged into the current object (each named field is replaced whole)',
    area: 'crud',
    request: (r) => {
      if (r.method !== 'PATCH' || !(r.headers['content-type'] ?? '').includes('merge-patch')) return r;
      const b = jsonBody(r);
      if (!b || typeof b !== 'object' || Array.isArray(b)) return r;
      const ops = Object.entries(b).map(([k, v]) =>
        v === null ? { op: 'remove', path: `/${k}` } : { op: 'add', path: `/${k}`, value: v },
      );
      return {
        ...r,
        headers: { ...r.headers, 'content-type': 'application/json-patch+json' },
        body: Buffer.from(JSON.stringify(ops)),
      };
    },
  },
  {
    name: 'update-acknowledged-not-applied',
    breaks:
      'doc1 § Update mechanisms: PUT replaces the object (answered 200 with the new object, but nothing stored)',
    area: 'crud',
    request: (r) => {
      if (r.method !== 'PUT' || !RESOURCE.test(r.url.pathname)) return r;
      const b = jsonBody(r);
      if (!b?.metadata?.resourceVersion) return r;
      return divert(r, () => {
        const rv = b.metadata.resourceVersion;
        const echo = {
          ...b,
          metadata: { ...b.metadata, resourceVersion: /^\d+$/.test(rv) ? String(Number(rv) + 1) : `${rv}1` },
        };
        return {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify(echo)),
        };
      });
    },
    response: (r, res) => divertedAnswer(r) ?? res,
  },
  {
    name: 'generation-frozen',
    breaks: 'Kubernetes (beyond doc1): metadata.generation increments on spec changes (always answered as 1)',
    area: 'crud',
    response: (_r, res) =>
      mapJson(res, (j) =>
        j?.metadata && typeof j.metadata.generation === 'number'
          ? { ...j, metadata: { ...j.metadata, generation: 1 } }
          : j,
      ),
  },
  {
    name: 'name-not-reusable',
    breaks:
      'doc1 § What the service does: after deletion the name may be reused (a deleted name is refused with 409)',
    area: 'crud',
    request: (r) => {
      if (r.method === 'DELETE' && RESOURCE.test(r.url.pathname)) deletedNames.add(r.url.pathname);
      if (r.method !== 'POST' || !COLLECTION.test(r.url.pathname)) return r;
      const name = jsonBody(r)?.metadata?.name;
      if (!name || !deletedNames.has(`${r.url.pathname}/${name}`)) return r;
      return divert(r, () =>
        statusResponse(409, 'AlreadyExists', `object "${name}" already exists`, { name }),
      );
    },
    response: (r, res) => divertedAnswer(r) ?? res,
  },
  {
    name: 'uid-constant',
    breaks:
      'doc1 § Resources and their fields: uid, a random, unique identifier generated by the server (every create answers one uid)',
    area: 'crud',
    response: (r, res) =>
      r.method === 'POST' && res.status === 201
        ? mapJson(res, (j) =>
            j?.metadata?.uid
              ? { ...j, metadata: { ...j.metadata, uid: '11111111-2222-3333-4444-555555555555' } }
              : j,
          )
        : res,
  },
];
