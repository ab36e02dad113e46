// Impersonation (doc3 "Authentication", impersonation headers): the caller is authenticated
// first, must hold the `impersonate` verb for each thing it impersonates (users or, for
// `system:serviceaccount:<ns>:<name>`, serviceaccounts; groups; userextras/<key>; uids), and
// the request is then evaluated as the target. Groups, extras and uid need the user header.
// As in Kubernetes 1.28: a service account gets its groups only when none are asked for;
// system:authenticated is added unless system:unauthenticated is asked for, and
// system:anonymous gets system:unauthenticated.
import type { AuthorizerChain } from '../authorization/chain.ts';
import { forbidden } from '../authorization/forbidden.ts';
import type { AuthorizationAttributes } from '../authorization/types.ts';
import { errors } from '../errors/status.ts';
import type { UserInfo } from '../registry/types.ts';

const SA_PREFIX = 'system:serviceaccount:';

function values(h: string | string[] | undefined): string[] {
  if (h === undefined) return [];
  return (Array.isArray(h) ? h : h.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** Whether the request asks to impersonate anyone. */
export function wantsImpersonation(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): boolean {
  for (const k in headers) if (k.startsWith('impersonate-')) return true;
  return false;
}

/**
 * The user a request acts as: the authenticated user, or the one it impersonates after every
 * part of the impersonation was authorized. Throws 400 for a malformed request (a group
 * without a user), 403 for a refused part.
 */
export async function impersonate(
  user: UserInfo,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  authz: AuthorizerChain,
  rawHeaders: readonly string[] = [],
): Promise<UserInfo> {
  if (!wantsImpersonation(headers)) return user;
  // one value per header line, commas included (the user and uid: the first line)
  const target = rawValues(rawHeaders, 'impersonate-user', headers['impersonate-user'])[0];
  const groups = rawValues(rawHeaders, 'impersonate-group', headers['impersonate-group']);
  const uid = rawValues(rawHeaders, 'impersonate-uid', headers['impersonate-uid'])[0];
  // keys come from the client (`__proto__`, `constructor` are keys like any other): no prototype
  const extra: Record<string, string[]> = Object.create(null);
  for (const [k, v] of Object.entries(headers)) {
    if (!k.startsWith('impersonate-extra-')) continue;
    const key = decodeExtraKey(k.slice('impersonate-extra-'.length));
    extra[key] = [...(extra[key] ?? []), ...rawValues(rawHeaders, k, v)];
  }
  if (!target && (groups.length || uid || Object.keys(extra).length))
    throw errors.badRequest('requested impersonation of groups, extras or uid without impersonating a user');
  if (!target) return user;

  const check = async (
    a: Omit<
      AuthorizationAttributes,
      'user' | 'verb' | 'resourceRequest' | 'apiVersion' | 'subresource' | 'path'
    > & { subresource?: string },
  ) => {
    const attrs: AuthorizationAttributes = {
      user,
      verb: 'impersonate',
      resourceRequest: true,
      apiVersion: '',
      subresource: a.subresource ?? '',
      path: '',
      ...a,
    };
    const r = await authz.authorize(attrs);
    if (r.decision !== 'allow') throw forbidden(attrs, r);
  };

  // in Kubernetes' order: groups, extras, the user, the uid (the first refusal answers)
  for (const g of groups) await check({ apiGroup: '', resource: 'groups', namespace: '', name: g });
  for (const [k, vs] of Object.entries(extra))
    for (const v of vs)
      await check({
        apiGroup: 'authentication.orch.io',
        resource: 'userextras',
        subresource: k,
        namespace: '',
        name: v,
      });
  const sa = serviceAccountOf(target);
  if (sa) await check({ apiGroup: '', resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name });
  else await check({ apiGroup: '', resource: 'users', namespace: '', name: target });
  if (uid) await check({ apiGroup: 'authentication.orch.io', resource: 'uids', namespace: '', name: uid });

  // a service account's groups are known, unless groups were asked for
  const out: UserInfo = {
    username: target,
    groups:
      sa && groups.length === 0
        ? ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`]
        : [...groups],
  };
  if (uid) out.uid = uid;
  if (Object.keys(extra).length) out.extra = extra;
  if (target === ANONYMOUS) {
    if (!out.groups.includes(UNAUTHENTICATED)) out.groups.push(UNAUTHENTICATED);
  } else if (!out.groups.includes(AUTHENTICATED) && !out.groups.includes(UNAUTHENTICATED))
    out.groups.push(AUTHENTICATED);
  return out;
}

const ANONYMOUS = 'system:anonymous';
const AUTHENTICATED = 'system:authenticated';
const UNAUTHENTICATED = 'system:unauthenticated';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `system:serviceaccount:<namespace>:<name>` with a valid namespace and name; otherwise a user. */
function serviceAccountOf(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const parts = username.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (namespace.length > 63 || !DNS_LABEL.test(namespace) || name.length > 253 || !DNS_SUBDOMAIN.test(name))
    return undefined;
  return { namespace, name };
}

/** Every value of a repeatable header, in order (node joins repeats with ', ' in `headers`). */
function rawValues(raw: readonly string[], name: string, joined: string | string[] | undefined): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) out.push(raw[i + 1]!);
  return out.length ? out : values(joined);
}

/** The extra key of a header name: lower-cased, then percent-decoded (as Kubernetes does). */
function decodeExtraKey(k: string): string {
  const lower = k.toLowerCase();
  try {
    return decodeURIComponent(lower);
  } catch {
    return lower;
  }
}
