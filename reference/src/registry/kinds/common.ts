// Helpers shared by kind strategies.
import type { TableColumn } from '../types.ts';
import type { KObject } from '../../storage/types.ts';

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
export const CLUSTER_VERBS = ALL_VERBS;

/** Human age as kubectl prints it (`5s`, `3m`, `2h`, `4d`). */
export function age(o: KObject, now = Date.now()): string {
  const t = Date.parse(o.metadata.creationTimestamp ?? '');
  if (!Number.isFinite(t)) return '<unknown>';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60 * 3) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

export const NAME_COLUMN: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  cell: (o) => o.metadata.name ?? '',
};

export const AGE_COLUMN: TableColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (o) => age(o),
};

export function get(o: unknown, path: string): unknown {
  let cur = o;
  for (const k of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

export function str(v: unknown): string | undefined {
  return v === undefined || v === null ? undefined : String(v);
}
