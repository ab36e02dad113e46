// Impersonation (doc3 "Authentication", impersonation headers): the caller is authenticated
// first, must hold the `impersonate` verb for each thing it impersonates, and the request is
// then evaluated as the target. Groups, extras and uid need the user header.
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
export function wantsImpersonation(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  return Object.keys(headers).some((k) => k.startsWith('impersonate-'));
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
  const target = values(headers['impersonate-user'])[0];
  const groups = rawValues(rawHeaders, 'impersonate-group', headers['impersonate-group']);
  const uid = values(headers['impersonate-uid'])[0];
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (!k.startsWith('impersonate-extra-')) continue;
    const key = decodeExtraKey(k.slice('impersonate-extra-'.length));
    extra[key] = rawValues(rawHeaders, k, v);
  }
  if (!target && (groups.length || uid || Object.keys(extra).length))
    throw errors.badRequest('requested impersonation of groups, extras or uid without impersonating a user');
  if (!target) return user;

  const check = async (a: Omit<AuthorizationAttributes, 'user' | 'verb' | 'resourceRequest' | 'apiVersion' | 'subresource' | 'path'> & { subresource?: string }) => {
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

  if (target.startsWith(SA_PREFIX)) {
    const [ns = '', name = ''] = target.slice(SA_PREFIX.length).split(':');
    await check({ apiGroup: '', resource: 'serviceaccounts', namespace: ns, name });
  } else {
    await check({ apiGroup: '', resource: 'users', namespace: '', name: target });
  }
  for (const g of groups) await check({ apiGroup: '', resource: 'groups', namespace: '', name: g });
  if (uid) await check({ apiGroup: 'authentication.orch.io', resource: 'uids', namespace: '', name: uid });
  for (const [k, vs] of Object.entries(extra))
    for (const v of vs)
      await check({ apiGroup: 'authentication.orch.io', resource: 'userextras', subresource: k, namespace: '', name: v });

  const out: UserInfo = { username: target, groups: [...groups] };
  if (uid) out.uid = uid;
  if (Object.keys(extra).length) out.extra = extra;
  if (target.startsWith(SA_PREFIX)) {
    const ns = target.slice(SA_PREFIX.length).split(':')[0] ?? '';
    for (const g of ['system:serviceaccounts', `system:serviceaccounts:${ns}`])
      if (!out.groups.includes(g)) out.groups.push(g);
  }
  if (target !== 'system:anonymous' && !out.groups.includes('system:authenticated')) out.groups.push('system:authenticated');
  return out;
}

/** Every value of a repeatable header, in order (node joins repeats with ', ' in `headers`). */
function rawValues(raw: readonly string[], name: string, joined: string | string[] | undefined): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) out.push(raw[i + 1]!);
  return out.length ? out : values(joined);
}

function decodeExtraKey(k: string): string {
  try {
    return decodeURIComponent(k).toLowerCase();
  } catch {
    return k.toLowerCase();
  }
}
