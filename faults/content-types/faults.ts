// Faults against doc1's content negotiation (Accept, the Protobuf envelope, 406, Table, gzip),
// one rule each; suites/content-types must catch every one.
import { gunzipSync } from 'node:zlib';
import type { FaultHooks, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
import { divert, failure, mapJson, unlessDiverted } from '../util.ts';

const PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const isProtobuf = (ct: string) => /protobuf/i.test(ct);
const header = (h: Record<string, string | string[]>, name: string): string => {
  const k = Object.keys(h).find((x) => x.toLowerCase() === name);
  const v = k ? h[k] : undefined;
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
};
const accept = (r: ProxiedRequest) => header(r.headers, 'accept');
const withAccept = (r: ProxiedRequest, a: string): ProxiedRequest => ({
  ...r,
  headers: { ...r.headers, accept: a },
});

export const HOOKS: FaultHooks[] = [
  {
    name: 'drop-protobuf-prefix',
    response: (_r, res) =>
      isProtobuf(header(res.headers, 'content-type')) && res.body.subarray(0, 4).equals(PREFIX)
        ? { ...res, body: res.body.subarray(4) }
        : res,
  },
  {
    name: 'json-when-protobuf-asked',
    // narrowed: built-in types only (the core group); a custom resource's 406 is another rule
    request: (r) =>
      isProtobuf(accept(r)) && !accept(r).includes(',') && r.url.pathname.startsWith('/api/')
        ? withAccept(r, 'application/json')
        : r,
  },
  {
    name: 'not-acceptable-as-200',
    response: (r, res, up) => (res.status === 406 ? up.send(withAccept(r, 'application/json')) : res),
  },
  {
    name: 'table-columns-renamed',
    response: (_r, res) =>
      mapJson(res, (j) =>
        j?.kind === 'Table' && Array.isArray(j.columnDefinitions)
          ? {
              ...j,
              columnDefinitions: j.columnDefinitions.map((c: any) =>
                c?.name === 'Created At' ? { ...c, name: 'Created' } : c,
              ),
            }
          : j,
      ),
  },
  {
    name: 'table-ignored',
    request: (r) => (/as=Table/i.test(accept(r)) ? withAccept(r, 'application/json') : r),
  },
  {
    name: 'gzip-claimed-plain',
    response: (_r, res): ProxiedResponse => {
      if (header(res.headers, 'content-encoding').toLowerCase() !== 'gzip') return res;
      try {
        return { ...res, body: gunzipSync(res.body) };
      } catch {
        return res;
      }
    },
  },
  {
    name: 'gzip-ignored',
    request: (r) => {
      const headers = { ...r.headers };
      delete headers['accept-encoding'];
      return { ...r, headers };
    },
  },
  {
    name: 'protobuf-body-refused',
    request: (r) =>
      isProtobuf(header(r.headers, 'content-type'))
        ? { ...r, headers: { ...r.headers, 'content-type': 'application/x-protobuf-refused' } }
        : r,
  },
  {
    name: 'custom-protobuf-fallback-refused',
    request: (r) =>
      r.url.pathname.startsWith('/apis/') && /protobuf[^,]*,.*json/i.test(accept(r))
        ? divert(r, () => failure(406, 'NotAcceptable', 'none of the requested media types is supported'))
        : r,
    response: unlessDiverted,
  },
  {
    name: 'table-second-choice-refused',
    request: (r) =>
      /as=Table[^,]*,.*application\/json/.test(accept(r))
        ? divert(r, () => failure(406, 'NotAcceptable', 'none of the requested media types is supported'))
        : r,
    response: unlessDiverted,
  },
  {
    name: 'default-media-type-not-json',
    response: (r, res) =>
      !r.headers.accept && String(res.headers['content-type'] ?? '').includes('json')
        ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain' } }
        : res,
  },
];
