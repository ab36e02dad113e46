// Discovery: the documents at `/`, `/api`, `/apis`, `/api/<version>`, `/apis/<group>[/<version>]`
// and `/version`.
import { errors } from '../errors/status.ts';
import type { HttpDeps } from './deps.ts';

/** The discovery document at a path: a 404 for any other path, a 405 for a method other than GET and HEAD. */
export function discoveryDocument(deps: HttpDeps, method: string, path: string): unknown {
  const doc = discovery(deps, path);
  if (doc === undefined) throw errors.pathNotFound(path);
  if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed();
  return doc;
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
