// The expression language's authorizer (doc2's authorizer library) for admission: checks are
// asked of the server's authorizers as the request's user, or as the service account that
// `authorizer.serviceAccount(ns, name)` names (with the groups a service account has). The
// library asks for any version (`*`), as Kubernetes 1.28's does.
import type { AuthorizerChain } from '../authorization/chain.ts';
import type { AuthorizationResult } from '../authorization/types.ts';
import type { AuthorizerFn, RequestResource } from '../cel/library-authorizer.ts';
import type { UserInfo } from '../registry/types.ts';
import { isPromise } from '../util/maybe-async.ts';

const SA_PREFIX = 'system:serviceaccount:';

function userNamed(name: string): UserInfo {
  if (!name.startsWith(SA_PREFIX)) return { username: name, groups: [] };
  const ns = name.slice(SA_PREFIX.length).split(':')[0]!;
  return { username: name, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`] };
}

export function celAuthorizer(chain: AuthorizerChain, user: UserInfo): AuthorizerFn {
  const decision = (r: AuthorizationResult) => ({ allowed: r.decision === 'allow', reason: r.reason });
  return (a) => {
    const r = chain.authorize({
      user: a.user === undefined ? user : userNamed(a.user),
      verb: a.verb,
      resourceRequest: a.path === undefined,
      apiGroup: a.group ?? '',
      apiVersion: '*',
      resource: a.resource ?? '',
      subresource: a.subresource ?? '',
      namespace: a.namespace ?? '',
      name: a.name ?? '',
      path: a.path ?? '',
    });
    return isPromise(r) ? r.then(decision) : decision(r);
  };
}

/** A field of the request as JSON or as an expression value (a message is a Map). */
function field(o: unknown, k: string): unknown {
  return o instanceof Map
    ? o.get(k)
    : o && typeof o === 'object'
      ? (o as Record<string, unknown>)[k]
      : undefined;
}

/** `authorizer.requestResource` of an admission request (the review request, as JSON or as an expression value). */
export function requestResourceOf(request: unknown): RequestResource {
  const r = field(request, 'resource');
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    group: s(field(r, 'group')),
    resource: s(field(r, 'resource')),
    subresource: s(field(request, 'subResource')),
    namespace: s(field(request, 'namespace')),
    name: s(field(request, 'name')),
  };
}
