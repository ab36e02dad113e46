// get and list.
import { errors } from '../errors/status.ts';
import type { ListParams } from '../registry/store.ts';
import type { Handler, Scope } from './scope.ts';

/**
 * A boolean query parameter as Kubernetes converts it: absent is undefined; `0` and `false`
 * (any case) are false; any other value, the empty one included, is true.
 */
export function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** The list options of a list or watch request (empty values count as absent). */
export function listParams(q: URLSearchParams): ListParams {
  const p: ListParams = {};
  const ls = q.get('labelSelector');
  if (ls !== null) p.labelSelector = ls;
  const fs = q.get('fieldSelector');
  if (fs !== null) p.fieldSelector = fs;
  const rv = q.get('resourceVersion');
  if (rv !== null && rv !== '') p.resourceVersion = rv;
  const rvm = q.get('resourceVersionMatch');
  if (rvm !== null && rvm !== '') p.resourceVersionMatch = rvm;
  const limit = q.get('limit');
  if (limit !== null && limit !== '') {
    if (!/^[-+]?\d+$/.test(limit) || !Number.isSafeInteger(Number(limit)))
      throw errors.badRequest(`invalid value for limit: "${limit}": must be an integer`);
    // as in Kubernetes, zero and negative limits mean no limit
    p.limit = Number(limit);
  }
  const c = q.get('continue');
  if (c !== null && c !== '') p.continue = c;
  const sie = queryBool(q, 'sendInitialEvents');
  if (sie !== undefined) p.sendInitialEvents = sie;
  return p;
}

export const getHandler: Handler = async (s: Scope) => {
  const rv = s.query.get('resourceVersion') ?? undefined;
  const obj = await s.store.get(s.namespace, s.name, rv === '' ? undefined : rv);
  s.reply(200, s.store.present(obj, s.version), { gzip: true });
};

export const listHandler: Handler = async (s: Scope) => {
  const p = listParams(s.query);
  const r = await s.store.list(s.namespace, p);
  const metadata: Record<string, unknown> = { resourceVersion: r.resourceVersion };
  if (r.continue) metadata.continue = r.continue;
  if (r.remainingItemCount !== undefined) metadata.remainingItemCount = r.remainingItemCount;
  if (s.out.format === 'table') {
    s.reply(200, { __table: true, items: r.items, metadata }, { gzip: true });
    return;
  }
  const apiVersion = s.def.group ? `${s.def.group}/${s.version}` : s.version;
  s.reply(
    200,
    { kind: s.def.listKind, apiVersion, metadata, items: r.items.map((o) => s.store.present(o, s.version)) },
    { gzip: true },
  );
};
