// The 403 a refused request gets, worded as Kubernetes words it (the resource qualified by
// its group, as `deployments.apps is forbidden: ...`).
import { errors, type StatusError } from '../errors/status.ts';
import type { AuthorizationAttributes, AuthorizationResult } from './types.ts';

export function forbidden(a: AuthorizationAttributes, r: AuthorizationResult): StatusError {
  const sub = a.subresource ? `/${a.subresource}` : '';
  const what = a.resourceRequest
    ? `cannot ${a.verb} resource "${a.resource}${sub}" in API group "${a.apiGroup}"${a.namespace ? ` in the namespace "${a.namespace}"` : ' at the cluster scope'}`
    : `cannot ${a.verb} path "${a.path}"`;
  const why = r.reason ? `: ${r.reason}` : '';
  const message = a.resourceRequest
    ? `${a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource}${a.name ? ` "${a.name}"` : ''} is forbidden: User "${a.user.username}" ${what}${why}`
    : `forbidden: User "${a.user.username}" ${what}${why}`;
  return errors.forbidden(message, {
    name: a.name || undefined,
    group: a.apiGroup || undefined,
    kind: a.resource || undefined,
  });
}
