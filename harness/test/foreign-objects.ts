// A fault proxy's hooks that play a live cluster's controllers in front of a reference server
// (which publishes its own root-CA ConfigMap in every namespace besides): every namespace
// created through the proxy gets one more ConfigMap of another writer at once, and the
// first ConfigMap a case writes into a namespace is followed by one more object of another
// writer, whose name sorts before any a case uses, so it lands among the case's objects, in
// lists, chunks and watch streams, after the case began. Composed with a fault of the
// catalogue (or none), it shows which case verdicts depend on a quiet namespace.
import type { FaultHooks, ProxiedRequest, Upstream } from '../../faults/proxy.ts';
import { bodyOf } from '../../faults/util.ts';

/** The names of the objects the proxy writes (what a case must leave out). */
export const EARLY = 'zz-namespace-made';
export const LATE = '0-controller-made';

const NAMESPACES = '/api/v1/namespaces';
const CONFIGMAPS = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps$/;

export interface ForeignWriter {
  hooks: FaultHooks;
  /** The objects the proxy wrote, as `<namespace>/<name>`. */
  written: string[];
}

/** The proxy's hooks: `fault`'s, after the foreign writes. */
export function withForeignObjects(fault?: FaultHooks): ForeignWriter {
  const written: string[] = [];
  const late = new Set<string>();
  const create = async (
    r: ProxiedRequest,
    up: Upstream,
    ns: string,
    name: string,
    data: Record<string, string>,
  ) => {
    const headers: Record<string, string | string[]> = { 'content-type': 'application/json' };
    if (r.headers.authorization) headers.authorization = r.headers.authorization;
    const res = await up.send({
      method: 'POST',
      url: new URL(`${NAMESPACES}/${ns}/configmaps`, r.url),
      headers,
      body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data })),
    });
    if (res.status === 201) written.push(`${ns}/${name}`);
  };
  const hooks: FaultHooks = {
    name: `foreign-objects${fault ? `+${fault.name}` : ''}`,
    request: fault?.request,
    watch: fault?.watch,
    response: async (r, res, up) => {
      if (r.method === 'POST' && res.status === 201) {
        const body = bodyOf(res.body);
        if (r.url.pathname === NAMESPACES && typeof body?.metadata?.name === 'string')
          await create(r, up, body.metadata.name, EARLY, { by: 'another writer, at once' });
        const ns = CONFIGMAPS.exec(r.url.pathname)?.[1];
        if (ns && body?.metadata?.name !== LATE && !late.has(ns)) {
          late.add(ns);
          await create(r, up, ns, LATE, { by: 'another writer' });
        }
      }
      return fault?.response ? fault.response(r, res, up) : res;
    },
  };
  return { hooks, written };
}
