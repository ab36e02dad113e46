// The AlwaysAllow and AlwaysDeny authorization modes (`--authorization-mode`).
import type { AuthorizationResult, Authorizer } from './types.ts';

const ALLOW: AuthorizationResult = Object.freeze({ decision: 'allow', reason: '' });
const DENY: AuthorizationResult = Object.freeze({ decision: 'deny', reason: '' });

export class AlwaysAllowAuthorizer implements Authorizer {
  readonly name = 'AlwaysAllow';
  authorize(): AuthorizationResult {
    return ALLOW;
  }
}

export class AlwaysDenyAuthorizer implements Authorizer {
  readonly name = 'AlwaysDeny';
  authorize(): AuthorizationResult {
    return DENY;
  }
}
