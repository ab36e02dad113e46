// The NonResourceRoute that serves /openapi/v2 and /openapi/v3 (and its per-group-version documents).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseAccept } from '../../content/negotiate.ts';
import { errors } from '../../errors/status.ts';
import type { Registry } from '../../registry/registry.ts';
import type { NonResourceRoute } from '../deps.ts';
import { encodeOpenApiV2Protobuf, OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_REPLY } from './gnostic.ts';
import { type Built, buildModel } from './model.ts';
import type { Json } from './names.ts';
import { openapiV2, openapiV3Doc } from './render.ts';

interface Cached {
  model: Built;
  v2?: { doc: Json; json: Buffer; pb?: Buffer; etag: string };
  v3?: Map<string, { body: Buffer; hash: string }>;
}

export interface OpenApiOptions {
  title?: string;
  /** The server's version (`info.version`). */
  version: string;
}

function etagOf(b: Buffer): string {
  return `"${createHash('sha512').update(b).digest('hex').toUpperCase()}"`;
}

/** The `/openapi/v2` and `/openapi/v3` routes (regenerated when the registry changes). */
export function openapiRoute(registry: Registry, o: OpenApiOptions): NonResourceRoute {
  const title = o.title ?? 'Orch';
  let cache: Cached | undefined;
  registry.changed(() => {
    cache = undefined;
  });
  const current = (): Cached => (cache ??= { model: buildModel(registry) });
  const v2 = () => {
    const c = current();
    if (!c.v2) {
      const doc = openapiV2(c.model, title, o.version);
      const json = Buffer.from(JSON.stringify(doc));
      c.v2 = { doc, json, etag: etagOf(json) };
    }
    return c.v2;
  };
  const v3 = () => {
    const c = current();
    if (!c.v3) {
      c.v3 = new Map();
      const docs = [...new Set(c.model.ops.map((x) => x.doc))].sort();
      for (const d of docs) {
        const doc = openapiV3Doc(c.model, d, title, o.version);
        if (!doc) continue;
        const body = Buffer.from(JSON.stringify(doc));
        c.v3.set(d, { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() });
      }
    }
    return c.v3;
  };

  return (req: IncomingMessage, res: ServerResponse, url: URL): boolean => {
    const path = url.pathname;
    if (path !== '/openapi' && !path.startsWith('/openapi/')) return false;
    const method = req.method ?? 'GET';
    const p = path.replace(/\/+$/, '');
    if (p === '/openapi/v2') {
      checkMethod(method);
      const accept = pickV2(req.headers.accept);
      const doc = v2();
      let body = doc.json;
      let type = 'application/json';
      if (accept === 'protobuf') {
        body = doc.pb ??= encodeOpenApiV2Protobuf(doc.doc);
        type = OPENAPI_V2_PROTOBUF_REPLY;
      }
      const etag = accept === 'protobuf' ? `${doc.etag.slice(0, -1)}-pb"` : doc.etag;
      send(req, res, body, type, { ETag: etag, Vary: 'Accept', 'Cache-Control': 'no-cache, private' });
      return true;
    }
    if (p === '/openapi/v3') {
      checkMethod(method);
      pickJson(req.headers.accept);
      const paths: Json = {};
      for (const [d, e] of v3()) paths[d] = { serverRelativeURL: `/openapi/v3/${d}?hash=${e.hash}` };
      const body = Buffer.from(JSON.stringify({ paths }));
      send(req, res, body, 'application/json', { ETag: etagOf(body), 'Cache-Control': 'no-cache, private' });
      return true;
    }
    if (p.startsWith('/openapi/v3/')) {
      checkMethod(method);
      const d = p.slice('/openapi/v3/'.length);
      const e = v3().get(d);
      if (!e) throw errors.pathNotFound(path);
      pickJson(req.headers.accept);
      const hash = url.searchParams.get('hash');
      if (hash !== null && hash !== e.hash) {
        // an older document: send the client to the current one
        res.writeHead(301, {
          Location: `/openapi/v3/${d}?hash=${e.hash}`,
          'Cache-Control': 'no-cache, private',
          'Content-Length': 0,
        });
        res.end();
        return true;
      }
      const headers: Record<string, string> = { ETag: `"${e.hash}"` };
      if (hash !== null) {
        headers['Cache-Control'] = 'public, immutable';
        headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
      } else headers['Cache-Control'] = 'no-cache, private';
      send(req, res, e.body, 'application/json', headers);
      return true;
    }
    throw errors.pathNotFound(path);
  };
}

function checkMethod(method: string): void {
  if (method !== 'GET' && method !== 'HEAD')
    throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
}

function pickV2(accept: string | undefined): 'json' | 'protobuf' {
  for (const r of parseAccept(accept)) {
    if (r.type === OPENAPI_V2_PROTOBUF || r.type === OPENAPI_V2_PROTOBUF_REPLY) return 'protobuf';
    if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*') return 'json';
  }
  throw errors.notAcceptable(['application/json', OPENAPI_V2_PROTOBUF]);
}

function pickJson(accept: string | undefined): void {
  for (const r of parseAccept(accept))
    if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*') return;
  throw errors.notAcceptable(['application/json']);
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  type: string,
  headers: Record<string, string>,
): void {
  const inm = req.headers['if-none-match'];
  if (inm && headers.ETag && inm.split(',').some((t) => t.trim() === headers.ETag || t.trim() === '*')) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length, ...headers });
  res.end(req.method === 'HEAD' ? undefined : body);
}
