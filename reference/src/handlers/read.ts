// get and list.
import { errors } from '../errors/status.ts';
import type { ListParams } from '../registry/store.ts';
import { boolParam, type Handler, type Scope } from './scope.ts';

export function listParams(q: URLSearchParams): ListParams {
  const p: ListParams = {};
  const ls = q.get('labelSelector');
  if (ls !== null) p.labelSelector = ls;
  const fs = q.get('fieldSelector');
  if (fs !== null) p.fieldSelector = fs;
  const rv = q.get('resourceVersion');
  if (rv !== null) p.resourceVersion = rv;
  const rvm = q.get('resourceVersionMatch');
  if (rvm !== null) p.resourceVersionMatch = rvm;
  const limit = q.get('limit');
  if (limit !== null && limit !== '') {
    if (!/^-?\d+$/.test(limit)) throw errors.badRequest(`invalid value for limit: "${limit}": must be an integer`);
    const n = Number(limit);
    if (n < 0) throw errors.badRequest(`invalid value for limit: "${limit}": must be non-negative`);
    p.limit = n;
  }
  const c = q.get('continue');
  if (c !== null && c !== '') p.continue = c;
  return p;
}

export const getHandler: Handler = async (s: Scope) => {
  const rv = s.query.get('resourceVersion') ?? undefined;
  const obj = await s.store.get(s.namespace, s.name, rv === '' ? undefined : rv);
  s.reply(200, s.store.present(obj, s.version), { gzip: true });
};

export const listHandler: Handler = async (s: Scope) => {
  const p = listParams(s.query);
  void boolParam;
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
