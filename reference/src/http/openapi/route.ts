// The NonResourceRoute that serves /openapi/v2 and /openapi/v3 (and its per-group-version documents).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseAccept } from '../../content/negotiate.ts';
import { errors } from '../../errors/status.ts';
import type { Registry } from '../../registry/registry.ts';
import { DIALECT } from '../../util/dialect.ts';
import type { NonResourceRoute } from '../deps.ts';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_REPLY } from './media-types.ts';
import { type Built, buildModel } from './model.ts';
import type { Json } from './names.ts';
import { openapiV2, openapiV3Doc } from './render.ts';

interface V2 {
  doc: Json;
  json: Buffer;
  pb?: Buffer;
  etag: string;
}

interface Cached {
  model: Built;
  v2?: V2;
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

/** The documents of a registry, each built when first asked for, again after the registry changed. */
class Documents {
  private cache: Cached | undefined;

  constructor(
    private readonly registry: Registry,
    private readonly title: string,
    private readonly version: string,
  ) {
    registry.changed(() => {
      this.cache = undefined;
    });
  }

  private current(): Cached {
    this.cache ??= { model: buildModel(this.registry) };
    return this.cache;
  }

  v2(): V2 {
    const c = this.current();
    if (!c.v2) {
      const doc = openapiV2(c.model, this.title, this.version);
      const json = Buffer.from(JSON.stringify(doc));
      c.v2 = { doc, json, etag: etagOf(json) };
    }
    return c.v2;
  }

  v3(): NonNullable<Cached['v3']> {
    const c = this.current();
    if (!c.v3) {
      c.v3 = new Map();
      const docs = [...new Set(c.model.ops.map((x) => x.doc))].sort();
      for (const d of docs) {
        const doc = openapiV3Doc(c.model, d, this.title, this.version);
        if (!doc) continue;
        const body = Buffer.from(JSON.stringify(doc));
        c.v3.set(d, { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() });
      }
    }
    return c.v3;
  }
}

/** The `/openapi/v2` and `/openapi/v3` routes (regenerated when the registry changes). */
export function openapiRoute(registry: Registry, o: OpenApiOptions): NonResourceRoute {
  const docs = new Documents(
    registry,
    o.title ?? (DIALECT === 'kubernetes' ? 'Kubernetes' : 'Orch'),
    o.version,
  );
  return (req: IncomingMessage, res: ServerResponse, url: URL): boolean | Promise<boolean> => {
    const path = url.pathname;
    if (path !== '/openapi' && !path.startsWith('/openapi/')) return false;
    const method = req.method ?? 'GET';
    const p = path.replace(/\/+$/, '');
    if (p === '/openapi/v2') {
      checkMethod(method);
      return serveV2(docs, req, res)?.then(() => true) ?? true;
    }
    if (p === '/openapi/v3') {
      checkMethod(method);
      pickJson(req.headers.accept);
      const paths: Json = {};
      for (const [d, e] of docs.v3()) paths[d] = { serverRelativeURL: `/openapi/v3/${d}?hash=${e.hash}` };
      const body = Buffer.from(JSON.stringify({ paths }));
      send(req, res, body, 'application/json', { ETag: etagOf(body), 'Cache-Control': 'no-cache, private' });
      return true;
    }
    if (p.startsWith('/openapi/v3/')) {
      checkMethod(method);
      serveV3Doc(docs, req, res, url, p.slice('/openapi/v3/'.length));
      return true;
    }
    throw errors.pathNotFound(path);
  };
}

/**
 * `/openapi/v2`, as JSON or in the gnostic Protobuf form: its encoder (gnostic.ts, with
 * protobufjs) is loaded at the first request for that form, then the answer waits for it.
 */
function serveV2(docs: Documents, req: IncomingMessage, res: ServerResponse): Promise<void> | undefined {
  const accept = pickV2(req.headers.accept);
  const doc = docs.v2();
  if (accept === 'protobuf' && !doc.pb)
    return import('./gnostic.ts').then(({ encodeOpenApiV2Protobuf }) => {
      doc.pb ??= encodeOpenApiV2Protobuf(doc.doc);
      replyV2(req, res, doc, accept);
    });
  replyV2(req, res, doc, accept);
  return undefined;
}

function replyV2(req: IncomingMessage, res: ServerResponse, doc: V2, accept: 'json' | 'protobuf'): void {
  const pb = accept === 'protobuf';
  const body = pb ? doc.pb! : doc.json;
  const type = pb ? OPENAPI_V2_PROTOBUF_REPLY : 'application/json';
  const etag = pb ? `${doc.etag.slice(0, -1)}-pb"` : doc.etag;
  send(req, res, body, type, { ETag: etag, Vary: 'Accept', 'Cache-Control': 'no-cache, private' });
}

/** `/openapi/v3/<doc>`: immutable at its current hash, a redirect to it from an older one. */
function serveV3Doc(docs: Documents, req: IncomingMessage, res: ServerResponse, url: URL, d: string): void {
  const e = docs.v3().get(d);
  if (!e) throw errors.pathNotFound(url.pathname);
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
    return;
  }
  const headers: Record<string, string> = { ETag: `"${e.hash}"` };
  if (hash !== null) {
    headers['Cache-Control'] = 'public, immutable';
    headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
  } else headers['Cache-Control'] = 'no-cache, private';
  send(req, res, e.body, 'application/json', headers);
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
