// The Table form (`meta.orch.io/v1`, or `meta.k8s.io/v1` when asked by that name): two default columns (Name, Created At) unless the
// kind's strategy defines its own, one row per object with the object's metadata.
import type { KObject } from '../util/kobject.ts';
import { TABLE_GROUP } from './negotiate.ts';

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description?: string;
  priority?: number;
  /** Cell value for an object. */
  cell: (obj: KObject) => unknown;
}

export const DEFAULT_COLUMNS: TableColumn[] = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace.',
    cell: (o) => o.metadata.name ?? '',
  },
  {
    name: 'Created At',
    type: 'date',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
    cell: (o) => o.metadata.creationTimestamp ?? null,
  },
];

export interface TableOptions {
  version: 'v1' | 'v1beta1';
  /** The group the client asked for (`meta.orch.io` unless it said `meta.k8s.io`). */
  group?: string;
  includeObject?: string;
  listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  /** For includeObject=Object: the full object in the requested version. */
  present?: (o: KObject) => KObject;
}

export function toTable(objects: KObject[], columns: TableColumn[] | undefined, o: TableOptions): unknown {
  const cols = columns ?? DEFAULT_COLUMNS;
  const include = o.includeObject ?? 'Metadata';
  const apiVersion = `${o.group ?? TABLE_GROUP}/${o.version}`;
  const rows = objects.map((obj) => {
    const row: Record<string, unknown> = { cells: cols.map((c) => c.cell(obj)) };
    if (include === 'Object') row.object = o.present ? o.present(obj) : obj;
    else if (include === 'Metadata')
      row.object = { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
    return row;
  });
  const meta: Record<string, unknown> = {};
  if (o.listMeta?.resourceVersion) meta.resourceVersion = o.listMeta.resourceVersion;
  if (o.listMeta?.continue) meta.continue = o.listMeta.continue;
  if (o.listMeta?.remainingItemCount !== undefined) meta.remainingItemCount = o.listMeta.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion,
    metadata: meta,
    columnDefinitions: cols.map((c) => {
      const d: Record<string, unknown> = {
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      };
      return d;
    }),
    rows,
  };
}
