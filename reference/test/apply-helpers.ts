// Helpers of the server-side apply tests: requests with the apply content type, and reading
// managedFields (who owns a path given as its `fieldsV1` keys).
import type { Reply, TestServer } from './helpers.ts';

export const APPLY_TYPE = 'application/apply-patch+yaml';
export const MERGE = { 'content-type': 'application/merge-patch+json' };
export const JSONP = { 'content-type': 'application/json-patch+json' };
export const SMP = { 'content-type': 'application/strategic-merge-patch+json' };

/** RFC 3339 in UTC with whole seconds: how metav1.Time prints. */
export const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

export interface ApplyOptions {
  manager?: string;
  force?: boolean;
  dryRun?: boolean;
  subresource?: string;
  headers?: Record<string, string>;
  /** Extra query text (`a=b&c=d`). */
  query?: string;
}

/** PATCH with `application/apply-patch+yaml`: a string body is sent as is (YAML), an object as JSON. */
export function apply(ts: TestServer, path: string, body: unknown, o: ApplyOptions = {}): Promise<Reply> {
  const q: string[] = [];
  if (o.manager !== undefined) q.push(`fieldManager=${encodeURIComponent(o.manager)}`);
  if (o.force !== undefined) q.push(`force=${o.force}`);
  if (o.dryRun) q.push('dryRun=All');
  if (o.query) q.push(o.query);
  const target = `${path}${o.subresource ? `/${o.subresource}` : ''}${q.length ? `?${q.join('&')}` : ''}`;
  return ts.req('PATCH', target, body, { 'content-type': APPLY_TYPE, ...(o.headers ?? {}) });
}

export interface Entry {
  manager?: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

export function entries(obj: any): Entry[] {
  return (obj?.metadata?.managedFields ?? []) as Entry[];
}

/** The entry of a manager (operation Apply unless said otherwise). */
export function entry(
  obj: any,
  manager: string,
  operation: 'Apply' | 'Update' = 'Apply',
  subresource?: string,
): Entry | undefined {
  return entries(obj).find(
    (e) => (e.manager ?? '') === manager && e.operation === operation && e.subresource === subresource,
  );
}

/** Whether a fieldsV1 set has the path (its keys, e.g. `['f:data', 'f:a']`) as a member. */
export function has(fieldsV1: unknown, keys: string[]): boolean {
  let node = fieldsV1 as Record<string, unknown> | undefined;
  for (const k of keys) {
    node = node?.[k] as Record<string, unknown> | undefined;
    if (node === undefined) return false;
  }
  return !!node && (Object.keys(node).length === 0 || Object.hasOwn(node, '.'));
}

/** `manager/Operation` of every entry owning the path, sorted. */
export function owners(obj: any, keys: string[]): string[] {
  return entries(obj)
    .filter((e) => has(e.fieldsV1, keys))
    .map((e) => `${e.manager ?? ''}/${e.operation}`)
    .sort();
}

/** Every path (keys joined by ' ') of a fieldsV1 set. */
export function paths(fieldsV1: unknown, prefix: string[] = []): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries((fieldsV1 ?? {}) as Record<string, unknown>)) {
    if (k === '.') continue;
    const p = [...prefix, k];
    const sub = v as Record<string, unknown>;
    if (Object.keys(sub).length === 0 || Object.hasOwn(sub, '.')) out.push(p.join(' '));
    out.push(...paths(sub, p));
  }
  return out;
}
