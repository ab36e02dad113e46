// Faults against doc1 § States and transitions (two-phase deletion, namespace deletion) and
// doc3's NamespaceLifecycle; one rule each; suites/deletion must catch every one. None of
// them deletes a protected namespace for real: the proxy only rewrites answers.
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { mapJson } from '../util.ts';

const NS_RESOURCE = /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/namespaces\/[^/]+\/[^/]+\/[^/]+$/;
const NS_COLLECTION = /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/namespaces\/[^/]+\/[^/]+$/;
const NAMESPACE = /^\/api\/v1\/namespaces\/([^/]+)$/;
const PROTECTED = ['default', 'orch-system', 'orch-public'];

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

function parse(b: Buffer): any {
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return undefined;
  }
}

const json = (status: number, body: unknown): ProxiedResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
});

const stripFinalizers = (r: ProxiedRequest): ProxiedRequest => ({
  ...r,
  method: 'PATCH',
  headers: { ...r.headers, 'content-type': 'application/merge-patch+json' },
  url: new URL(r.url.pathname, r.url),
  body: Buffer.from(JSON.stringify({ metadata: { finalizers: null } })),
});

/** Namespace delete requests turned into reads by namespace-delete-ignored. */
const ignoredDeletes = new WeakSet<ProxiedRequest>();
/** Writes held by finalizers-block-live-updates (the read sent in their place, to the write). */
const heldWrites = new WeakMap<ProxiedRequest, ProxiedRequest>();
/** Deletes held by delete-without-finalizers-kept (the read sent in their place, to the delete). */
const heldDeletes = new WeakMap<ProxiedRequest, ProxiedRequest>();
/** Writes refused by finalizer-order-enforced. */
const refused = new WeakMap<ProxiedRequest, string>();
/** Objects whose last finalizer was removed while they were Finalizing, by path (finalized-object-still-served). */
const finalized = new Map<string, any>();
/** The finalizers each object path had when last read through the proxy. */
const lastSeen = new Map<string, { finalizers: string[]; deleting: boolean }>();

/** The finalizer list a PUT or patch asks for, given the list read before it. */
function requested(r: ProxiedRequest, before: string[]): string[] | undefined {
  const b = parse(r.body);
  const ct = r.headers['content-type'] ?? '';
  if (r.method === 'PUT') return b?.metadata?.finalizers ?? [];
  if (ct.includes('json-patch') && Array.isArray(b)) {
    const out = [...before];
    for (const op of b) {
      const m = /^\/metadata\/finalizers\/(\d+)$/.exec(op?.path ?? '');
      if (op?.op === 'remove' && m) out.splice(Number(m[1]), 1);
    }
    return out;
  }
  if (ct.includes('merge-patch') && b?.metadata && 'finalizers' in b.metadata)
    return b.metadata.finalizers ?? [];
  return undefined;
}

export const HOOKS: FaultHooks[] = [
  {
    name: 'deletion-ignores-finalizers',
    response: async (r, res, up) => {
      if (r.method !== 'DELETE' || !NS_RESOURCE.test(r.url.pathname) || res.status >= 300) return res;
      if (parse(res.body)?.metadata?.finalizers?.length) await up.send(stripFinalizers(r));
      return res;
    },
  },
  {
    name: 'finalizer-removal-completes-early',
    response: async (r, res, up) => {
      if (
        (r.method !== 'PUT' && r.method !== 'PATCH') ||
        !NS_RESOURCE.test(r.url.pathname) ||
        res.status !== 200
      )
        return res;
      const o = parse(res.body);
      if (o?.metadata?.deletionTimestamp && o.metadata.finalizers?.length) await up.send(stripFinalizers(r));
      return res;
    },
  },
  {
    name: 'finalizer-order-enforced',
    request: (r) => {
      if ((r.method !== 'PUT' && r.method !== 'PATCH') || !NS_RESOURCE.test(r.url.pathname)) return r;
      const seen = lastSeen.get(r.url.pathname);
      if (!seen?.deleting || seen.finalizers.length < 2) return r;
      const after = requested(r, seen.finalizers);
      if (!after) return r;
      const removed = seen.finalizers.filter((f) => !after.includes(f));
      if (!removed.some((f) => f !== seen.finalizers[0])) return r;
      const out: ProxiedRequest = { ...r, method: 'GET', body: Buffer.alloc(0) };
      refused.set(out, `finalizers must be removed in order: ${seen.finalizers[0]} first`);
      return out;
    },
    response: (r, res) => {
      const why = refused.get(r);
      if (why)
        return json(422, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: why,
          reason: 'Invalid',
          code: 422,
        });
      const o =
        r.method === 'GET' && res.status === 200 && NS_RESOURCE.test(r.url.pathname)
          ? parse(res.body)
          : undefined;
      if (o?.metadata)
        lastSeen.set(r.url.pathname, {
          finalizers: o.metadata.finalizers ?? [],
          deleting: !!o.metadata.deletionTimestamp,
        });
      return res;
    },
  },
  {
    name: 'second-delete-resets-timestamp',
    response: (r, res) =>
      r.method === 'DELETE' && res.status === 200
        ? mapJson(res, (j) =>
            j?.metadata?.deletionTimestamp
              ? { ...j, metadata: { ...j.metadata, deletionTimestamp: now() } }
              : j,
          )
        : res,
  },
  {
    name: 'namespace-delete-ignored',
    request: (r) => {
      // narrowed: the three protected namespaces are left alone (their refusal is another rule)
      if (
        r.method !== 'DELETE' ||
        !NAMESPACE.test(r.url.pathname) ||
        PROTECTED.includes(NAMESPACE.exec(r.url.pathname)?.[1] ?? '')
      )
        return r;
      const out: ProxiedRequest = { ...r, method: 'GET', body: Buffer.alloc(0) };
      ignoredDeletes.add(out);
      return out;
    },
    response: (r, res) =>
      ignoredDeletes.has(r) && res.status === 200
        ? mapJson(res, (j) => ({
            ...j,
            metadata: { ...j.metadata, deletionTimestamp: now() },
            status: { ...(j.status ?? {}), phase: 'Terminating' },
          }))
        : res,
  },
  {
    name: 'terminating-namespace-accepts-create',
    response: (r, res) => {
      if (r.method !== 'POST' || res.status !== 403 || !NS_COLLECTION.test(r.url.pathname)) return res;
      const body = parse(r.body) ?? {};
      return json(201, {
        ...body,
        metadata: { ...(body.metadata ?? {}), uid: '00000000-0000-0000-0000-0000000000fa' },
      });
    },
  },
  {
    name: 'protected-namespace-deletable',
    response: async (r, res, up) => {
      const m = NAMESPACE.exec(r.url.pathname);
      if (r.method !== 'DELETE' || !m || !PROTECTED.includes(decodeURIComponent(m[1]!)) || res.status < 400)
        return res;
      const g = await up.send({ ...r, method: 'GET', body: Buffer.alloc(0) });
      const o = parse(g.body);
      return o ? json(200, { ...o, metadata: { ...o.metadata, deletionTimestamp: now() } }) : res;
    },
  },
  {
    name: 'finalizers-block-live-updates',
    // the write is held: what goes upstream first is a read of the object; a Live object with
    // finalizers is refused, any other gets the write
    request: (r) => {
      if ((r.method !== 'PUT' && r.method !== 'PATCH') || !NS_RESOURCE.test(r.url.pathname)) return r;
      const read: ProxiedRequest = { ...r, method: 'GET', body: Buffer.alloc(0) };
      heldWrites.set(read, r);
      return read;
    },
    response: async (r, res, up) => {
      const write = heldWrites.get(r);
      if (!write) return res;
      const o = res.status === 200 ? parse(res.body) : undefined;
      if (!o?.metadata?.finalizers?.length || o.metadata.deletionTimestamp) return up.send(write);
      return json(409, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        reason: 'Conflict',
        code: 409,
        message: 'the object has finalizers',
      });
    },
  },
  {
    name: 'delete-without-finalizers-kept',
    // the delete is held: a read of the object goes first; an object with finalizers gets the
    // delete (its Finalizing state is other rules), one without is answered and kept
    request: (r) => {
      if (r.method !== 'DELETE' || !NS_RESOURCE.test(r.url.pathname)) return r;
      const read: ProxiedRequest = { ...r, method: 'GET', body: Buffer.alloc(0) };
      heldDeletes.set(read, r);
      return read;
    },
    response: (r, res, up) => {
      const del = heldDeletes.get(r);
      if (!del) return res;
      const o = res.status === 200 ? parse(res.body) : undefined;
      if (!o || o.metadata?.finalizers?.length) return up.send(del);
      return json(200, o);
    },
  },
  {
    name: 'finalized-object-still-served',
    // narrowed: the server does remove the object (nothing is left behind to hold the clean-up
    // of the case's namespace); only the answers through the proxy keep showing it
    response: (r, res) => {
      const path = r.url.pathname;
      if ((r.method === 'PUT' || r.method === 'PATCH') && NS_RESOURCE.test(path) && res.status < 300) {
        const o = parse(res.body);
        if (o?.metadata?.deletionTimestamp && !o.metadata.finalizers?.length) finalized.set(path, o);
        return res;
      }
      if (r.method !== 'GET' || r.url.searchParams.has('watch')) return res;
      const ghost = finalized.get(path);
      if (ghost && res.status === 404) return json(200, ghost);
      if (res.status !== 200 || !NS_COLLECTION.test(path)) return res;
      return mapJson(res, (j) => {
        if (!Array.isArray(j?.items)) return j;
        const names = new Set(j.items.map((x: any) => x?.metadata?.name));
        const more = [...finalized.entries()]
          .filter(([p, o]) => p.startsWith(`${path}/`) && !names.has(o.metadata.name))
          .map(([, o]) => o);
        return more.length ? { ...j, items: [...j.items, ...more] } : j;
      });
    },
  },
];
