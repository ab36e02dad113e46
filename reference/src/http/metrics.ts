// GET /metrics (the Prometheus text format), and the request labels the metrics take from a
// request as Kubernetes' API server reports them (its endpoints/metrics package).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../errors/status.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import type { RequestMetrics, RequestObservation } from '../metrics/requests.ts';
import type { RequestInfo } from './request-info.ts';

/** The `/metrics` route: authorization (a non-resource `get` on `/metrics`) has already passed. */
export function metricsRoute(reg: MetricsRegistry) {
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    if (url.pathname !== '/metrics') return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed();
    const body = Buffer.from(await reg.text());
    res.writeHead(200, { 'Content-Type': reg.contentType, 'Content-Length': body.length });
    res.end(body);
    return true;
  };
}

/** Methods Kubernetes reports as they are; any other is `other` (the label set stays bounded). */
const REPORTED_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT', 'OPTIONS']);
const READ_ONLY = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A request's verb before its path is resolved: the method (HEAD reported as GET). */
export function methodVerb(method: string): string {
  if (method === 'HEAD') return 'GET';
  return REPORTED_METHODS.has(method) ? method : 'other';
}

/** Whether a request counts as mutating among the requests in flight. */
export function isMutating(method: string): boolean {
  return !READ_ONLY.has(method);
}

const RESOURCE_VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
};

/**
 * The labels a request's path gives: the reported verb (LIST apart from GET, WATCH, APPLY for
 * an apply patch), the scope (`resource` for a named object or a create, `namespace`,
 * `cluster`), and the dry-run value (`All`, or `invalid`).
 */
export function labelRequest(
  o: RequestObservation,
  info: RequestInfo,
  q: URLSearchParams,
  contentType: string | undefined,
): void {
  if (info.resourceRequest) {
    let verb = RESOURCE_VERBS[info.verb] ?? 'other';
    if (
      verb === 'PATCH' &&
      (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/apply-patch+yaml'
    )
      verb = 'APPLY';
    o.verb = verb;
    o.scope = info.name || info.verb === 'create' ? 'resource' : info.namespace ? 'namespace' : 'cluster';
  }
  if (q.has('dryRun')) {
    const values = q.getAll('dryRun');
    o.dryRun = values.every((v) => v === 'All' || v === '')
      ? [...new Set(values.filter(Boolean))].sort().join(',')
      : 'invalid';
  }
}

/**
 * Records the end of a request once its reply is done (a watch: when it closes). A
 * non-resource path is a label only when a route answered it (a 404 for any path a client
 * makes up would make the label set grow without bound).
 */
export function recordEnd(
  m: RequestMetrics,
  o: RequestObservation,
  res: ServerResponse,
  req: IncomingMessage,
): void {
  // no closure for the usual reply, already written: only a reply still going (a watch) waits
  if (res.writableEnded) finish(m, o, res, req);
  else res.once('close', () => finish(m, o, res, req));
}

function finish(m: RequestMetrics, o: RequestObservation, res: ServerResponse, req: IncomingMessage): void {
  if (o.scope === '' && res.statusCode >= 400) o.subresource = '';
  m.end(o, res.statusCode, req.method === 'HEAD' ? undefined : o.bytes);
}
