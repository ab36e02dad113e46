// Faults against doc1's content negotiation (Accept, the Protobuf envelope, 406, Table, gzip),
// one rule each; suites/content-types must catch every one.
import { gunzipSync } from 'node:zlib';
import type { Fault, ProxiedRequest, ProxiedResponse } from '../proxy.ts';
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

export const FAULTS: Fault[] = [
  {
    name: 'drop-protobuf-prefix',
    breaks:
      'doc1 § Resources and their fields: the Protobuf body starts with the prefix 0x6b 0x38 0x73 0x00 (dropped)',
    area: 'content-types',
    catchers: [
      'content-types/protobuf/object',
      'content-types/protobuf/list',
      'content-types/protobuf/namespace',
    ],
    response: (_r, res) =>
      isProtobuf(header(res.headers, 'content-type')) && res.body.subarray(0, 4).equals(PREFIX)
        ? { ...res, body: res.body.subarray(4) }
        : res,
  },
  {
    name: 'json-when-protobuf-asked',
    breaks:
      'doc1 § Headers and content negotiation: Protobuf for built-in types (JSON answered when only Protobuf was asked)',
    area: 'content-types',
    catchers: [
      'content-types/protobuf/object',
      'content-types/protobuf/list',
      'content-types/protobuf/namespace',
    ],
    // narrowed: built-in types only (the core group); a custom resource's 406 is another rule
    request: (r) =>
      isProtobuf(accept(r)) && !accept(r).includes(',') && r.url.pathname.startsWith('/api/')
        ? withAccept(r, 'application/json')
        : r,
  },
  {
    name: 'not-acceptable-as-200',
    breaks:
      'doc1 § Headers and content negotiation: when no requested media type is supported the reply is 406 (JSON sent instead)',
    area: 'content-types',
    catchers: ['content-types/406/unknown-type', 'content-types/406/protobuf-only-custom'],
    response: (r, res, up) => (res.status === 406 ? up.send(withAccept(r, 'application/json')) : res),
  },
  {
    name: 'table-columns-renamed',
    breaks:
      'doc1 § Resources and their fields: the default Table columns are Name and Created At ("Created At" renamed)',
    area: 'content-types',
    catchers: ['content-types/table/default-columns'],
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
    breaks:
      'doc1 § Headers and content negotiation: the Table media type gives a Table (the object is sent instead)',
    area: 'content-types',
    catchers: [
      'content-types/table/shape-builtin',
      'content-types/table/default-columns',
      'content-types/table/own-columns',
    ],
    request: (r) => (/as=Table/i.test(accept(r)) ? withAccept(r, 'application/json') : r),
  },
  {
    name: 'gzip-claimed-plain',
    breaks:
      'doc1 § Headers and content negotiation: content-encoding gzip means a gzip body (the body is sent plain)',
    area: 'content-types',
    catchers: ['content-types/gzip/get', 'content-types/gzip/list', 'content-types/gzip/protobuf'],
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
    breaks:
      'doc1 § Headers and content negotiation: Accept-Encoding: gzip gives compression for get and list (ignored)',
    area: 'content-types',
    catchers: ['content-types/gzip/get', 'content-types/gzip/list', 'content-types/gzip/protobuf'],
    request: (r) => {
      const headers = { ...r.headers };
      delete headers['accept-encoding'];
      return { ...r, headers };
    },
  },
  {
    name: 'protobuf-body-refused',
    breaks:
      'doc1 § Headers and content negotiation: a request may send Protobuf and ask for JSON (refused with 415)',
    area: 'content-types',
    catchers: ['content-types/protobuf/request-body'],
    request: (r) =>
      isProtobuf(header(r.headers, 'content-type'))
        ? { ...r, headers: { ...r.headers, 'content-type': 'application/x-protobuf-refused' } }
        : r,
  },
  {
    name: 'custom-protobuf-fallback-refused',
    breaks:
      'doc1 § Headers and content negotiation: Protobuf is for built-in types; Accept listing Protobuf then JSON gets JSON for a custom resource (answered 406)',
    area: 'content-types',
    catchers: ['content-types/fallback/json-for-custom'],
    request: (r) =>
      r.url.pathname.startsWith('/apis/') && /protobuf[^,]*,.*json/i.test(accept(r))
        ? divert(r, () => failure(406, 'NotAcceptable', 'none of the requested media types is supported'))
        : r,
    response: unlessDiverted,
  },
  {
    name: 'table-second-choice-refused',
    breaks:
      'doc1 § Headers and content negotiation: a client that lists application/json as second choice after the Table type is answered (refused with 406)',
    area: 'content-types',
    catchers: ['content-types/table/json-second-choice'],
    request: (r) =>
      /as=Table[^,]*,.*application\/json/.test(accept(r))
        ? divert(r, () => failure(406, 'NotAcceptable', 'none of the requested media types is supported'))
        : r,
    response: unlessDiverted,
  },
  {
    name: 'default-media-type-not-json',
    breaks:
      'doc1 § Headers and content negotiation: without Accept the answer is application/json (labelled text/plain)',
    area: 'content-types',
    catchers: ['content-types/json/default'],
    response: (r, res) =>
      !r.headers.accept && String(res.headers['content-type'] ?? '').includes('json')
        ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain' } }
        : res,
  },
];
