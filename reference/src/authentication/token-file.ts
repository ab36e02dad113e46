// Static bearer tokens: a table of token -> user (the admin token, and later the
// `--token-auth-file` CSV). A bearer token the table does not hold is not this
// authenticator's to refuse, as other token methods may know it: "none", and the union
// answers 401 when no method accepts it.
import type { UserInfo } from '../registry/types.ts';
import {
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  NOT_MINE,
  bearerToken,
} from './types.ts';

export class StaticTokenAuthenticator implements Authenticator {
  constructor(
    private readonly tokens: ReadonlyMap<string, UserInfo>,
    readonly name = 'static-token',
  ) {}

  authenticate(r: AuthenticationRequest): AuthenticationResult {
    const token = bearerToken(r);
    if (token === undefined) return NOT_MINE;
    const user = this.tokens.get(token);
    return user ? { status: 'user', user } : NOT_MINE;
  }
}
