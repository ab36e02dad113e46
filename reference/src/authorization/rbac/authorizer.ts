// The RBAC authorization mode: allows what a binding of the user (by name, group or service
// account) grants, answered synchronously from the in-memory policy; no opinion otherwise
// (the reason then names roles that bindings refer to and that do not exist).
import {
  NO_OPINION,
  type AuthorizationAttributes,
  type AuthorizationResult,
  type Authorizer,
} from '../types.ts';
import type { RbacIndex } from './rbac-index.ts';

export class RbacAuthorizer implements Authorizer {
  readonly name = 'RBAC';
  constructor(private readonly index: RbacIndex) {}

  authorize(a: AuthorizationAttributes): AuthorizationResult {
    const r = this.index.decide(a);
    if (r.allowed) return new RbacAllow(r);
    return r.reason ? { decision: 'no-opinion', reason: r.reason } : NO_OPINION;
  }
}

/** An allow whose reason is written when read (named, so the chain passes it on as it is). */
class RbacAllow implements AuthorizationResult {
  readonly decision = 'allow' as const;
  readonly by = 'RBAC';
  constructor(private readonly r: { readonly reason: string }) {}
  get reason(): string {
    return this.r.reason;
  }
}
