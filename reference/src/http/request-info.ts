// Resolves a URL path to what it names, as Kubernetes' RequestInfo does: API prefix, group,
// version, namespace, resource, name, subresource, and the verb from method and query.

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
  /** Path segments beyond what the resource shape allows (a 404). */
  extra: boolean;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function requestInfo(method: string, path: string, watchParam: boolean): RequestInfo {
  const info: RequestInfo = {
    resourceRequest: false,
    path,
    verb: method.toLowerCase(),
    group: '',
    version: '',
    namespace: '',
    resource: '',
    name: '',
    subresource: '',
    extra: false,
  };
  const parts = path.split('/').filter((p, i) => i > 0 || p !== '');
  if (parts[parts.length - 1] === '') parts.pop();
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
  for (const seg of rest) {
    if (seg === '' || seg === '.' || seg === '..') {
      info.extra = true;
    }
  }
  info.resourceRequest = true;
  let isWatchPath = false;
  if (rest[0] === 'watch') {
    // deprecated /watch/ path form
    isWatchPath = true;
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = decodeURIComponent(rest[1]!);
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  }
  info.resource = rest[0] ?? '';
  if (rest.length > 1) info.name = decodeURIComponent(rest[1]!);
  if (rest.length > 2) info.subresource = rest[2]!;
  if (rest.length > 3) info.extra = true;
  // `/api/v1/namespaces/<name>` names the namespace itself
  if (info.resource === 'namespaces' && rest === undefined) info.extra = true;
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD') {
    if (isWatchPath || watchParam) info.verb = 'watch';
    else info.verb = info.name ? 'get' : 'list';
  } else if (m === 'POST') info.verb = 'create';
  else if (m === 'PUT') info.verb = 'update';
  else if (m === 'PATCH') info.verb = 'patch';
  else if (m === 'DELETE') info.verb = info.name ? 'delete' : 'deletecollection';
  else info.verb = m.toLowerCase();
  // a namespace path with only the namespace name is the namespace object
  if (rest.length >= 2 && info.resource === 'namespaces') {
    // nothing: resource = namespaces, name = rest[1]
  } else if (parts.length >= 2 && info.resource !== 'namespaces' && info.namespace && rest[0] !== info.resource) {
    // unreachable
  }
  fixNamespaceObject(info, rest);
  return info;
}

function fixNamespaceObject(info: RequestInfo, rest: string[]): void {
  // `/api/v1/namespaces/foo` and `/api/v1/namespaces/foo/status`: the namespace "foo" itself
  if (info.resource === 'namespaces' && rest[0] === 'namespaces') {
    if (rest.length >= 2) {
      info.name = decodeURIComponent(rest[1]!);
      info.namespace = '';
      if (info.verb === 'list') info.verb = 'get';
      if (info.verb === 'deletecollection') info.verb = 'delete';
    }
  }
}
