// Helpers for writing faults.
import type { ProxiedRequest, ProxiedResponse } from './proxy.ts';

/** A header of a proxied request by lower-case name; one sent more than once joined as node joins it. */
export function header(r: ProxiedRequest, name: string): string | undefined {
  const k = Object.keys(r.headers).find((x) => x.toLowerCase() === name);
  const v = k === undefined ? undefined : r.headers[k];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Rewrites a JSON response body (left alone when it is not JSON). */
export function mapJson(res: ProxiedResponse, f: (j: any) => any): ProxiedResponse {
  const ct = String(res.headers['content-type'] ?? '');
  if (!ct.includes('json')) return res;
  try {
    const j = JSON.parse(res.body.toString('utf8'));
    return { ...res, body: Buffer.from(JSON.stringify(f(j))) };
  } catch {
    return res;
  }
}

/** A request body read as JSON (undefined when it is not). */
export function bodyOf(b: Buffer): any {
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A JSON answer made by the proxy. */
export const answer = (status: number, body: unknown): ProxiedResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
});

/** A Status failure made by the proxy. */
export const failure = (code: number, reason: string, message: string): ProxiedResponse =>
  answer(code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

/** Requests a fault answers itself: what goes upstream is a harmless GET of the same path. */
const divertedTo = new WeakMap<ProxiedRequest, () => ProxiedResponse | Promise<ProxiedResponse>>();
export function divert(
  r: ProxiedRequest,
  a: () => ProxiedResponse | Promise<ProxiedResponse>,
): ProxiedRequest {
  const out: ProxiedRequest = { ...r, method: 'GET', body: Buffer.alloc(0) };
  divertedTo.set(out, a);
  return out;
}
/** The answer of a diverted request, or the upstream one. */
export const unlessDiverted = async (r: ProxiedRequest, res: ProxiedResponse) =>
  (await divertedTo.get(r)?.()) ?? res;
