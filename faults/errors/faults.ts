// Faults against the error answers: doc1 § Errors (and doc3 § Errors for the bearer token),
// where every error leaves as a Status object whose code is the HTTP status; one rule each;
// suites/errors must catch every one.

import { withoutAuth } from '../auth-util.ts';
import type { Fault } from '../proxy.ts';
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

export const FAULTS: Fault[] = [
  {
    name: 'errors-as-plain-text',
    breaks: 'doc1 § Errors (Kubernetes): every error is a Status object (answered as plain text)',
    area: 'errors',
    catchers: ['errors/status/', 'errors/law/invalid-names'],
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
    breaks:
      'doc1 § Errors: 409 Conflict for a PUT with a stale resourceVersion (the HTTP status rewritten to 200)',
    area: 'errors',
    catchers: ['errors/status/conflict', 'errors/unchanged/stale-put'],
    // narrowed: a PUT's 409 only (a create's 409 AlreadyExists is another rule)
    response: (r, res) => (r.method === 'PUT' && res.status === 409 ? { ...res, status: 200 } : res),
  },
  {
    name: 'status-code-mismatch',
    breaks: 'doc1 § Errors (Kubernetes): Status.code equals the HTTP status (always 500 in the body)',
    area: 'errors',
    catchers: ['errors/status/', 'errors/law/invalid-names'],
    response: (_r, res) =>
      res.status >= 400 ? mapJson(res, (j) => (j?.kind === 'Status' ? { ...j, code: 500 } : j)) : res,
  },
  {
    name: 'invalid-without-causes',
    breaks:
      'doc1 § Errors (Kubernetes): a 422 Invalid Status names the invalid fields in details.causes (causes dropped)',
    area: 'errors',
    catchers: ['errors/status/invalid-name', 'errors/status/missing-name', 'errors/law/invalid-names'],
    response: (_r, res) =>
      res.status === 422
        ? mapJson(res, (j) => (j?.details ? { ...j, details: { ...j.details, causes: undefined } } : j))
        : res,
  },
  {
    name: 'invalid-token-anonymous',
    breaks: 'doc3 § Errors: an invalid bearer token is rejected with 401, not treated as anonymous',
    area: 'errors',
    catchers: ['errors/code/invalid-bearer-token', 'errors/status/unauthorized'],
    response: (r, res, up) => (res.status === 401 ? up.send(withoutAuth(r)) : res),
  },
  {
    name: 'malformed-json-500',
    breaks:
      'Kubernetes (beyond doc1 § Errors): a body that is not JSON is a client error, 400 BadRequest (answered 500)',
    area: 'errors',
    catchers: ['errors/status/malformed-json', 'errors/unchanged/malformed-json'],
    response: (_r, res) =>
      res.status === 400 && statusOf(res.body)?.reason === 'BadRequest'
        ? mapJson({ ...res, status: 500 }, (j) => ({ ...j, code: 500, reason: 'InternalError' }))
        : res,
  },
  {
    name: 'rejected-write-persists',
    breaks:
      'a refused write changes nothing (a PUT on a collection is answered 405 but its object is created)',
    area: 'errors',
    catchers: ['errors/unchanged/put-on-collection'],
    response: async (r, res, up) => {
      if (r.method !== 'PUT' || res.status !== 405 || !NS_COLLECTION.test(r.url.pathname)) return res;
      await up.send({ ...r, method: 'POST' });
      return res;
    },
  },
  {
    name: 'refused-unnamed-create-persists',
    breaks:
      'doc1 § Errors: a create without a name is refused and changes nothing (the proxy creates it under a name of its own)',
    area: 'errors',
    catchers: ['errors/unchanged/missing-name'],
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
    breaks:
      'doc1 § Errors: a create refused because the name is in use changes nothing (the proxy writes its body over the object, still answering 409)',
    area: 'errors',
    catchers: ['errors/unchanged/duplicate-create'],
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
