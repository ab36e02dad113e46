// The reference's built-in policy until role-based access control arrives: members of
// `system:masters` may do anything (as Kubernetes' superuser group); anyone may read
// discovery, the version, OpenAPI and health (the `system:public-info-viewer` and
// `system:discovery` roles of Kubernetes 1.28); nothing else is decided here.
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './types.ts';
import { NO_OPINION } from './types.ts';

const PUBLIC_PATHS = /^\/(healthz|livez|readyz|version|api|apis|openapi)(\/|$)/;

export class SuperuserAuthorizer implements Authorizer {
  readonly name = 'superuser';
  authorize(a: AuthorizationAttributes): AuthorizationResult {
    if (a.user.groups.includes('system:masters')) return { decision: 'allow', reason: 'member of system:masters' };
    return NO_OPINION;
  }
}

export class PublicInfoAuthorizer implements Authorizer {
  readonly name = 'public-info';
  authorize(a: AuthorizationAttributes): AuthorizationResult {
    if (!a.resourceRequest && a.verb === 'get' && PUBLIC_PATHS.test(a.path))
      return { decision: 'allow', reason: 'discovery, version and health are readable by anyone' };
    return NO_OPINION;
  }
}
