// Authorizers in order (`--authorization-mode=A,B,...`): the first allow or deny decides; when
// all have no opinion the request is denied.
import { isPromise, type MaybePromise } from '../util/maybe-async.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './types.ts';

export class AuthorizerChain {
  private readonly list: Authorizer[];

  constructor(authorizers: Authorizer[]) {
    this.list = [...authorizers];
  }

  add(a: Authorizer): void {
    this.list.push(a);
  }

  /** How many authorizers it asks. */
  get size(): number {
    return this.list.length;
  }

  /**
   * The chain's decision: synchronous while every authorizer answers synchronously; from the
   * first that answers with a promise on, the rest is awaited in order.
   */
  authorize(a: AuthorizationAttributes): MaybePromise<AuthorizationResult> {
    return this.from(a, 0, []);
  }

  private from(
    a: AuthorizationAttributes,
    start: number,
    reasons: string[],
  ): MaybePromise<AuthorizationResult> {
    for (let i = start; i < this.list.length; i++) {
      const z = this.list[i]!;
      let r: MaybePromise<AuthorizationResult>;
      try {
        r = z.authorize(a);
      } catch (e) {
        r = failed(z, e);
      }
      if (isPromise(r)) {
        const next = (v: AuthorizationResult) => verdict(z, v, reasons) ?? this.from(a, i + 1, reasons);
        return r.then(next, (e) => next(failed(z, e)));
      }
      const decided = verdict(z, r, reasons);
      if (decided) return decided;
    }
    return { decision: 'no-opinion', reason: reasons.join('; ') };
  }

  /** Whether the chain allows it (deny and no opinion both refuse). */
  async allowed(a: AuthorizationAttributes): Promise<boolean> {
    return (await this.authorize(a)).decision === 'allow';
  }
}

/**
 * An authorizer that fails has no opinion (the next one may still decide); a chain where none
 * decides denies.
 */
function failed(z: Authorizer, e: unknown): AuthorizationResult {
  return { decision: 'no-opinion', reason: `${z.name}: ${e instanceof Error ? e.message : String(e)}` };
}

/** An allow or deny (named after the authorizer that gave it); a no opinion adds its reason. */
function verdict(z: Authorizer, r: AuthorizationResult, reasons: string[]): AuthorizationResult | undefined {
  if (r.decision !== 'no-opinion') return r.by ? r : { decision: r.decision, reason: r.reason, by: z.name };
  if (r.reason) reasons.push(r.reason);
  return undefined;
}
