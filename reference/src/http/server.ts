// The HTTP layer: the only place that sees a request. It authenticates, resolves the path,
// authorizes, negotiates the encoding, hands the request to the verb's handler, and turns
// every error into a Status.
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket, DetailedPeerCertificate } from 'node:tls';
import { parse as parseYaml } from 'yaml';
import type { AdmissionChain } from '../admission/chain.ts';
import { annotateDeprecation } from '../audit/deprecation.ts';
import type { PolicyAttributes, PolicyEvaluator } from '../audit/policy.ts';
import { AuditRecord } from '../audit/recorder.ts';
import type { AuditSink } from '../audit/types.ts';
import { EXTRA_SPACE_WARNING, extraSpaceBeforeToken } from '../authentication/types.ts';
import { type AuthenticationUnion, Unauthenticated } from '../authentication/union.ts';
import { isPromise } from '../util/maybe-async.ts';
import type { AuthorizerChain } from '../authorization/chain.ts';
import { forbidden } from '../authorization/forbidden.ts';
import type { AuthorizationAttributes } from '../authorization/types.ts';
import { type Negotiated, negotiate } from '../content/negotiate.ts';
import { hasProtobuf } from '../content/protobuf.ts';
import { toTable } from '../content/table.ts';
import { errors, type StatusCause, StatusError } from '../errors/status.ts';
import { getHandler, listHandler } from '../handlers/read.ts';
import { bindingHandler } from '../handlers/binding.ts';
import { evictionHandler } from '../handlers/eviction.ts';
import { nodeProxyHandler } from '../handlers/node-proxy.ts';
import { podAttachHandler } from '../handlers/pod-attach.ts';
import { podExecHandler } from '../handlers/pod-exec.ts';
import { podLogHandler } from '../handlers/pod-log.ts';
import { podPortForwardHandler } from '../handlers/pod-portforward.ts';
import { podProxyHandler } from '../handlers/pod-proxy.ts';
import { serviceProxyHandler } from '../handlers/service-proxy.ts';
import { scaleGetHandler, scalePatchHandler, scaleUpdateHandler } from '../handlers/scale.ts';
import type { EventStream, Handler, ResponseWriter, Scope } from '../handlers/scope.ts';
import { watchHandler } from '../handlers/watch.ts';
import { impersonate, wantsImpersonation } from '../impersonation/impersonate.ts';
import {
  createHandler,
  deleteCollectionHandler,
  deleteHandler,
  patchHandler,
  updateHandler,
} from '../handlers/write.ts';
import type { Registry, Served } from '../registry/registry.ts';
import type { GenericStore } from '../registry/store.ts';
import { isConnect, subresourceVerbs } from '../registry/subresources.ts';
import {
  type RequestContext,
  type ResourceDef,
  apiVersionOf,
  deprecationWarning,
} from '../registry/types.ts';
import type { KObject } from '../storage/types.ts';
import { forward } from './forward.ts';
import type { RequestMetrics, RequestObservation } from '../metrics/requests.ts';
import { isMutating, labelRequest, methodVerb, recordEnd } from './metrics.ts';
import { type RequestInfo, requestInfo, watchRequested } from './request-info.ts';
import { warningHeaders, writeEncoded, writeError } from './respond.ts';

export type NonResourceRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
) => boolean | Promise<boolean>;

export interface HttpDeps {
  registry: Registry;
  authn: AuthenticationUnion;
  authz: AuthorizerChain;
  admission: AdmissionChain;
  audit: readonly AuditSink[];
  /** `--audit-policy-file`: each request's level and stages (without it, every request at Metadata, one event). */
  auditPolicy?: PolicyEvaluator;
  maxBodyBytes: number;
  compression: () => boolean;
  version: Record<string, string>;
  serverAddress: () => string;
  health: (res: ServerResponse, url: URL) => Promise<boolean>;
  /** Extra non-resource routes (openapi, ...). */
  routes: NonResourceRoute[];
  /** Handlers of subresources wired by the server, by `<plural>/<subresource>` (serviceaccounts/token). */
  subresourceHandlers?: Readonly<Record<string, Handler>>;
  /** The request metrics (none: nothing is recorded). */
  metrics?: RequestMetrics;
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

const SCALE_HANDLERS: Record<string, Handler> = {
  get: scaleGetHandler,
  update: scaleUpdateHandler,
  patch: scalePatchHandler,
};

/**
 * The subresources served by handlers of their own, by `<plural>/<subresource>` and verb (a
 * subresource of a plural not listed here takes the kind's own object: status, finalize).
 */
const SUBRESOURCE_HANDLERS: Record<string, Record<string, Handler>> = {
  'pods/binding': { create: bindingHandler },
  'pods/log': { get: podLogHandler },
  'pods/exec': { get: podExecHandler, create: podExecHandler },
  'pods/attach': { get: podAttachHandler, create: podAttachHandler },
  'pods/portforward': { get: podPortForwardHandler, create: podPortForwardHandler },
  'pods/proxy': proxyVerbs(podProxyHandler),
  'services/proxy': proxyVerbs(serviceProxyHandler),
  'nodes/proxy': proxyVerbs(nodeProxyHandler),
};

/** A proxy subresource serves each of its verbs with the one handler: the method is passed on. */
function proxyVerbs(h: Handler): Record<string, Handler> {
  return { get: h, create: h, update: h, patch: h, delete: h, options: h };
}

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
    let settled = false;
    const fail = (e: StatusError) => {
      if (settled) return;
      settled = true;
      reject(e);
    };
    req.on('data', (c: Buffer) => {
      if (settled) return;
      size += c.length;
      if (size > limit) {
        chunks.length = 0;
        fail(errors.tooLarge(limit));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', (e) => fail(errors.badRequest(`error reading request body: ${e.message}`)));
    // a client that goes away mid-body: the handler must not wait for an 'end' that never comes
    req.on('close', () => {
      if (!req.complete)
        fail(errors.badRequest('the client closed the connection before sending the whole body'));
    });
  });
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** An integer query parameter (Go int64): anything else is a 400, as Kubernetes' parameter decoding. */
function intParam(q: URLSearchParams, name: string, nonNegative = false): void {
  const v = q.get(name);
  if (v === null || v === '') return;
  if (!/^[-+]?\d+$/.test(v))
    throw errors.badRequest(
      `invalid value for ${name}: ${JSON.stringify(v)}: strconv.ParseInt: invalid syntax`,
    );
  const n = BigInt(v);
  if (n < INT64_MIN || n > INT64_MAX)
    throw errors.badRequest(
      `invalid value for ${name}: ${JSON.stringify(v)}: strconv.ParseInt: value out of range`,
    );
  if (nonNegative && n < 0n)
    throw errors.badRequest(`invalid value for ${name}: ${JSON.stringify(v)}: must be non-negative`);
}

/** Go's `%#v` of a []string, as Kubernetes prints a bad list value. */
function goStrings(vs: string[]): string {
  return `[]string{${vs.map((v) => JSON.stringify(v)).join(', ')}}`;
}

const OPTIONS_KIND: Record<string, string> = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
  delete: 'DeleteOptions',
  deletecollection: 'DeleteOptions',
};
const FIELD_MANAGER_MAX = 128;
const PATCH_TYPES = new Set([
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
]);
const APPLY_TYPE = 'application/apply-patch+yaml';

/**
 * The query options of a request, checked before its handler runs: a value that does not parse
 * is a 400 (Kubernetes' parameter decoding), a parsed value the verb refuses a 422 naming the
 * options kind (`CreateOptions.meta.orch.io "" is invalid: ...`). Returns whether it is a dry run.
 */
function checkQueryOptions(verb: string, q: URLSearchParams, contentType: string | undefined): boolean {
  if (verb === 'get' || verb === 'list' || verb === 'watch' || verb === 'deletecollection') {
    const rv = q.get('resourceVersion');
    if (rv !== null && rv !== '' && (!/^\d+$/.test(rv) || BigInt(rv) > UINT64_MAX))
      throw errors.badRequest(`invalid resource version: ${JSON.stringify(rv)}`);
  }
  if (verb === 'list' || verb === 'watch' || verb === 'deletecollection') {
    intParam(q, 'limit');
    intParam(q, 'timeoutSeconds', true);
  }
  const kind = OPTIONS_KIND[verb];
  if (!kind) return false;
  const causes: StatusCause[] = [];
  const dryRun = q.getAll('dryRun');
  const badDryRun = dryRun.filter((v) => v !== '' && v !== 'All');
  if (badDryRun.length)
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'dryRun',
      message: `Unsupported value: ${goStrings(dryRun)}: supported values: "All"`,
    });
  if (verb === 'delete' || verb === 'deletecollection') {
    intParam(q, 'gracePeriodSeconds');
    const pp = q.get('propagationPolicy');
    if (pp !== null && pp !== '' && !['Foreground', 'Background', 'Orphan'].includes(pp))
      causes.push({
        reason: 'FieldValueNotSupported',
        field: 'propagationPolicy',
        message: `Unsupported value: ${JSON.stringify(pp)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
      });
  } else {
    const fm = q.get('fieldManager') ?? '';
    if (Buffer.byteLength(fm) > FIELD_MANAGER_MAX)
      causes.push({
        reason: 'FieldValueTooLong',
        field: 'fieldManager',
        message: `Too long: must have at most ${FIELD_MANAGER_MAX} bytes`,
      });
    let pos = 0;
    for (const ch of fm) {
      if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
        const cp = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
        causes.push({
          reason: 'FieldValueInvalid',
          field: 'fieldManager',
          message: `Invalid value: ${JSON.stringify(fm)}: invalid character U+${cp} (at position ${pos})`,
        });
      }
      pos += Buffer.byteLength(ch);
    }
    const fv = q.get('fieldValidation');
    if (fv !== null && !['', 'Ignore', 'Warn', 'Strict'].includes(fv))
      causes.push({
        reason: 'FieldValueNotSupported',
        field: 'fieldValidation',
        message: `Unsupported value: ${JSON.stringify(fv)}: supported values: "", "Ignore", "Strict", "Warn"`,
      });
    if (verb === 'patch') {
      const pt = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
      if (PATCH_TYPES.has(pt) && q.has('force'))
        causes.push({
          reason: 'FieldValueForbidden',
          field: 'force',
          message: 'Forbidden: may not be specified for non-apply patch',
        });
      if (pt === APPLY_TYPE && !q.get('fieldManager'))
        causes.push({
          reason: 'FieldValueRequired',
          field: 'fieldManager',
          message: 'Required value: is required for apply patch',
        });
    }
  }
  if (causes.length) throw errors.invalidOptions(kind, causes);
  return dryRun.length > 0;
}

/**
 * The path and query of a request target as the client sent it. The path is not normalised
 * (no dot-segment resolution, no percent-decoding): resource paths are split and decoded
 * segment by segment (request-info.ts). An absolute-form target is served by its path.
 */
function requestTarget(raw: string): { path: string; url: URL } {
  let t = raw;
  const abs = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(t);
  if (abs) {
    t = t.slice(abs[0].length);
    if (!t.startsWith('/')) t = `/${t}`;
  }
  if (!t.startsWith('/'))
    throw errors.badRequest(`malformed request target ${JSON.stringify(raw.slice(0, 256))}: not a path`);
  const qi = t.indexOf('?');
  const path = qi < 0 ? t : t.slice(0, qi);
  try {
    return { path, url: new URL(`http://x${t}`) };
  } catch {
    throw errors.badRequest(`malformed request target ${JSON.stringify(raw.slice(0, 256))}`);
  }
}

/** Path shapes: which verbs a resource path without subresource serves. */
function shapeVerbs(named: boolean, namespaced: boolean, hasNamespace: boolean): string[] {
  if (named) return ['get', 'watch', 'update', 'patch', 'delete'];
  if (namespaced && !hasNamespace) return ['list', 'watch']; // the all-namespaces collection
  return ['list', 'watch', 'create', 'deletecollection'];
}

const ignore = () => {};

/**
 * After a refused request the client may still be sending (a large body behind a bad request
 * line): the rest is read and discarded, up to these bounds, before the connection is closed.
 */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 30_000;
/** Sockets already answered by clientErrorHandler: bytes discarded since. */
const draining = new WeakMap<Duplex, { bytes: number }>();

/**
 * A request the HTTP parser refused (malformed request line or headers, headers past the
 * size limit): answered with a Status on the raw socket, then the connection is closed.
 *
 * Node's parser stays in its error state and reports the error again for every later chunk
 * of the connection. Those later reports are the rest of the request arriving (typically its
 * body): they are ignored, so the bytes are read and dropped while the reply, ended with
 * `Connection: close` and a half-close, reaches the client. Destroying the socket there
 * would reset the connection with unread data, and the client (always over TLS, whose reply
 * is still being written at that point) would lose the reply.
 */
export function clientErrorHandler(
  err: Error & { code?: string; reason?: string; rawPacket?: Buffer },
  socket: Duplex,
): void {
  const drain = draining.get(socket);
  if (drain) {
    drain.bytes += err.rawPacket?.length ?? 0;
    if (err.code === 'ECONNRESET' || drain.bytes > DRAIN_MAX_BYTES) socket.destroy();
    return;
  }
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  let se: StatusError;
  if (err.code === 'HPE_HEADER_OVERFLOW') se = errors.headersTooLarge();
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    se = new StatusError(408, 'Timeout', 'the request was not received in time');
  else se = errors.badRequest(`malformed HTTP request: ${err.reason ?? err.code ?? 'parse error'}`);
  const body = JSON.stringify(se.toStatus());
  socket.on('error', ignore);
  draining.set(socket, { bytes: 0 });
  // a client that neither stops sending nor closes is cut off in the end
  const timer = setTimeout(() => socket.destroy(), DRAIN_MAX_MS);
  timer.unref?.();
  socket.once('close', () => clearTimeout(timer));
  socket.end(
    `HTTP/1.1 ${se.code} ${STATUS_CODES[se.code] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Last resort when writing the error reply itself failed: a bare 500, or a reset connection. */
function lastResort(res: ServerResponse, e: unknown): void {
  console.error('internal error while answering a request:', e);
  try {
    if (res.headersSent || res.writableEnded) {
      res.destroy();
      return;
    }
    const body = JSON.stringify(errors.internal('the reply could not be written').toStatus());
    res.writeHead(500, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  } catch {
    res.destroy();
  }
}

/** The handler of a resource request's verb, or undefined when its path does not serve the verb. */
function route(
  info: RequestInfo,
  def: ResourceDef,
  wired?: Readonly<Record<string, Handler>>,
): Handler | undefined {
  if (!info.subresource) {
    if (!def.verbs.includes(info.verb)) return undefined;
    if (!shapeVerbs(!!info.name, def.namespaced, !!info.namespace).includes(info.verb)) return undefined;
    // a resource that is not stored: its own handler (core bindings)
    if (!def.group && def.plural === 'bindings') return info.verb === 'create' ? bindingHandler : undefined;
    return VERB_HANDLERS[info.verb];
  }
  // a proxy passes OPTIONS on too (authorized as the verb `options`, as Kubernetes names it)
  const proxiedOptions = info.subresource === 'proxy' && info.verb === 'options';
  if (!subresourceVerbs(info.subresource).includes(info.verb) && !proxiedOptions) return undefined;
  const own = wired?.[`${def.plural}/${info.subresource}`];
  if (own) return own;
  const table = SUBRESOURCE_HANDLERS[`${def.plural}/${info.subresource}`];
  if (table) return table[info.verb];
  switch (info.subresource) {
    case 'scale':
      return SCALE_HANDLERS[info.verb];
    case 'eviction':
      return evictionHandler;
    default:
      // subresources that take the kind's own object: status, finalize, ephemeralcontainers
      return VERB_HANDLERS[info.verb];
  }
}

/** A watch's chunked reply on node's response (a HEAD's ends after the handler: see handle). */
function eventStream(
  res: ServerResponse,
  contentType: string,
  audit: AuditRecord | undefined,
  warnings: string[] = [],
): EventStream {
  let started = false;
  const stream: EventStream = {
    start() {
      if (started) return;
      started = true;
      res.writeHead(200, {
        'Content-Type': contentType,
        'Transfer-Encoding': 'chunked',
        'Cache-Control': 'no-cache, private',
        // a watch of a deprecated version warns as any other request does
        ...(warnings.length ? { Warning: warningHeaders(warnings) } : {}),
      });
      res.flushHeaders();
      // a long-running reply's headers are out: its ResponseStarted event
      audit?.stage('ResponseStarted', 200);
    },
    write(chunk) {
      if (!stream.closed) res.write(chunk);
    },
    end() {
      stream.start();
      if (!res.writableEnded) res.end();
    },
    destroy() {
      res.destroy();
    },
    get buffered() {
      return res.writableLength;
    },
    get closed() {
      return res.writableEnded || res.destroyed;
    },
    onClose(f) {
      if (res.writableEnded || res.destroyed) queueMicrotask(f);
      else res.once('close', f);
    },
  };
  return stream;
}

const OPTIONS_OF_VERB: Record<string, string> = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
  delete: 'DeleteOptions',
  deletecollection: 'DeleteOptions',
};

/** The options of a write as admission sees them (the query's, in the options kind's shape). */
function writeOptions(verb: string, q: URLSearchParams): Record<string, unknown> | undefined {
  const kind = OPTIONS_OF_VERB[verb];
  if (!kind) return undefined;
  const o: Record<string, unknown> = { kind, apiVersion: 'meta.orch.io/v1' };
  const dryRun = q.getAll('dryRun').filter((v) => v !== '');
  if (dryRun.length) o.dryRun = dryRun;
  for (const k of ['fieldManager', 'fieldValidation', 'propagationPolicy']) {
    const v = q.get(k);
    if (v) o[k] = v;
  }
  if (q.has('force')) o.force = q.get('force') !== 'false';
  return o;
}

/**
 * The certificate chain the client presented (leaf first, DER), verified or not: the
 * certificate methods judge it themselves against their own CAs. Read once per connection.
 */
const chains = new WeakMap<TLSSocket, Buffer[] | null>();
function peerCertificates(req: IncomingMessage): Buffer[] | undefined {
  const sock = req.socket as TLSSocket;
  if (typeof sock.getPeerCertificate !== 'function') return undefined;
  const kept = chains.get(sock);
  if (kept !== undefined) return kept ?? undefined;
  const out: Buffer[] = [];
  let c = sock.getPeerCertificate(true) as DetailedPeerCertificate | undefined;
  const seen = new Set<Buffer>();
  while (c?.raw && !seen.has(c.raw)) {
    seen.add(c.raw);
    out.push(c.raw);
    c = c.issuerCertificate;
  }
  chains.set(sock, out.length ? out : null);
  return out.length ? out : undefined;
}

/**
 * What a handler gets (`Scope`), over node's request and response: a class rather than an
 * object of closures, as one is made for every request.
 */
class HttpScope implements Scope, ResponseWriter {
  readonly verb: string;
  readonly contentType: string | undefined;
  readonly def: ResourceDef;
  readonly store: GenericStore;
  readonly registry: Registry;
  readonly version: string;
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  readonly subpath: string;
  private bodyP?: Promise<Buffer>;

  constructor(
    private readonly req: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly deps: HttpDeps,
    info: RequestInfo,
    readonly path: string,
    readonly query: URLSearchParams,
    readonly served: Served,
    readonly ctx: RequestContext,
    readonly out: Negotiated,
    private readonly audit: AuditRecord | undefined,
    private readonly observed: RequestObservation | undefined,
  ) {
    this.verb = info.verb;
    this.contentType = req.headers['content-type'];
    this.def = served.def;
    this.store = served.store;
    this.registry = deps.registry;
    this.version = info.version;
    this.namespace = served.def.namespaced ? info.namespace : '';
    this.name = info.name;
    this.subresource = info.subresource;
    this.subpath = info.subpath;
  }

  get res(): ResponseWriter {
    return this;
  }

  body(): Promise<Buffer> {
    if (!this.bodyP) {
      this.bodyP = readBody(this.req, this.deps.maxBodyBytes);
      const audit = this.audit;
      if (audit?.atLeast('Request')) {
        const type = this.contentType;
        this.bodyP.then((b) => audit.setRequestObject(auditedBody(b, type)), ignore);
      }
    }
    return this.bodyP;
  }

  reply(status: number, obj: unknown, opts?: { gzip?: boolean }): void {
    const body = this.out.format === 'table' ? tableFor(this, obj) : obj;
    this.audit?.setResponseObject(body);
    writeEncoded(this.req, this.response, status, body, this.out, {
      gzip: opts?.gzip,
      warnings: this.ctx.warnings,
      compression: this.deps.compression(),
      sized: this.observed,
    });
  }

  stream(contentType: string): EventStream {
    return eventStream(this.response, contentType, this.audit, this.ctx.warnings);
  }

  forward(location: URL, query: string): Promise<void> {
    return forward(this.req, this.response, location, query);
  }
}

export function createHandlerFn(deps: HttpDeps) {
  const handle = async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    audit: AuditRecord | undefined,
    observed: RequestObservation | undefined,
  ): Promise<void> {
    let out: Negotiated | undefined;
    const warnings: string[] = [];
    // whether the audit policy has judged the request (a request refused before is judged in the catch)
    let evaluated = false;
    const method = (req.method ?? 'GET').toUpperCase();
    try {
      const { path, url } = requestTarget(req.url ?? '/');
      // On a store shared with other servers, the request sees every change committed before
      // it came (objects, and the roles, webhooks and definitions that decide about it), unless
      // it asks for any version (resourceVersion=0) of what it reads.
      const storage = deps.registry.storage;
      if (storage.sync && apiPath(path) && !anyVersionRead(method, url)) await storage.sync();
      // stages answer synchronously when they can: an await only where one returned a promise
      const authnAnswer = deps.authn.authenticate({
        headers: req.headers,
        peerCertificates: peerCertificates(req),
        remoteAddress: req.socket.remoteAddress,
        rawHeaders: req.rawHeaders,
      });
      const authenticated = isPromise(authnAnswer) ? await authnAnswer : authnAnswer;
      if (req.headers.authorization !== undefined && extraSpaceBeforeToken(req.headers))
        warnings.push(EXTRA_SPACE_WARNING);
      const user = wantsImpersonation(req.headers)
        ? await impersonate(authenticated.user, req.headers, deps.authz, req.rawHeaders)
        : authenticated.user;
      const q = url.searchParams;
      const info = requestInfo(method, path, watchRequested(q));
      if (observed) labelRequest(observed, info, q, req.headers['content-type']);
      if (audit) {
        audit.user = authenticated.user;
        if (user !== authenticated.user) audit.impersonatedUser = user;
        audit.verb = info.verb;
      }
      if (audit && info.resourceRequest)
        audit.objectRef = {
          resource: info.resource || undefined,
          namespace: info.namespace || undefined,
          name: info.name || undefined,
          apiGroup: info.group || undefined,
          apiVersion: info.version || undefined,
          subresource: info.subresource || undefined,
        };
      if (audit) {
        // the policy judges the authenticated user's request (as Kubernetes' audit filter, before impersonation)
        if (deps.auditPolicy)
          audit.config = deps.auditPolicy.evaluate(policyAttributes(info, authenticated.user));
        evaluated = true;
        audit.stage('RequestReceived');
      }
      // As in Kubernetes, authorization comes before routing: an anonymous user learns nothing
      // about which paths exist.
      const attrs: AuthorizationAttributes = {
        user,
        verb: info.resourceRequest ? info.verb : method.toLowerCase(),
        resourceRequest: info.resourceRequest,
        apiGroup: deps.registry.canonicalGroup(info.group),
        apiVersion: info.version,
        resource: info.resource,
        subresource: info.subresource,
        namespace: info.namespace,
        name: info.name,
        path,
      };
      const authzAnswer = deps.authz.authorize(attrs);
      const decision = isPromise(authzAnswer) ? await authzAnswer : authzAnswer;
      audit?.annotate('authorization.orch.io/decision', decision.decision === 'allow' ? 'allow' : 'forbid');
      audit?.annotate('authorization.orch.io/reason', decision.reason);
      if (decision.decision !== 'allow') throw forbidden(attrs, decision);

      if (!info.resourceRequest) {
        // non-resource routes read `url`: a path the URL parser would rewrite (dot segments,
        // backslashes, characters it escapes) names none of them
        if (url.pathname !== path) throw errors.pathNotFound(path);
        // the path is a label only if a route answers it (see recordEnd)
        if (observed) observed.subresource = path.replace(/\/+$/, '') || '/';
        if (await deps.health(res, url)) return;
        for (const r of deps.routes) if (await r(req, res, url)) return;
        const doc = discovery(deps, path);
        if (doc === undefined) throw errors.pathNotFound(path);
        if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed();
        out = negotiate(req.headers.accept, { protobuf: false, table: false });
        writeEncoded(req, res, 200, doc, out, { sized: observed });
        return;
      }
      if (info.extra || !info.resource) throw errors.pathNotFound(path);
      const served = deps.registry.lookup(info.group, info.version, info.resource);
      if (!served) throw errors.pathNotFound(path);
      const def = served.def;
      if (info.namespace && !def.namespaced) throw errors.pathNotFound(path);
      if (info.subresource && !def.subresources.includes(info.subresource)) throw errors.pathNotFound(path);
      if (observed) {
        // labels of a served resource only: any other path would make the label set grow without bound
        observed.group = info.group;
        observed.version = info.version;
        observed.resource = def.plural;
        observed.subresource = info.subresource;
      }
      // `/api/v1/configmaps/<name>`: a namespaced kind has no object paths outside a namespace
      if (info.name && def.namespaced && !info.namespace) throw errors.pathNotFound(path);
      // kinds that are not stored (reviews) have no object paths
      if (info.name && def.strategy.review) throw errors.pathNotFound(path);
      // a namespaced kind's path outside a namespace is its list across namespaces: none when it is not listed
      if (def.namespaced && !info.namespace && !def.verbs.includes('list')) throw errors.pathNotFound(path);
      const handler = route(info, def, deps.subresourceHandlers);
      if (!handler) throw errors.methodNotAllowed();
      const deprecated = deprecationWarning(def, info.version);
      if (deprecated) {
        warnings.push(deprecated);
        deps.metrics?.deprecatedRequest(
          info.group,
          info.version,
          def.plural,
          info.subresource,
          def.versionInfo?.[info.version]?.removedIn ?? '',
        );
      }
      if (observed && info.verb === 'watch') deps.metrics!.startLongRunning(observed);
      annotateDeprecation(audit, def.versionInfo?.[info.version]);
      if (info.invalidName) throw errors.badRequest(info.invalidName);
      const ctx: RequestContext = {
        user,
        warnings,
        dryRun: false,
        fieldManager: q.get('fieldManager') ?? undefined,
        userAgent: req.headers['user-agent'],
        audit,
      };
      const apiVersion = apiVersionOf(def.group, info.version);
      // a connect subresource answers with what its backend sends (its errors in JSON), and
      // its query is the backend's or the subresource's own options, not a write's
      const connect = isConnect(info.subresource);
      out = connect
        ? negotiate(undefined, { protobuf: false, table: false })
        : negotiate(req.headers.accept, {
            protobuf: !def.custom && hasProtobuf(apiVersion, def.kind),
            table: info.verb === 'get' || info.verb === 'list',
          });
      if (!connect) ctx.dryRun = checkQueryOptions(info.verb, q, req.headers['content-type']);
      if (OPTIONS_OF_VERB[info.verb] && !connect) {
        // admission sees a resource served under another group name as its own group
        const group = deps.registry.canonicalGroup(def.group);
        // a pod's binding is admitted as the v1 Binding it creates, as Kubernetes admits it
        const gvk =
          info.subresource === 'binding'
            ? { group: '', version: 'v1', kind: 'Binding' }
            : { group, version: info.version, kind: def.kind };
        const gvr = { group, version: info.version, resource: def.plural };
        ctx.admission = deps.admission.forRequest({
          requestKind: gvk,
          requestResource: gvr,
          kind: gvk,
          resource: gvr,
          subresource: info.subresource,
          options: writeOptions(info.verb, q),
          ctx,
        });
      }
      const scope = new HttpScope(req, res, deps, info, path, q, served, ctx, out, audit, observed);
      await handler(scope);
      // A HEAD reply is its headers: one the handler left streaming (a watch) ends with them,
      // which also stops the watch ('close'), and the connection serves the next request.
      if (method === 'HEAD' && res.headersSent && !res.writableEnded) res.end();
    } catch (e) {
      if (!(e instanceof StatusError)) {
        // a bug of ours, never the client's fault: log it, answer 500
        console.error('internal error:', e);
      }
      if (audit && e instanceof Unauthenticated)
        for (const r of e.refusals) audit.annotate('authentication.orch.io/refused', r);
      if (req.readableEnded === false && !req.destroyed) req.resume();
      const se = e instanceof StatusError ? e : undefined;
      if (audit) {
        if (!evaluated && deps.auditPolicy)
          audit.config = deps.auditPolicy.evaluate(refusedAttributes(req, method, audit));
        audit.failure = se
          ? { reason: se.reason, message: se.message }
          : { reason: 'InternalError', message: String(e) };
        if (!se) audit.panicked = true;
        if (audit.atLeast('RequestResponse') && !res.headersSent)
          audit.setResponseObject(
            se ? se.toStatus() : errors.internal(String((e as Error)?.message ?? e)).toStatus(),
          );
      }
      writeError(req, res, e, out, warnings, observed);
    }
  };
  // Nothing a request does may escape as an exception or an unhandled 'error' event: an error
  // after the headers went out resets the connection, a client that went away is ignored.
  return async function guarded(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.on('error', ignore);
    res.on('error', ignore);
    // no sink, no audit work at all (one request's record costs a uuid and a header)
    let audit: AuditRecord | undefined;
    if (deps.audit.length) {
      const auditId = req.headers['audit-id'];
      const record = new AuditRecord(
        deps.audit,
        req.url ?? '/',
        req.socket.remoteAddress ?? '',
        req.headers['user-agent'],
        typeof auditId === 'string' ? auditId : undefined,
      );
      audit = record;
      res.setHeader('Audit-Id', record.auditID);
      res.once('close', () =>
        record.complete(
          record.panicked ? 500 : res.statusCode,
          record.failure,
          record.panicked ? 'Panic' : 'ResponseComplete',
        ),
      );
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const observed = deps.metrics?.begin(isMutating(method));
    if (observed) observed.verb = methodVerb(method);
    try {
      await handle(req, res, audit, observed);
    } catch (e) {
      if (audit) {
        audit.failure = { reason: 'InternalError', message: String(e) };
        audit.panicked = true;
      }
      lastResort(res, e);
    }
    if (observed) recordEnd(deps.metrics!, observed, res, req);
  };
}

/** What the audit policy sees of a request: the authenticated user and the request's attributes. */
function policyAttributes(info: RequestInfo, user: PolicyAttributes['user']): PolicyAttributes {
  return {
    user,
    verb: info.verb,
    resourceRequest: info.resourceRequest,
    apiGroup: info.group,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    path: info.path,
  };
}

/** A request refused before the policy judged it (authentication failed, a malformed path): what is known of it. */
function refusedAttributes(req: IncomingMessage, method: string, audit: AuditRecord): PolicyAttributes {
  let info: RequestInfo;
  try {
    const { path, url } = requestTarget(req.url ?? '/');
    info = requestInfo(method, path, watchRequested(url.searchParams));
  } catch {
    info = {
      ...requestInfo(method, '/', false),
      resourceRequest: false,
      path: (req.url ?? '/').split('?')[0]!,
    };
  }
  return policyAttributes(info, audit.user.username ? audit.user : undefined);
}

/** A request's body as its audit event holds it: JSON and YAML decoded, other encodings left out. */
function auditedBody(b: Buffer, contentType: string | undefined): unknown {
  if (!b.length) return undefined;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  try {
    if (type.endsWith('yaml')) return parseYaml(b.toString('utf8'));
    if (type === '' || type.endsWith('json')) return JSON.parse(b.toString('utf8'));
  } catch {
    // a body that does not decode is refused by the handler; the event has no object
  }
  return undefined;
}

function tableFor(s: Scope, obj: unknown): unknown {
  const o = obj as {
    __table?: boolean;
    items?: KObject[];
    metadata?: Record<string, unknown>;
    kind?: string;
  };
  if (o && o.kind === 'Status') return obj;
  const { version, group } = s.out.table ?? { version: 'v1' as const, group: undefined };
  const includeObject = s.query.get('includeObject') ?? undefined;
  if (includeObject && !['None', 'Metadata', 'Object'].includes(includeObject))
    throw errors.badRequest(`includeObject: Unsupported value: "${includeObject}"`);
  const present = (x: KObject) => s.store.present(x, s.version);
  if (o.__table)
    return toTable(o.items ?? [], s.def.strategy.table, {
      version,
      group,
      includeObject,
      listMeta: o.metadata,
      present,
    });
  return toTable([obj as KObject], s.def.strategy.table, { version, group, includeObject, present });
}

function discovery(deps: HttpDeps, path: string): unknown {
  const p = path.replace(/\/+$/, '') || '/';
  if (p === '/api') return deps.registry.apiVersions(deps.serverAddress());
  if (p === '/apis') return deps.registry.apiGroupList();
  if (p === '/version') return deps.version;
  if (p === '/') {
    const paths = ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/metrics', '/readyz', '/version'];
    for (const s of deps.registry.all())
      for (const v of s.def.versions)
        if (s.def.group && deps.registry.servesGroupVersion(s.def.group, v))
          paths.push(`/apis/${s.def.group}`, `/apis/${s.def.group}/${v}`);
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

/** Paths of the API (resources and discovery), as opposed to health, metrics, version and OpenAPI. */
function apiPath(path: string): boolean {
  return path.startsWith('/api/') || path.startsWith('/apis/') || path === '/api' || path === '/apis';
}

/** A read that accepts any version (doc1 "Any": resourceVersion=0): served from this server's cache as it is. */
function anyVersionRead(method: string, url: URL): boolean {
  return (method === 'GET' || method === 'HEAD') && url.searchParams.get('resourceVersion') === '0';
}
