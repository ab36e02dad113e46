// Authorizers in order (`--authorization-mode=A,B,...`): the first allow or deny decides; when
// all have no opinion the request is denied.
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './types.ts';

export class AuthorizerChain {
  private readonly list: Authorizer[];

  constructor(authorizers: Authorizer[]) {
    this.list = [...authorizers];
  }

  add(a: Authorizer): void {
    this.list.push(a);
  }

  async authorize(a: AuthorizationAttributes): Promise<AuthorizationResult> {
    let reasons: string[] | undefined;
    for (const z of this.list) {
      let r: AuthorizationResult;
      try {
        r = await z.authorize(a);
      } catch (e) {
        // an authorizer that fails has no opinion (the next one may still decide); a chain
        // where none decides denies
        r = { decision: 'no-opinion', reason: `${z.name}: ${e instanceof Error ? e.message : String(e)}` };
      }
      if (r.decision !== 'no-opinion') return r.by ? r : { decision: r.decision, reason: r.reason, by: z.name };
      if (r.reason) (reasons ??= []).push(r.reason);
    }
    return { decision: 'no-opinion', reason: reasons ? reasons.join('; ') : '' };
  }

  /** Whether the chain allows it (deny and no opinion both refuse). */
  async allowed(a: AuthorizationAttributes): Promise<boolean> {
    return (await this.authorize(a)).decision === 'allow';
  }
}
