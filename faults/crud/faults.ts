// Faults against doc1's create, get, list, update and patch, and the uniqueness of names, one
// rule each; suites/crud must catch every one. (stale-update-accepted lives in doc1-core.ts.)
import type { FaultHooks, ProxiedRequest, ProxiedResponse, Upstream } from '../proxy.ts';
import { mapJson } from '../util.ts';

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

/** Deletes the object a create just made and answers the create as refused (409 AlreadyExists). */
async function undoCreate(r: ProxiedRequest, up: Upstream, name: string): Promise<ProxiedResponse> {
  await up.send({
    ...r,
    method: 'DELETE',
    url: new URL(`${r.url.pathname}/${encodeURIComponent(name)}`, r.url),
    body: Buffer.alloc(0),
  });
  return statusResponse(409, 'AlreadyExists', `object "${name}" already exists`, { name });
}

/** Requests the fault answers itself: the request sent upstream is made a harmless GET. */
const diverted = new WeakMap<ProxiedRequest, () => ProxiedResponse>();
function divert(r: ProxiedRequest, answer: () => ProxiedResponse): ProxiedRequest {
  const out: ProxiedRequest = { ...r, method: 'GET', body: Buffer.alloc(0) };
  diverted.set(out, answer);
  return out;
}
const divertedAnswer = (r: ProxiedRequest) => diverted.get(r)?.();

const FAKE_UID = '11111111-2222-3333-4444-555555555555';
const fakeUid = (o: any) => (o?.metadata?.uid ? { ...o, metadata: { ...o.metadata, uid: FAKE_UID } } : o);

/** PUTs held by update-acknowledged-not-applied (the read sent in their place, to the PUT). */
const heldPuts = new WeakMap<ProxiedRequest, ProxiedRequest>();

/** Names deleted through the proxy (collection path + name), for name-not-reusable. */
const deletedNames = new Set<string>();

export const HOOKS: FaultHooks[] = [
  {
    name: 'generate-name-fixed',
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
    response: (r, res) =>
      r.method === 'GET' && !isWatch(r) && res.status === 200
        ? mapJson(res, (j) =>
            Array.isArray(j?.items) && /List$/.test(j?.kind ?? '') ? { ...j, kind: 'List' } : j,
          )
        : res,
  },
  {
    name: 'merge-patch-replaces',
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
    // narrowed: only a PUT at the current resourceVersion is acknowledged and dropped; a stale one
    // goes through (its 409 is another rule). The write is held: a read of the object goes first.
    request: (r) => {
      if (r.method !== 'PUT' || !RESOURCE.test(r.url.pathname) || !jsonBody(r)?.metadata?.resourceVersion)
        return r;
      const read: ProxiedRequest = { ...r, method: 'GET', body: Buffer.alloc(0) };
      heldPuts.set(read, r);
      return read;
    },
    response: (r, res, up) => {
      const put = heldPuts.get(r);
      if (!put) return res;
      const b = jsonBody(put);
      const rv = b.metadata.resourceVersion;
      let current: unknown;
      try {
        current = JSON.parse(res.body.toString('utf8'))?.metadata?.resourceVersion;
      } catch {
        current = undefined;
      }
      if (res.status !== 200 || current !== rv) return up.send(put);
      const echo = {
        ...b,
        metadata: { ...b.metadata, resourceVersion: /^\d+$/.test(rv) ? String(Number(rv) + 1) : `${rv}1` },
      };
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(echo)),
      };
    },
  },
  {
    name: 'generation-frozen',
    response: (_r, res) =>
      mapJson(res, (j) =>
        j?.metadata && typeof j.metadata.generation === 'number'
          ? { ...j, metadata: { ...j.metadata, generation: 1 } }
          : j,
      ),
  },
  {
    name: 'name-not-reusable',
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
    // narrowed: every answer (create, read, list, update, watch) shows the same uid, and a body
    // sent back with it has it removed, so the uid an object shows stays the same from its create
    // on (only its uniqueness is broken, not the identity the other cases compare)
    request: (r) => {
      if (r.method !== 'PUT' && r.method !== 'PATCH' && r.method !== 'DELETE') return r;
      const b = jsonBody(r);
      if (b?.metadata?.uid !== FAKE_UID && b?.preconditions?.uid !== FAKE_UID) return r;
      const out = { ...b };
      if (out.metadata?.uid === FAKE_UID) out.metadata = { ...out.metadata, uid: undefined };
      if (out.preconditions?.uid === FAKE_UID) out.preconditions = { ...out.preconditions, uid: undefined };
      return { ...r, body: Buffer.from(JSON.stringify(out)) };
    },
    response: (_r, res) =>
      mapJson(res, (j) => (Array.isArray(j?.items) ? { ...j, items: j.items.map(fakeUid) } : fakeUid(j))),
    watch: (_s, line) => {
      try {
        const e = JSON.parse(line);
        return e?.object?.metadata?.uid ? [JSON.stringify({ ...e, object: fakeUid(e.object) })] : [line];
      } catch {
        return [line];
      }
    },
  },
  {
    name: 'same-name-other-kind-refused',
    response: async (r, res, up) => {
      const m = /^\/api\/v1\/namespaces\/([^/]+)\/secrets$/.exec(r.url.pathname);
      const name = jsonBody(r)?.metadata?.name;
      if (r.method !== 'POST' || res.status !== 201 || !m || !name) return res;
      const other = await up.send({
        ...r,
        method: 'GET',
        url: new URL(`/api/v1/namespaces/${m[1]}/configmaps/${encodeURIComponent(name)}`, r.url),
        body: Buffer.alloc(0),
      });
      if (other.status !== 200) return res;
      return undoCreate(r, up, name);
    },
  },
  {
    name: 'same-name-other-namespace-refused',
    response: async (r, res, up) => {
      const m = /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/namespaces\/([^/]+)\/([^/]+)$/.exec(r.url.pathname);
      const name = jsonBody(r)?.metadata?.name;
      if (r.method !== 'POST' || res.status !== 201 || !m || !name) return res;
      const url = new URL(`/${m[1]}/${m[3]}`, r.url);
      url.searchParams.set('fieldSelector', `metadata.name=${name}`);
      const all = await up.send({ ...r, method: 'GET', url, body: Buffer.alloc(0) });
      const items: any[] = all.status === 200 ? (JSON.parse(all.body.toString('utf8'))?.items ?? []) : [];
      if (!items.some((o) => o?.metadata?.namespace !== m[2])) return res;
      return undoCreate(r, up, name);
    },
  },
  {
    name: 'cluster-scoped-duplicate-accepted',
    response: (r, res) =>
      r.method === 'POST' && r.url.pathname === '/api/v1/namespaces' && res.status === 409
        ? {
            status: 201,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(
              JSON.stringify({ ...jsonBody(r), metadata: { ...jsonBody(r)?.metadata, uid: FAKE_UID } }),
            ),
          }
        : res,
  },
  {
    name: 'client-uid-kept',
    response: (r, res) => {
      const sent = r.method === 'POST' ? jsonBody(r)?.metadata : undefined;
      if (res.status !== 201 || !sent?.uid) return res;
      return mapJson(res, (j) =>
        j?.metadata
          ? {
              ...j,
              metadata: {
                ...j.metadata,
                uid: sent.uid,
                creationTimestamp: sent.creationTimestamp ?? j.metadata.creationTimestamp,
              },
            }
          : j,
      );
    },
  },
  {
    name: 'update-resets-creation-timestamp',
    response: (r, res) =>
      r.method === 'PUT' && res.status === 200
        ? mapJson(res, (j) =>
            j?.metadata?.creationTimestamp
              ? { ...j, metadata: { ...j.metadata, creationTimestamp: '2001-01-01T00:00:00Z' } }
              : j,
          )
        : res,
  },
  {
    name: 'json-patch-replaces-map',
    request: (r) => {
      const b =
        r.method === 'PATCH' && (r.headers['content-type'] ?? '').includes('json-patch')
          ? jsonBody(r)
          : undefined;
      if (!Array.isArray(b)) return r;
      const ops = b.map((op) => {
        const m = /^\/(data|labels|annotations)\/([^/]+)$/.exec(op?.path ?? '');
        return op?.op === 'add' && m
          ? {
              op: 'add',
              path: `/${m[1]}`,
              value: { [m[2]!.replaceAll('~1', '/').replaceAll('~0', '~')]: op.value },
            }
          : op;
      });
      return { ...r, body: Buffer.from(JSON.stringify(ops)) };
    },
  },
];
