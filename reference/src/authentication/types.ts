// The authentication stage's contract. An authenticator looks at what the client sent and
// answers one of three things: the request is not one of its kind ("none"), it names a user,
// or it is one of its kind and invalid ("error": a bad token is never anonymous).
import type { UserInfo } from '../registry/types.ts';
import type { MaybePromise } from '../util/maybe-async.ts';

/** What authenticators see of a request: its headers and the client's TLS certificate chain. */
export interface AuthenticationRequest {
  /** Header values by lower-case name (repeated headers joined as node joins them). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * The client certificate chain as presented, leaf first (DER), when the client sent one:
   * not verified by the listener (each certificate method verifies it against its own CAs).
   */
  peerCertificates?: Buffer[];
  remoteAddress?: string;
  /** The headers as received: alternating names and values, repeated headers kept apart. */
  rawHeaders?: readonly string[];
  /**
   * The audiences a token must be for (a TokenReview's spec.audiences); the server's API
   * audiences when absent. Methods whose tokens have no audiences ignore it.
   */
  audiences?: readonly string[];
  /** The bearer token itself, not read from a header (a TokenReview's spec.token, exactly as given). */
  token?: string;
}

export type AuthenticationResult =
  | { status: 'none' }
  | { status: 'user'; user: UserInfo; audiences?: string[] }
  | { status: 'error'; message: string };

export interface Authenticator {
  /** Named in errors and audit annotations. */
  readonly name: string;
  /** Synchronous where the answer is at hand (no I/O); a promise where it is not. */
  authenticate(r: AuthenticationRequest): MaybePromise<AuthenticationResult>;
}

export const NOT_MINE: AuthenticationResult = Object.freeze({ status: 'none' });

/**
 * The bearer token of a request, or undefined when it sent none. Read as Kubernetes reads it:
 * the header trimmed, then split at single spaces into at most three words; the first must be
 * `bearer` (any case) and the token is the second (`Bearer <token>`, a third word ignored).
 * An empty second word (`Bearer  <token>`, two spaces) is no token: the header is ignored.
 */
export function bearerToken(r: AuthenticationRequest): string | undefined {
  if (r.token !== undefined) return r.token === '' ? undefined : r.token;
  const h = r.headers.authorization;
  const v = (Array.isArray(h) ? h[0] : h)?.trim();
  if (!v) return undefined;
  const space = v.indexOf(' ');
  if (space < 0 || v.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const rest = v.slice(space + 1);
  const end = rest.indexOf(' ');
  const token = end < 0 ? rest : rest.slice(0, end);
  return token === '' ? undefined : token;
}

/** Kubernetes' warning for an Authorization header whose token follows two spaces (the header is ignored). */
export const EXTRA_SPACE_WARNING =
  'the provided Authorization header contains extra space before the bearer token, and is ignored';

/** Whether the Authorization header is `Bearer`, an empty word, then more (`Bearer  <token>`): ignored, with a warning. */
export function extraSpaceBeforeToken(headers: AuthenticationRequest['headers']): boolean {
  const h = headers.authorization;
  const v = (Array.isArray(h) ? h[0] : h)?.trim();
  return (
    v !== undefined &&
    v.length > 7 &&
    v[6] === ' ' &&
    v[7] === ' ' &&
    v.slice(0, 6).toLowerCase() === 'bearer'
  );
}
