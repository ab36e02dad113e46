// Routing: a request target to its path and query, a resource path to what the registry serves
// there, and a resource request to the handler of its verb. Which verbs a subresource serves is
// registry/subresources.ts's to say; this file only names the handler that serves them.
import { errors } from '../errors/status.ts';
import { bindingHandler } from '../handlers/binding.ts';
import { evictionHandler } from '../handlers/eviction.ts';
import { nodeProxyHandler } from '../handlers/node-proxy.ts';
import { podAttachHandler } from '../handlers/pod-attach.ts';
import { podExecHandler } from '../handlers/pod-exec.ts';
import { podLogHandler } from '../handlers/pod-log.ts';
import { podPortForwardHandler } from '../handlers/pod-portforward.ts';
import { podProxyHandler } from '../handlers/pod-proxy.ts';
import { getHandler, listHandler } from '../handlers/read.ts';
import { scaleGetHandler, scalePatchHandler, scaleUpdateHandler } from '../handlers/scale.ts';
import type { Handler } from '../handlers/scope.ts';
import { serviceProxyHandler } from '../handlers/service-proxy.ts';
import { watchHandler } from '../handlers/watch.ts';
import {
  createHandler,
  deleteCollectionHandler,
  deleteHandler,
  patchHandler,
  updateHandler,
} from '../handlers/write.ts';
import type { RequestObservation } from '../metrics/requests.ts';
import type { Registry, Served } from '../registry/registry.ts';
import { subresourceVerbs } from '../registry/subresources.ts';
import type { ResourceDef } from '../registry/types.ts';
import type { RequestInfo } from './request-info.ts';

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

/**
 * The handlers of the subresources that do not take the kind's own object, by
 * `<plural>/<subresource>`, or by subresource for every resource that has it (one handler for
 * all its verbs, or one a verb). A subresource not listed here (status, finalize,
 * ephemeralcontainers, approval) is served by the verb's handler, on the kind's own object.
 */
const SUBRESOURCE_HANDLERS: Readonly<Record<string, Handler | Readonly<Record<string, Handler>>>> = {
  'pods/binding': bindingHandler,
  'pods/log': podLogHandler,
  'pods/exec': podExecHandler,
  'pods/attach': podAttachHandler,
  'pods/portforward': podPortForwardHandler,
  // a proxy serves each of its verbs with the one handler: the method is passed on
  'pods/proxy': podProxyHandler,
  'services/proxy': serviceProxyHandler,
  'nodes/proxy': nodeProxyHandler,
  scale: { get: scaleGetHandler, update: scaleUpdateHandler, patch: scalePatchHandler },
  eviction: evictionHandler,
};

/**
 * Characters after which the URL parser's reading of a query may differ from URLSearchParams':
 * those it drops or cuts at (a fragment, tabs, newlines, C0 and spaces at the ends), and any
 * that are not ASCII (it encodes them as UTF-8 before decoding the query; URLSearchParams'
 * decoding of raw characters beside escapes differs).
 */
const URL_REWRITES = /[#\x00-\x20\x7f-\uffff]/;

/**
 * A request target as the client sent it: its path, not normalised (no dot-segment resolution,
 * no percent-decoding: resource paths are split and decoded segment by segment, request-info.ts),
 * and its query. An absolute-form target is served by its path.
 */
export class RequestTarget {
  readonly query: URLSearchParams;
  private parsed?: URL;

  constructor(
    readonly path: string,
    private readonly target: string,
    private readonly raw: string,
  ) {
    // the query as the URL parser reads it; built apart when the parser would read it the same
    // way, as it does for any target Node's HTTP parser passes on (the whole URL costs a request
    // about a microsecond, and only routes other than the API's read it)
    // (URLSearchParams drops a leading `?` of its text, the URL parser does not)
    const qi = target.indexOf('?');
    this.query =
      URL_REWRITES.test(target) || target.charCodeAt(qi + 1) === 63
        ? this.url.searchParams
        : new URLSearchParams(qi < 0 ? '' : target.slice(qi + 1));
  }

  /** The target as a URL, for the routes that read one (health, metrics, OpenAPI, ...). */
  get url(): URL {
    if (!this.parsed) {
      try {
        this.parsed = new URL(`http://x${this.target}`);
      } catch {
        throw errors.badRequest(`malformed request target ${JSON.stringify(this.raw.slice(0, 256))}`);
      }
    }
    return this.parsed;
  }
}

/** The target of a request (a 400 when it is not a path). */
export function requestTarget(raw: string): RequestTarget {
  let t = raw;
  const abs = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(t);
  if (abs) {
    t = t.slice(abs[0].length);
    if (!t.startsWith('/')) t = `/${t}`;
  }
  if (!t.startsWith('/'))
    throw errors.badRequest(`malformed request target ${JSON.stringify(raw.slice(0, 256))}: not a path`);
  const qi = t.indexOf('?');
  return new RequestTarget(qi < 0 ? t : t.slice(0, qi), t, raw);
}

/** Paths of the API (resources and discovery), as opposed to health, metrics, version and OpenAPI. */
export function apiPath(path: string): boolean {
  return path.startsWith('/api/') || path.startsWith('/apis/') || path === '/api' || path === '/apis';
}

/** A read that accepts any version (doc1 "Any": resourceVersion=0): served from this server's cache as it is. */
export function anyVersionRead(method: string, query: URLSearchParams): boolean {
  return (method === 'GET' || method === 'HEAD') && query.get('resourceVersion') === '0';
}

/**
 * What a resource path names in the registry, or a 404: a served resource, in a namespace only
 * when it is namespaced, with one of its subresources, and object paths only where objects are.
 * Labels the request's metrics with the resource once it is known to be served.
 */
export function resolveResource(
  registry: Registry,
  info: RequestInfo,
  path: string,
  observed: RequestObservation | undefined,
): Served {
  if (info.extra || !info.resource) throw errors.pathNotFound(path);
  const served = registry.lookup(info.group, info.version, info.resource);
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
  return served;
}

/** Path shapes: which verbs a resource path without subresource serves. */
function shapeVerbs(named: boolean, namespaced: boolean, hasNamespace: boolean): string[] {
  if (named) return ['get', 'watch', 'update', 'patch', 'delete'];
  if (namespaced && !hasNamespace) return ['list', 'watch']; // the all-namespaces collection
  return ['list', 'watch', 'create', 'deletecollection'];
}

/**
 * The handler of a resource request's verb, or undefined when its path does not serve the verb.
 * `wired`: handlers of subresources wired by the server, by `<plural>/<subresource>`.
 */
export function route(
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
  const key = `${def.plural}/${info.subresource}`;
  const own = wired?.[key];
  if (own) return own;
  const h = SUBRESOURCE_HANDLERS[key] ?? SUBRESOURCE_HANDLERS[info.subresource];
  if (h) return typeof h === 'function' ? h : h[info.verb];
  // subresources that take the kind's own object: status, finalize, ephemeralcontainers
  return VERB_HANDLERS[info.verb];
}
