// Requests made as another user (doc3, "Impersonation headers"): the run's own credentials
// authenticate the request, and the Impersonate-* headers name who it is evaluated as. The
// authorization cases act as users of their own making this way, on any target whose
// credentials may impersonate (a cluster administrator may).
import type { Client, RequestOptions, Response } from '../client.ts';

export interface Identity {
  user: string;
  groups?: string[];
  uid?: string;
  /** Extra values by key (sent as Impersonate-Extra-<key>, the key percent-encoded). */
  extra?: Record<string, string[]>;
}

export function impersonationHeaders(who: Identity): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = { 'Impersonate-User': who.user };
  if (who.groups?.length) h['Impersonate-Group'] = who.groups;
  if (who.uid !== undefined) h['Impersonate-Uid'] = who.uid;
  for (const [k, v] of Object.entries(who.extra ?? {})) h[`Impersonate-Extra-${encodeURIComponent(k)}`] = v;
  return h;
}

/** The request methods of a client, each evaluated as `who`. */
export interface ActingClient {
  who: Identity;
  client: Client;
  request(o: RequestOptions): Promise<Response>;
  get(path: string, o?: Omit<RequestOptions, 'path' | 'method'>): Promise<Response>;
  post(path: string, body: unknown, o?: Omit<RequestOptions, 'path' | 'method' | 'body'>): Promise<Response>;
  put(path: string, body: unknown, o?: Omit<RequestOptions, 'path' | 'method' | 'body'>): Promise<Response>;
  delete(path: string, o?: Omit<RequestOptions, 'path' | 'method'>): Promise<Response>;
}

export function actingAs(client: Client, who: Identity): ActingClient {
  const request = (o: RequestOptions) =>
    client.request({ ...o, headers: { ...(o.headers ?? {}), ...impersonationHeaders(who) } });
  return {
    who,
    client,
    request,
    get: (path, o = {}) => request({ ...o, path, method: 'GET' }),
    post: (path, body, o = {}) => request({ ...o, path, body, method: 'POST' }),
    put: (path, body, o = {}) => request({ ...o, path, body, method: 'PUT' }),
    delete: (path, o = {}) => request({ ...o, path, method: 'DELETE' }),
  };
}
