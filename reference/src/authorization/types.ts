// The authorization stage's contract. An authorizer answers allow, deny or no opinion, each
// with a reason; a chain asks its authorizers in order and the first allow or deny decides.
// It is called from the HTTP pipeline and from code that is not HTTP (impersonation, the
// review APIs, the expression language's authorizer library).
import type { AuthorizationAttributes } from '../registry/types.ts';
import type { MaybePromise } from '../util/maybe-async.ts';

export type { AuthorizationAttributes };

export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why, in words (shown in a 403 and in SubjectAccessReview status). */
  reason: string;
  /** The authorizer that decided (absent for the chain's final no opinion). */
  by?: string;
}

export interface Authorizer {
  readonly name: string;
  /** Synchronous where the answer is at hand (no I/O); a promise where it is not. */
  authorize(a: AuthorizationAttributes): MaybePromise<AuthorizationResult>;
}

export const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'no-opinion', reason: '' });
