// The 409 an apply answers when it would change fields other managers own: one cause per
// field and manager, and the message Kubernetes writes.
import { errors, type StatusCause, type StatusError } from '../errors/status.ts';
import { pathString } from './fieldpath.ts';
import type { ManagerEntry } from './managed-fields.ts';
import type { Conflict } from './updater.ts';

/** `"kubectl" using apps/v1` for an Update manager, `"kubectl"` for an applier. */
export function printManager(m: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion'>): string {
  const name = JSON.stringify(m.manager);
  return m.operation === 'Update' ? `${name} using ${m.apiVersion}` : name;
}

/**
 * `Apply failed with 1 conflict: conflict with "x" using v1: .data.a`, or for several
 * `Apply failed with N conflicts: conflicts with "x" using v1:\n- .a\n- .b\nconflicts with ...`
 * (managers sorted).
 */
export function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  }
  const byManager = new Map<string, Conflict[]>();
  for (const c of conflicts) {
    const l = byManager.get(c.managerId) ?? [];
    l.push(c);
    byManager.set(c.managerId, l);
  }
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort()) {
    const cs = byManager.get(id)!;
    lines.push(`conflicts with ${printManager(cs[0]!.manager)}:`);
    for (const c of cs) lines.push(`- ${pathString(c.path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

export function conflictError(conflicts: Conflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) =>
    a.managerId < b.managerId ? -1 : a.managerId > b.managerId ? 1 : 0,
  );
  const causes: StatusCause[] = sorted.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  return errors.applyConflict(causes, conflictMessage(sorted));
}
