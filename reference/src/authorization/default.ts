// The privileged group: members of `system:masters` may do anything, whatever the
// authorization modes say (Kubernetes asks it before the configured modes).
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './types.ts';
import { NO_OPINION } from './types.ts';

const ALLOWED: AuthorizationResult = Object.freeze({ decision: 'allow', reason: '' });

export class SuperuserAuthorizer implements Authorizer {
  readonly name = 'superuser';
  authorize(a: AuthorizationAttributes): AuthorizationResult {
    return a.user.groups.includes('system:masters') ? ALLOWED : NO_OPINION;
  }
}
