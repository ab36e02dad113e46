// What the authentication and authorization faults share: the run's administrator
// credentials as the proxy sees them go by, and requests re-sent with them or without any.
import type { ProxiedRequest, ProxiedResponse, Upstream } from './proxy.ts';

import { header } from './util.ts';

export { header };

/** The request without its credentials (anonymous). */
export function withoutAuth(r: ProxiedRequest): ProxiedRequest {
  const headers: ProxiedRequest['headers'] = {};
  for (const [k, v] of Object.entries(r.headers)) if (k.toLowerCase() !== 'authorization') headers[k] = v;
  return { ...r, headers };
}

/** The request without its Impersonate-* headers. */
export function withoutImpersonation(r: ProxiedRequest): ProxiedRequest {
  const headers: ProxiedRequest['headers'] = {};
  for (const [k, v] of Object.entries(r.headers))
    if (!k.toLowerCase().startsWith('impersonate-')) headers[k] = v;
  return { ...r, headers };
}

/**
 * The suites' own (administrator) credentials: those of the requests only the run's client
 * makes (namespace creation by the file fixtures, requests that impersonate someone).
 */
export class AdminCredentials {
  private value = '';
  /** Remembers the credentials of an administrator's request; returns the request as it was. */
  see(r: ProxiedRequest): ProxiedRequest {
    const auth = header(r, 'authorization');
    if (!auth) return r;
    const isAdminRequest =
      (r.method === 'POST' && r.url.pathname === '/api/v1/namespaces') ||
      header(r, 'impersonate-user') !== undefined;
    if (isAdminRequest) this.value = auth;
    return r;
  }
  /** The request as the administrator (without impersonation), or undefined before one was seen. */
  asAdmin(r: ProxiedRequest): ProxiedRequest | undefined {
    if (!this.value) return undefined;
    const clean = withoutImpersonation(withoutAuth(r));
    return { ...clean, headers: { ...clean.headers, authorization: this.value } };
  }
}

/**
 * A response hook that re-sends a request as the administrator when `when` says so (and
 * answers with that), remembering the administrator's credentials from the requests it sees.
 */
export function resentAsAdmin(
  admin: AdminCredentials,
  when: (r: ProxiedRequest, res: ProxiedResponse) => boolean,
): {
  request: (r: ProxiedRequest) => ProxiedRequest;
  response: (r: ProxiedRequest, res: ProxiedResponse, up: Upstream) => Promise<ProxiedResponse>;
} {
  return {
    request: (r) => admin.see(r),
    response: async (r, res, up) => {
      const asAdmin = when(r, res) ? admin.asAdmin(r) : undefined;
      return asAdmin ? up.send(asAdmin) : res;
    },
  };
}
