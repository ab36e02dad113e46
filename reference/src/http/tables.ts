// Tables: a reply rendered as a meta.orch.io Table when the client asked for one (`as=Table`).
import { toTable } from '../content/table.ts';
import { errors } from '../errors/status.ts';
import type { Scope } from '../handlers/scope.ts';
import type { KObject } from '../storage/types.ts';

/** A reply (an object, or a list marked `__table`) as the Table the request negotiated; a Status as it is. */
export function tableFor(s: Scope, obj: unknown): unknown {
  const o = obj as {
    __table?: boolean;
    items?: KObject[];
    metadata?: Record<string, unknown>;
    kind?: string;
  };
  if (o && o.kind === 'Status') return obj;
  const { version, group } = s.out.table ?? { version: 'v1' as const, group: undefined };
  const includeObject = s.query.get('includeObject') ?? undefined;
  if (includeObject && !['None', 'Metadata', 'Object'].includes(includeObject))
    throw errors.badRequest(`includeObject: Unsupported value: "${includeObject}"`);
  const present = (x: KObject) => s.store.present(x, s.version);
  if (o.__table)
    return toTable(o.items ?? [], s.def.strategy.table, {
      version,
      group,
      includeObject,
      listMeta: o.metadata,
      present,
    });
  return toTable([obj as KObject], s.def.strategy.table, { version, group, includeObject, present });
}
