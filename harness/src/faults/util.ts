// Helpers for writing faults.
import type { ProxiedResponse } from '../fault-proxy.ts';

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
