// The expression language's authorizer (doc2's authorizer library) for admission: checks are
// asked of the server's authorizers as the request's user, or as the service account that
// `authorizer.serviceAccount(ns, name)` names (with the groups a service account has). The
// library asks for any version (`*`), as Kubernetes 1.28's does.
import type { AuthorizerChain } from '../authorization/chain.ts';
import type { AuthorizationResult } from '../authorization/types.ts';
import type { AuthorizerFn } from '../cel/library-authorizer.ts';
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
