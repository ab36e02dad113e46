// Authentication: a chain of authenticators; the first that recognises the request decides.
// This issue ships the static bearer-token authenticator (the admin identity); document 3's
// methods (client certificates, service-account tokens, OIDC, webhook, proxy) plug in here.
import type { IncomingMessage } from 'node:http';
import { errors } from '../errors/status.ts';
import type { UserInfo } from '../registry/types.ts';

export interface Authenticator {
  /** undefined: not mine, try the next; a UserInfo: authenticated; throws: rejected (401). */
  authenticate(req: IncomingMessage): UserInfo | undefined;
}

export class TokenAuthenticator implements Authenticator {
  constructor(private readonly tokens: Map<string, UserInfo>) {}
  authenticate(req: IncomingMessage): UserInfo | undefined {
    const h = req.headers.authorization;
    if (!h) return undefined;
    const m = /^Bearer\s+(.+)$/i.exec(h);
    if (!m) return undefined;
    const user = this.tokens.get(m[1]!.trim());
    if (!user) throw errors.unauthorized();
    return user;
  }
}

export const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

export class AuthenticationChain {
  constructor(
    private readonly authenticators: Authenticator[],
    private readonly anonymous: boolean,
  ) {}

  authenticate(req: IncomingMessage): UserInfo {
    for (const a of this.authenticators) {
      const u = a.authenticate(req);
      if (u) return u.groups.includes('system:authenticated') ? u : { ...u, groups: [...u.groups, 'system:authenticated'] };
    }
    if (this.anonymous) return ANONYMOUS;
    throw errors.unauthorized();
  }
}

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

export interface Authorizer {
  /** true: allowed; false: denied; undefined: no opinion (next authorizer). */
  authorize(attrs: AuthorizationAttributes): boolean | undefined;
}

/** Admins (group system:masters) may do anything; anonymous users only read discovery and health. */
export class DefaultAuthorizer implements Authorizer {
  authorize(a: AuthorizationAttributes): boolean | undefined {
    if (a.user.groups.includes('system:masters')) return true;
    if (a.user.username === 'system:anonymous') {
      return /^\/(healthz|livez|readyz|version|api|apis|openapi)(\/|$)/.test(a.path) && a.verb === 'get' && !a.resource;
    }
    return undefined;
  }
}

export function authorize(chain: Authorizer[], a: AuthorizationAttributes): void {
  for (const z of chain) {
    const d = z.authorize(a);
    if (d === true) return;
    if (d === false) break;
  }
  const what = a.resource
    ? `cannot ${a.verb} resource "${a.resource}${a.subresource ? '/' + a.subresource : ''}" in API group "${a.group}"${a.namespace ? ` in the namespace "${a.namespace}"` : ' at the cluster scope'}`
    : `cannot ${a.verb} path "${a.path}"`;
  throw errors.forbidden(
    a.resource
      ? `${a.resource}${a.name ? ` "${a.name}"` : ''} is forbidden: User "${a.user.username}" ${what}`
      : `forbidden: User "${a.user.username}" ${what}`,
    { name: a.name || undefined, group: a.group || undefined, kind: a.resource || undefined },
  );
}
