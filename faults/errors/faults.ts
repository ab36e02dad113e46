// Faults against the error answers: doc1 § Errors (and doc3 § Errors for the bearer token),
// where every error leaves as a Status object whose code is the HTTP status; one rule each;
// suites/errors must catch every one.

import { withoutAuth } from '../auth-util.ts';
import type { FaultHooks } from '../proxy.ts';
import { bodyOf, mapJson } from '../util.ts';

const NS_COLLECTION = /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/namespaces\/[^/]+\/[^/]+$/;

function statusOf(body: Buffer): any {
  try {
    const j = JSON.parse(body.toString('utf8'));
    return j?.kind === 'Status' ? j : undefined;
  } catch {
    return undefined;
  }
}

export const HOOKS: FaultHooks[] = [
  {
    name: 'errors-as-plain-text',
    response: (_r, res) => {
      if (res.status < 400) return res;
      const s = statusOf(res.body);
      const text = s?.message ?? res.body.toString('utf8');
      return {
        ...res,
        headers: { ...res.headers, 'content-type': 'text/plain; charset=utf-8' },
        body: Buffer.from(`${text}\n`),
      };
    },
  },
  {
    name: 'conflict-as-ok',
    // narrowed: a PUT's 409 only (a create's 409 AlreadyExists is another rule)
    response: (r, res) => (r.method === 'PUT' && res.status === 409 ? { ...res, status: 200 } : res),
  },
  {
    name: 'status-code-mismatch',
    response: (_r, res) =>
      res.status >= 400 ? mapJson(res, (j) => (j?.kind === 'Status' ? { ...j, code: 500 } : j)) : res,
  },
  {
    name: 'invalid-without-causes',
    response: (_r, res) =>
      res.status === 422
        ? mapJson(res, (j) => (j?.details ? { ...j, details: { ...j.details, causes: undefined } } : j))
        : res,
  },
  {
    name: 'invalid-token-anonymous',
    response: (r, res, up) => (res.status === 401 ? up.send(withoutAuth(r)) : res),
  },
  {
    name: 'malformed-json-500',
    response: (_r, res) =>
      res.status === 400 && statusOf(res.body)?.reason === 'BadRequest'
        ? mapJson({ ...res, status: 500 }, (j) => ({ ...j, code: 500, reason: 'InternalError' }))
        : res,
  },
  {
    name: 'rejected-write-persists',
    response: async (r, res, up) => {
      if (r.method !== 'PUT' || res.status !== 405 || !NS_COLLECTION.test(r.url.pathname)) return res;
      await up.send({ ...r, method: 'POST' });
      return res;
    },
  },
  {
    name: 'refused-unnamed-create-persists',
    response: async (r, res, up) => {
      const b = r.method === 'POST' && NS_COLLECTION.test(r.url.pathname) ? bodyOf(r.body) : undefined;
      if (!b?.metadata || b.metadata.name || b.metadata.generateName || res.status < 400) return res;
      await up.send({
        ...r,
        body: Buffer.from(JSON.stringify({ ...b, metadata: { ...b.metadata, generateName: 'unnamed-' } })),
      });
      return res;
    },
  },
  {
    name: 'refused-duplicate-overwrites',
    response: async (r, res, up) => {
      const b = r.method === 'POST' && NS_COLLECTION.test(r.url.pathname) ? bodyOf(r.body) : undefined;
      const name = b?.metadata?.name;
      if (res.status !== 409 || !name) return res;
      const url = new URL(`${r.url.pathname}/${encodeURIComponent(name)}`, r.url);
      const cur = await up.send({ ...r, method: 'GET', url, body: Buffer.alloc(0) });
      const rv = bodyOf(cur.body)?.metadata?.resourceVersion;
      if (cur.status === 200)
        await up.send({
          ...r,
          method: 'PUT',
          url,
          body: Buffer.from(JSON.stringify({ ...b, metadata: { ...b.metadata, resourceVersion: rv } })),
        });
      return res;
    },
  },
];
