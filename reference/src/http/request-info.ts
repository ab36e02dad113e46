// Resolves a URL path to what it names, as Kubernetes' RequestInfo does: API prefix, group,
// version, namespace, resource, name, subresource, and the verb from method and query.
//
// The path is taken as the client sent it (still percent-encoded, dot segments unresolved):
// each segment is decoded on its own, so an encoded `/` stays inside its segment, and
// `.`/`..` are never resolved against their neighbours.
import { errors } from '../errors/status.ts';
import { lowerMethod, upperMethod } from './method.ts';

export interface RequestInfo {
  resourceRequest: boolean;
  path: string;
  verb: string;
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  /** Path segments beyond what the resource shape allows, or empty or dot segments (a 404). */
  extra: boolean;
  /**
   * Why the namespace or name segment cannot name an object (`.`, `..`, a `/` or `%` in it):
   * a 400, raised once the path is known to name a served resource.
   */
  invalidName?: string;
  /**
   * The path past a proxy subresource (`.../proxy/a/b` → `/a/b`), as sent (not decoded);
   * empty when the path ends at the subresource.
   */
  subpath: string;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** The decoded segments of a raw path; a malformed escape (or bytes that are not UTF-8) is a 400. */
export function pathSegments(path: string): string[] {
  // path.split('/') by hand: split calls into V8's runtime, once every request
  const parts: string[] = [];
  for (let start = 0; ; ) {
    const slash = path.indexOf('/', start);
    if (slash < 0) {
      parts.push(path.slice(start));
      break;
    }
    parts.push(path.slice(start, slash));
    start = slash + 1;
  }
  // a leading slash gives an empty first part; one trailing slash is tolerated
  if (parts[0] === '') parts.shift();
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  // a loop, not map(): this runs for every request
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (!p.includes('%')) continue;
    try {
      parts[i] = decodeURIComponent(p);
    } catch {
      throw errors.badRequest(`invalid URL escape in path segment ${JSON.stringify(p)}`);
    }
  }
  return parts;
}

/** A segment that is only syntax (empty, `.` or `..`): it can name nothing. */
function syntaxOnly(seg: string): boolean {
  return seg === '' || seg === '.' || seg === '..';
}

/** Kubernetes' path.IsValidPathSegmentName: what a name or namespace must be to appear in a path. */
export function pathSegmentNameProblem(name: string): string | undefined {
  if (name === '.' || name === '..') return `may not be '${name}'`;
  const slash = name.includes('/');
  const percent = name.includes('%');
  if (slash && percent) return "may not contain '/', '%'";
  if (slash || percent) return `may not contain '${slash ? '/' : '%'}'`;
  return undefined;
}

/**
 * Whether the query asks for a watch, as Kubernetes converts a boolean parameter: any value
 * but `0` and `false` (any case), the empty one included.
 */
export function watchRequested(q: URLSearchParams): boolean {
  const v = q.get('watch');
  if (v === null) return false;
  return v !== '0' && v.toLowerCase() !== 'false';
}

/** The raw path from its `skip`-th segment on, with its leading slash (segments as pathSegments counts them). */
function rawRemainder(path: string, skip: number): string {
  const raw = path.split('/');
  if (raw[0] === '') raw.shift();
  return `/${raw.slice(skip).join('/')}`;
}

export function requestInfo(method: string, path: string, watchParam: boolean): RequestInfo {
  const info: RequestInfo = {
    resourceRequest: false,
    path,
    verb: lowerMethod(method),
    group: '',
    version: '',
    namespace: '',
    resource: '',
    name: '',
    subresource: '',
    extra: false,
    subpath: '',
  };
  const parts = pathSegments(path);
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length < 3) return info;
    info.version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    if (parts.length < 4) return info;
    info.group = parts[1]!;
    info.version = parts[2]!;
    rest = parts.slice(3);
  } else return info;
  info.resourceRequest = true;
  for (let i = 0; i < parts.length - rest.length; i++) if (syntaxOnly(parts[i]!)) info.extra = true;

  let isWatchPath = false;
  if (rest[0] === 'watch' && rest.length > 1) {
    // deprecated /watch/ path form
    isWatchPath = true;
    rest = rest.slice(1);
  }
  let namespaceSegment: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) {
      // /namespaces/<ns>/<resource>/...: a resource in its own right inside the namespace
      namespaceSegment = rest[1]!;
      info.namespace = namespaceSegment;
      rest = rest.slice(2);
    }
    // otherwise /namespaces/<name>[/status|/finalize]: the namespace object itself
  }
  // rest: <resource>[/<name>[/<subresource>]]; anything more is not a path the API serves
  info.resource = rest[0] ?? '';
  if (rest.length > 1) info.name = rest[1]!;
  if (rest.length > 2) info.subresource = rest[2]!;
  if (rest.length > 3) {
    // only a proxy's path goes on past the subresource (`proxy/<path>`)
    if (info.subresource === 'proxy') info.subpath = rawRemainder(path, parts.length - rest.length + 3);
    else info.extra = true;
  }
  if (syntaxOnly(info.resource) || (rest.length > 2 && syntaxOnly(info.subresource))) info.extra = true;
  if (namespaceSegment === '' || (rest.length > 1 && info.name === '')) info.extra = true;

  const m = upperMethod(method);
  if (m === 'GET' || m === 'HEAD') {
    if (isWatchPath || watchParam) info.verb = 'watch';
    else info.verb = info.name ? 'get' : 'list';
  } else if (m === 'POST') info.verb = 'create';
  else if (m === 'PUT') info.verb = 'update';
  else if (m === 'PATCH') info.verb = 'patch';
  else if (m === 'DELETE') info.verb = info.name ? 'delete' : 'deletecollection';
  else info.verb = lowerMethod(m);

  const nsProblem = info.namespace ? pathSegmentNameProblem(info.namespace) : undefined;
  const nameProblem = info.name ? pathSegmentNameProblem(info.name) : undefined;
  if (nsProblem)
    info.invalidName = `Namespace parameter invalid: ${JSON.stringify(info.namespace)}: ${nsProblem}`;
  else if (nameProblem)
    info.invalidName = `Name parameter invalid: ${JSON.stringify(info.name)}: ${nameProblem}`;
  return info;
}
