// Bootstrap token secrets (doc3 "Bootstrap token secret"): a Secret of type
// `bootstrap.orch.io/token` in the system namespace named `bootstrap-token-<token-id>`. The
// token text is `<token-id>.<token-secret>` (6 and 16 characters of a-z and 0-9). Read here
// for the authenticator and the token cleaner alike.
import type { KObject } from '../storage/types.ts';
import { SECRET_TYPES } from './kinds/secret.ts';

/** `<system-namespace>`. */
export const BOOTSTRAP_TOKEN_NAMESPACE = 'orch-system';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_TOKEN_TYPE = SECRET_TYPES.bootstrapToken;
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
/** Kubernetes' rule for an extra group: the prefix, then [a-z0-9:-], ending in [a-z0-9]. */
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
/** RFC 3339 (a date, a time with optional fraction, and Z or an offset), as Go's time.RFC3339 parses it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The id and secret of a token text, or undefined when it is not shaped as a bootstrap token. */
export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

/** A string value of the secret's data (base64 decoded), or '' when absent. */
export function secretValue(o: KObject, key: string): string {
  const v = (o.data as Record<string, unknown> | undefined)?.[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

export function isBootstrapTokenSecret(o: KObject): boolean {
  return (
    o.type === BOOTSTRAP_TOKEN_TYPE &&
    (o.metadata.namespace ?? BOOTSTRAP_TOKEN_NAMESPACE) === BOOTSTRAP_TOKEN_NAMESPACE
  );
}

/**
 * When the token expires (ms since the epoch): undefined without an expiration, -Infinity when
 * it does not parse (an unreadable expiration counts as expired, as Kubernetes counts it).
 */
export function expiresAt(o: KObject): number | undefined {
  const v = secretValue(o, 'expiration');
  if (v === '') return undefined;
  if (!RFC3339.test(v)) return Number.NEGATIVE_INFINITY;
  const t = Date.parse(v);
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

export function hasExpired(o: KObject, now: number): boolean {
  const t = expiresAt(o);
  return t !== undefined && now > t;
}

/**
 * The groups of a token: system:bootstrappers and each of `auth-extra-groups` (comma-separated,
 * each prefixed system:bootstrappers:), sorted without duplicates; a string when one is invalid.
 */
export function bootstrapGroups(o: KObject): string[] | string {
  const groups = new Set([BOOTSTRAP_DEFAULT_GROUP]);
  const extra = secretValue(o, 'auth-extra-groups');
  if (extra !== '')
    for (const g of extra.split(',')) {
      if (!EXTRA_GROUP.test(g))
        return `auth-extra-groups: ${JSON.stringify(g)} must start with "system:bootstrappers:" and contain only a-z, 0-9, ":" and "-"`;
      groups.add(g);
    }
  return [...groups].sort();
}
