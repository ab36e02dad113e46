// The HTTP layer: the only place that sees a request. It authenticates, resolves the path,
// authorizes, negotiates the encoding, hands the request to the verb's handler, and turns
// every error into a Status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AuthenticationChain, type Authorizer, authorize } from '../auth/authn.ts';
import { type Negotiated, negotiate } from '../content/negotiate.ts';
import { hasProtobuf } from '../content/protobuf.ts';
import { toTable } from '../content/table.ts';
import { errors, StatusError } from '../errors/status.ts';
import { getHandler, listHandler } from '../handlers/read.ts';
import type { Handler, Scope } from '../handlers/scope.ts';
import { watchHandler } from '../handlers/watch.ts';
import {
  createHandler,
  deleteCollectionHandler,
  deleteHandler,
  patchHandler,
  updateHandler,
} from '../handlers/write.ts';
import type { Registry } from '../registry/registry.ts';
import type { RequestContext } from '../registry/types.ts';
import { apiVersionOf } from '../registry/types.ts';
import type { KObject } from '../storage/types.ts';
import { requestInfo } from './request-info.ts';
import { writeEncoded, writeError } from './respond.ts';

export interface NonResourceRoute {
  (req: IncomingMessage, res: ServerResponse, url: URL): boolean | Promise<boolean>;
}

/** Subresource handlers beyond status (e.g. pod eviction), keyed `<group>/<plural>/<sub>/<verb>`. */
export type SubresourceHandlers = Map<string, Handler>;

export interface HttpDeps {
  registry: Registry;
  authn: AuthenticationChain;
  authz: Authorizer[];
  maxBodyBytes: number;
  compression: () => boolean;
  version: Record<string, string>;
  serverAddress: () => string;
  health: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean;
  subresources: SubresourceHandlers;
  /** Extra non-resource routes (openapi, ...). */
  routes: NonResourceRoute[];
}

const VERB_HANDLERS: Record<string, Handler> = {
  get: getHandler,
  list: listHandler,
  watch: watchHandler,
  create: createHandler,
  update: updateHandler,
  patch: patchHandler,
  delete: deleteHandler,
  deletecollection: deleteCollectionHandler,
};

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? -1);
    if (declared > limit) {
      req.resume();
      reject(errors.tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        reject(errors.tooLarge(limit));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) reject(errors.badRequest(`error reading request body: ${e.message}`));
    });
  });
}

function dryRunParam(q: URLSearchParams): boolean {
  const all = q.getAll('dryRun');
  if (all.length === 0) return false;
  for (const v of all) {
    if (v !== '' && v !== 'All')
      throw errors.badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  }
  return true;
}

export function createHandlerFn(deps: HttpDeps) {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let out: Negotiated | undefined;
    const warnings: string[] = [];
    try {
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://x');
      } catch {
        throw errors.badRequest('malformed request URL');
      }
      const path = url.pathname;
      const user = deps.authn.authenticate(req);
      const q = url.searchParams;
      const watchQ = q.get('watch');
      const info = requestInfo(req.method ?? 'GET', path, watchQ === '1' || watchQ === 'true');

      if (!info.resourceRequest) {
        authorize(deps.authz, {
          user,
          verb: (req.method ?? 'GET').toLowerCase(),
          group: '',
          resource: '',
          subresource: '',
          namespace: '',
          name: '',
          path,
        });
        if (deps.health(req, res, url)) return;
        for (const r of deps.routes) if (await r(req, res, url)) return;
        out = negotiate(req.headers.accept, { protobuf: false, table: false });
        const doc = discovery(deps, path);
        if (doc === undefined) throw errors.pathNotFound(path);
        if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed(`the server does not allow this method on the requested resource`);
        writeEncoded(req, res, 200, doc, out);
        return;
      }
      if (info.extra) throw errors.pathNotFound(path);
      const served = deps.registry.lookup(info.group, info.version, info.resource);
      if (!info.resource) {
        // `/api/v1` and `/apis/<g>/<v>` with a trailing slash land here
        const doc = deps.registry.resourceList(info.group, info.version);
        if (!doc) throw errors.pathNotFound(path);
        out = negotiate(req.headers.accept, { protobuf: false, table: false });
        writeEncoded(req, res, 200, doc, out);
        return;
      }
      if (!served) throw errors.pathNotFound(path);
      const def = served.def;
      if (info.namespace && !def.namespaced) throw errors.pathNotFound(path);
      if (info.subresource && !def.subresources.includes(info.subresource)) throw errors.pathNotFound(path);
      const ctx: RequestContext = {
        user,
        warnings,
        dryRun: false,
        fieldManager: q.get('fieldManager') ?? undefined,
        userAgent: req.headers['user-agent'],
      };
      authorize(deps.authz, {
        user,
        verb: info.verb,
        group: info.group,
        resource: info.resource,
        subresource: info.subresource,
        namespace: info.namespace,
        name: info.name,
        path,
      });
      const apiVersion = apiVersionOf(def.group, info.version);
      out = negotiate(req.headers.accept, {
        protobuf: !def.custom && hasProtobuf(apiVersion, def.kind),
        table: info.verb === 'get' || info.verb === 'list',
      });
      if (['create', 'update', 'patch', 'delete', 'deletecollection'].includes(info.verb)) ctx.dryRun = dryRunParam(q);

      let handler: Handler | undefined;
      const custom = info.subresource
        ? deps.subresources.get(`${def.group}/${def.plural}/${info.subresource}/${info.verb}`)
        : undefined;
      if (custom) {
        handler = custom;
      } else if (info.subresource) {
        // subresources that take the kind's own object: status (get, update, patch), finalize (update)
        const verbs = info.subresource === 'status' ? ['get', 'update', 'patch'] : def.strategy.prepareForSubresource?.[info.subresource] ? ['update'] : [];
        if (verbs.includes(info.verb)) handler = VERB_HANDLERS[info.verb];
      } else if (def.verbs.includes(info.verb)) {
        handler = VERB_HANDLERS[info.verb];
      }
      if (!handler) {
        throw errors.methodNotAllowed(`the server does not allow this method on the requested resource`);
      }
      if (info.verb === 'list' && !def.namespaced && info.namespace) throw errors.pathNotFound(path);
      if ((info.verb === 'create' || info.verb === 'deletecollection') && def.namespaced && !info.namespace && !info.subresource)
        throw errors.pathNotFound(path);
      const negotiated = out;
      let bodyP: Promise<Buffer> | undefined;
      const scope: Scope = {
        req,
        res,
        query: q,
        served,
        def,
        store: served.store,
        registry: deps.registry,
        version: info.version,
        namespace: def.namespaced ? info.namespace : '',
        name: info.name,
        subresource: info.subresource,
        ctx,
        out: negotiated,
        body: () => (bodyP ??= readBody(req, deps.maxBodyBytes)),
        reply: (status, obj, opts) => {
          let body = obj;
          if (negotiated.format === 'table') body = tableFor(scope, obj);
          writeEncoded(req, res, status, body, negotiated, {
            gzip: opts?.gzip,
            warnings: ctx.warnings,
            compression: deps.compression(),
          });
        },
      };
      await handler(scope);
    } catch (e) {
      if (!(e instanceof StatusError)) {
        // a bug of ours, never the client's fault: log it, answer 500
        console.error('internal error:', e);
      }
      if (req.readableEnded === false && !req.destroyed) req.resume();
      writeError(req, res, e, out, warnings);
    }
  };
}

function tableFor(s: Scope, obj: unknown): unknown {
  const o = obj as { __table?: boolean; items?: KObject[]; metadata?: Record<string, unknown>; kind?: string };
  if (o && o.kind === 'Status') return obj;
  const version = (s.out.contentType.includes('v=v1beta1') ? 'v1beta1' : 'v1') as 'v1' | 'v1beta1';
  const includeObject = s.query.get('includeObject') ?? undefined;
  if (includeObject && !['None', 'Metadata', 'Object'].includes(includeObject))
    throw errors.badRequest(`includeObject: Unsupported value: "${includeObject}"`);
  const present = (x: KObject) => s.store.present(x, s.version);
  if (o.__table) return toTable(o.items ?? [], s.def.strategy.table, { version, includeObject, listMeta: o.metadata, present });
  return toTable([obj as KObject], s.def.strategy.table, { version, includeObject, present });
}

function discovery(deps: HttpDeps, path: string): unknown {
  const p = path.replace(/\/+$/, '') || '/';
  if (p === '/api') return deps.registry.apiVersions(deps.serverAddress());
  if (p === '/apis') return deps.registry.apiGroupList();
  if (p === '/version') return deps.version;
  if (p === '/') {
    const paths = ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/readyz', '/version'];
    for (const s of deps.registry.all()) for (const v of s.def.versions) if (s.def.group) paths.push(`/apis/${s.def.group}`, `/apis/${s.def.group}/${v}`);
    return { paths: [...new Set(paths)].sort() };
  }
  const m = /^\/apis\/([^/]+)$/.exec(p);
  if (m) return deps.registry.apiGroup(m[1]!);
  const m2 = /^\/api\/([^/]+)$/.exec(p);
  if (m2) return deps.registry.resourceList('', m2[1]!);
  const m3 = /^\/apis\/([^/]+)\/([^/]+)$/.exec(p);
  if (m3) return deps.registry.resourceList(m3[1]!, m3[2]!);
  return undefined;
}
