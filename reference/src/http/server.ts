// The HTTP layer: the only place that sees a request. It authenticates, resolves the path,
// authorizes, negotiates the encoding, hands the request to the verb's handler, and turns
// every error into a Status. The pipeline is here; each concern it calls on has a file of its
// own: routing.ts (targets, resources, handlers), query-options.ts, body.ts, watch-stream.ts,
// tables.ts, discovery.ts, audit-attributes.ts, scope.ts (what a handler gets) and
// socket-errors.ts (what is answered outside a request).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import { annotateDeprecation } from '../audit/deprecation.ts';
import type { AuditRecord } from '../audit/recorder.ts';
import { EXTRA_SPACE_WARNING, extraSpaceBeforeToken } from '../authentication/types.ts';
import { type Authenticated, Unauthenticated } from '../authentication/union.ts';
import { forbidden } from '../authorization/forbidden.ts';
import type { AuthorizationAttributes } from '../authorization/types.ts';
import { type Negotiated, negotiate } from '../content/negotiate.ts';
import { hasProtobuf } from '../content/protobuf.ts';
import { errors, StatusError } from '../errors/status.ts';
import { impersonate, wantsImpersonation } from '../impersonation/impersonate.ts';
import type { RequestObservation } from '../metrics/requests.ts';
import type { Served } from '../registry/registry.ts';
import { isConnect } from '../registry/subresources.ts';
import {
  apiVersionOf,
  deprecationWarning,
  type RequestContext,
  type ResourceDef,
  type UserInfo,
} from '../registry/types.ts';
import { isPromise, type MaybePromise } from '../util/maybe-async.ts';
import { auditFailure, auditRequest, openAudit } from './audit-attributes.ts';
import type { HttpDeps } from './deps.ts';
import { discoveryDocument } from './discovery.ts';
import { lowerMethod, upperMethod } from './method.ts';
import { isMutating, labelRequest, methodVerb, recordEnd } from './metrics.ts';
import { checkQueryOptions, checkTimeout, isWriteVerb, writeOptions } from './query-options.ts';
import { type RequestInfo, requestInfo, watchRequested } from './request-info.ts';
import { setHeaders, writeEncoded, writeError } from './respond.ts';
import { anyVersionRead, apiPath, requestTarget, resolveResource, route } from './routing.ts';
import { HttpScope } from './scope.ts';
import { ignore, lastResort } from './socket-errors.ts';

export type { HttpDeps, NonResourceRoute } from './deps.ts';
export { clientErrorHandler, connectMethodHandler } from './socket-errors.ts';

/** The server's request handler. */
export function createHandlerFn(deps: HttpDeps) {
  // Nothing a request does may escape as an exception or an unhandled 'error' event: an error
  // after the headers went out resets the connection, a client that went away is ignored.
  return function guarded(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.on('error', ignore);
    res.on('error', ignore);
    const audit = openAudit(deps.audit, req, res);
    const method = upperMethod(req.method);
    const observed = deps.metrics?.begin(isMutating(method));
    if (observed) observed.verb = methodVerb(method);
    deps.requestLog?.(req, res, () => observed?.verb || method);
    // one async function a request, not two: handle() ends it (its last resort, its metrics)
    return handle(deps, req, res, audit, observed);
  };
}

/** One request, from its target to its reply (an error's too). */
async function handle(
  deps: HttpDeps,
  req: IncomingMessage,
  res: ServerResponse,
  audit: AuditRecord | undefined,
  observed: RequestObservation | undefined,
): Promise<void> {
  let out: Negotiated | undefined;
  const warnings: string[] = [];
  // whether the audit policy has judged the request (a request refused before is judged in the catch)
  let evaluated = false;
  let pf: Readonly<Record<string, string>> | undefined;
  const method = upperMethod(req.method);
  try {
    try {
      const target = requestTarget(req.url ?? '/');
      const { path, query: q } = target;
      const info = requestInfo(method, path, watchRequested(q));
      checkTimeout(q, info.verb === 'watch' || isConnect(info.subresource));
      // On a store shared with other servers, the request sees every change committed before
      // it came (objects, and the roles, webhooks and definitions that decide about it), unless
      // it asks for any version (resourceVersion=0) of what it reads.
      const storage = deps.registry.storage;
      if (storage.sync && apiPath(path) && !anyVersionRead(method, q)) await storage.sync();
      // stages answer synchronously when they can: an await only where one returned a promise
      const authnAnswer = authenticate(deps, req);
      const authenticated = isPromise(authnAnswer) ? await authnAnswer : authnAnswer;
      if (req.headers.authorization !== undefined && extraSpaceBeforeToken(req.headers))
        warnings.push(EXTRA_SPACE_WARNING);
      const user = wantsImpersonation(req.headers)
        ? await impersonate(authenticated.user, req.headers, deps.authz, req.rawHeaders)
        : authenticated.user;
      if (observed) labelRequest(observed, info, q, req.headers['content-type']);
      // the headers naming the request's FlowSchema and priority level: a resource request's go
      // out with its reply's head (headers set ahead of it cost a GET about a tenth of its time)
      pf = deps.flowcontrol ? classifyRequest(deps.flowcontrol, info, user, path) : undefined;
      if (audit) {
        auditRequest(audit, deps.auditPolicy, info, authenticated.user, user);
        evaluated = true;
        audit.stage('RequestReceived');
      }
      // As in Kubernetes, authorization comes before routing: an anonymous user learns nothing
      // about which paths exist.
      const attrs = authorizationAttributes(deps, info, user, method, path);
      const authzAnswer = deps.authz.authorize(attrs);
      const decision = isPromise(authzAnswer) ? await authzAnswer : authzAnswer;
      audit?.annotate('authorization.orch.io/decision', decision.decision === 'allow' ? 'allow' : 'forbid');
      audit?.annotate('authorization.orch.io/reason', decision.reason);
      if (decision.decision !== 'allow') throw forbidden(attrs, decision);

      if (!info.resourceRequest) {
        if (pf) setHeaders(res, pf);
        const url = target.url;
        // non-resource routes read `url`: a path the URL parser would rewrite (dot segments,
        // backslashes, characters it escapes) names none of them
        if (url.pathname !== path) throw errors.pathNotFound(path);
        // the path is a label only if a route answers it (see recordEnd)
        if (observed) observed.subresource = path.replace(/\/+$/, '') || '/';
        if (await deps.health(res, url)) return;
        for (const r of deps.routes) if (await r(req, res, url)) return;
        const doc = discoveryDocument(deps, method, path);
        out = negotiate(req.headers.accept, { protobuf: false, table: false });
        writeEncoded(req, res, 200, doc, out, { sized: observed });
        return;
      }
      const served = resolveResource(deps.registry, info, path, observed);
      const handler = route(info, served.def, deps.subresourceHandlers);
      if (!handler) throw errors.methodNotAllowed();
      noteDeprecation(deps, info, served.def, warnings, audit, observed);
      if (info.invalidName) throw errors.badRequest(info.invalidName);
      // a connect subresource answers with what its backend sends (its errors in JSON), and
      // its query is the backend's or the subresource's own options, not a write's
      const connect = isConnect(info.subresource);
      out = negotiateResource(req, info, served.def, connect);
      await handler(
        requestScope(
          deps,
          req,
          res,
          info,
          path,
          q,
          served,
          user,
          warnings,
          connect,
          out,
          audit,
          observed,
          pf,
        ),
      );
      // A HEAD reply is its headers: one the handler left streaming (a watch) ends with them,
      // which also stops the watch ('close'), and the connection serves the next request.
      if (method === 'HEAD' && res.headersSent && !res.writableEnded) res.end();
    } catch (e) {
      failed(deps, req, res, method, e, evaluated, out, warnings, audit, observed, pf);
    }
  } catch (e) {
    // what answering a failure threw (nothing a request does may escape)
    if (audit) {
      audit.failure = { reason: 'InternalError', message: String(e) };
      audit.panicked = true;
    }
    lastResort(res, e);
  } finally {
    // (a route that answered returns early: its request is counted too)
    if (observed) recordEnd(deps.metrics!, observed, res, req);
  }
}

/** Who sent the request (its headers, its client certificates, its address). */
function authenticate(deps: HttpDeps, req: IncomingMessage): MaybePromise<Authenticated> {
  return deps.authn.authenticate({
    headers: req.headers,
    peerCertificates: peerCertificates(req),
    remoteAddress: req.socket.remoteAddress,
    rawHeaders: req.rawHeaders,
  });
}

/** What the authorizer is asked about a request. */
function authorizationAttributes(
  deps: HttpDeps,
  info: RequestInfo,
  user: UserInfo,
  method: string,
  path: string,
): AuthorizationAttributes {
  return {
    user,
    verb: info.resourceRequest ? info.verb : lowerMethod(method),
    resourceRequest: info.resourceRequest,
    apiGroup: deps.registry.canonicalGroup(info.group),
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    path,
  };
}

/** A request to a deprecated version: its warning, metric and audit annotation; a watch starts its long-running series. */
function noteDeprecation(
  deps: HttpDeps,
  info: RequestInfo,
  def: ResourceDef,
  warnings: string[],
  audit: AuditRecord | undefined,
  observed: RequestObservation | undefined,
): void {
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
}

/** API priority and fairness: the headers naming the FlowSchema and priority level a request is classified under. */
function classifyRequest(
  flowcontrol: NonNullable<HttpDeps['flowcontrol']>,
  info: RequestInfo,
  user: UserInfo,
  path: string,
): Readonly<Record<string, string>> | undefined {
  return flowcontrol.classify({
    user,
    verb: info.verb,
    resourceRequest: info.resourceRequest,
    group: info.group,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    path,
  })?.headers;
}

/** The encoding of a resource request's reply (a connect subresource's errors: JSON). */
function negotiateResource(
  req: IncomingMessage,
  info: RequestInfo,
  def: ResourceDef,
  connect: boolean,
): Negotiated {
  if (connect) return negotiate(undefined, { protobuf: false, table: false });
  return negotiate(req.headers.accept, {
    protobuf: !def.custom && hasProtobuf(apiVersionOf(def.group, info.version), def.kind),
    table: info.verb === 'get' || info.verb === 'list',
  });
}

/** The scope a resource request's handler gets: its context, its query options checked, its admission. */
function requestScope(
  deps: HttpDeps,
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  path: string,
  q: URLSearchParams,
  served: Served,
  user: UserInfo,
  warnings: string[],
  connect: boolean,
  out: Negotiated,
  audit: AuditRecord | undefined,
  observed: RequestObservation | undefined,
  pf: Readonly<Record<string, string>> | undefined,
): HttpScope {
  const def = served.def;
  const ctx: RequestContext = {
    user,
    warnings,
    dryRun: false,
    fieldManager: q.get('fieldManager') ?? undefined,
    userAgent: req.headers['user-agent'],
    audit,
  };
  if (!connect) ctx.dryRun = checkQueryOptions(info.verb, q, req.headers['content-type']);
  if (isWriteVerb(info.verb) && !connect) {
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
  return new HttpScope(req, res, deps, info, path, q, served, ctx, out, audit, observed, pf);
}

/** A request that failed: its Status (a 500 for a bug of ours), in the encoding negotiated, if any. */
function failed(
  deps: HttpDeps,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  e: unknown,
  evaluated: boolean,
  out: Negotiated | undefined,
  warnings: string[],
  audit: AuditRecord | undefined,
  observed: RequestObservation | undefined,
  pf: Readonly<Record<string, string>> | undefined,
): void {
  if (!(e instanceof StatusError)) {
    // a bug of ours, never the client's fault: log it, answer 500
    console.error('internal error:', e);
  }
  if (audit && e instanceof Unauthenticated)
    for (const r of e.refusals) audit.annotate('authentication.orch.io/refused', r);
  if (req.readableEnded === false && !req.destroyed) req.resume();
  const se = e instanceof StatusError ? e : undefined;
  if (audit) auditFailure(audit, deps.auditPolicy, evaluated, req, res, method, e, se);
  writeError(req, res, e, out, warnings, observed, pf);
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
