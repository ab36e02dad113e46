// The union of authenticators (doc3 "Authentication"): several methods may be active at
// once; the first that accepts the request decides. A request that some method recognised
// and refused is a 401 even when anonymous access is on; a request that no method
// recognised is anonymous when anonymous access is on, else a 401. Every authenticated
// user gets the group `system:authenticated`.
import { StatusError } from '../errors/status.ts';
import type { UserInfo } from '../registry/types.ts';
import { isPromise, type MaybePromise } from '../util/maybe-async.ts';
import {
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  bearerToken,
} from './types.ts';

export const ANONYMOUS: UserInfo = Object.freeze({
  username: 'system:anonymous',
  groups: ['system:unauthenticated'],
}) as UserInfo;

export interface Authenticated {
  user: UserInfo;
  /** The authenticator that accepted the request ('anonymous' for none). */
  by: string;
  audiences?: string[];
}

export class AuthenticationUnion {
  private readonly list: Authenticator[];

  constructor(
    authenticators: Authenticator[],
    private readonly anonymous: boolean,
  ) {
    this.list = [...authenticators];
  }

  /** Adds a method (it is tried after the ones before it). */
  add(a: Authenticator): void {
    this.list.push(a);
  }

  get authenticators(): readonly Authenticator[] {
    return this.list;
  }

  /**
   * The user of a request; a promise rejected with the 401 StatusError when it has none.
   * Synchronous while every method answers synchronously; from the first method that answers
   * with a promise on, the rest is awaited in order.
   */
  authenticate(r: AuthenticationRequest): MaybePromise<Authenticated> {
    return this.from(r, 0, []);
  }

  private from(r: AuthenticationRequest, start: number, refusals: string[]): MaybePromise<Authenticated> {
    for (let i = start; i < this.list.length; i++) {
      const a = this.list[i]!;
      let res: MaybePromise<AuthenticationResult>;
      try {
        res = a.authenticate(r);
      } catch (e) {
        res = failed(e);
      }
      if (isPromise(res)) {
        const next = (v: AuthenticationResult) => accepted(a, v, refusals) ?? this.from(r, i + 1, refusals);
        return res.then(next, (e) => next(failed(e)));
      }
      const user = accepted(a, res, refusals);
      if (user) return user;
    }
    if (refusals.length === 0 && bearerToken(r) !== undefined) refusals.push('invalid bearer token');
    if (refusals.length === 0 && this.anonymous) return { user: ANONYMOUS, by: 'anonymous' };
    return Promise.reject(new Unauthenticated(refusals));
  }
}

/** The user a method accepted; a method's refusal is added to the refusals. */
function accepted(
  a: Authenticator,
  res: AuthenticationResult,
  refusals: string[],
): Authenticated | undefined {
  if (res.status === 'user')
    return { user: withAuthenticatedGroup(res.user), by: a.name, audiences: res.audiences };
  if (res.status === 'error') refusals.push(`${a.name}: ${res.message}`);
  return undefined;
}

/** An authenticator that fails (a backend down, a bug) refuses; it never lets through. */
function failed(e: unknown): AuthenticationResult {
  return { status: 'error', message: e instanceof Error ? e.message : String(e) };
}

/** The users methods answer from tables (token file, admin token) come back each time: made once. */
const withGroup = new WeakMap<UserInfo, UserInfo>();

function withAuthenticatedGroup(u: UserInfo): UserInfo {
  if (u.username === ANONYMOUS.username || u.groups.includes('system:authenticated')) return u;
  let out = withGroup.get(u);
  if (!out) {
    out = { ...u, groups: [...u.groups, 'system:authenticated'] };
    withGroup.set(u, out);
  }
  return out;
}

/** The 401: its reasons go to the server's log and the audit event, not to the client. */
export class Unauthenticated extends StatusError {
  constructor(readonly refusals: string[]) {
    super(401, 'Unauthorized', 'Unauthorized');
  }
}
