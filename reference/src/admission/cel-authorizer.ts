// The expression language's authorizer (doc2's authorizer library) answered by the server's
// authorizers: a check is asked as the request's user, or as the service account that
// `authorizer.serviceAccount(namespace, name)` names; resource checks are asked for any version.

import type { AuthorizerChain } from '../authorization/chain.ts';
import type { AuthorizerFn, AuthorizationAttributes as CelAttributes } from '../cel/library-authorizer.ts';
import type { UserInfo } from '../registry/types.ts';

const SA_PREFIX = 'system:serviceaccount:';

/** The user a service account authenticates as (name and groups, as Kubernetes makes them). */
function serviceAccountUser(username: string): UserInfo {
  const [ns = ''] = username.slice(SA_PREFIX.length).split(':');
  return { username, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`] };
}

/** An AuthorizerFn asking `chain` on behalf of `user` (the request's user). */
export function celAuthorizer(chain: AuthorizerChain, user: UserInfo): AuthorizerFn {
  return (a: CelAttributes) => {
    const who =
      a.user === undefined
        ? user
        : a.user.startsWith(SA_PREFIX)
          ? serviceAccountUser(a.user)
          : { username: a.user, groups: [] };
    const resourceRequest = a.path === undefined;
    const answer = chain.authorize({
      user: who,
      verb: a.verb,
      resourceRequest,
      apiGroup: a.group ?? '',
      apiVersion: resourceRequest ? '*' : '',
      resource: a.resource ?? '',
      subresource: a.subresource ?? '',
      namespace: a.namespace ?? '',
      name: a.name ?? '',
      path: a.path ?? '',
    });
    const decide = (r: { decision: string; reason: string }) => ({
      allowed: r.decision === 'allow',
      reason: r.reason,
    });
    return answer instanceof Promise ? answer.then(decide) : decide(answer);
  };
}
