// Which known departure of an expectations file a divergence is: the cases of the file whose
// behaviour the shrunk sequence's differing operation shows, matched by what it sent and how
// the answers differ. Only the departures the operations of a differential run can meet.
import { type ExpectationFile, expectationFor } from '../../harness/src/expectations.ts';
import type { Op } from './ops.ts';
import type { Divergence } from './runner.ts';

export interface KnownDeparture {
  id: string;
  note: string;
}

const METHOD: Record<string, string> = {
  create: 'post',
  update: 'put',
  'merge-patch': 'patch',
  'strategic-patch': 'patch',
  'json-patch': 'patch',
  apply: 'patch',
  delete: 'delete',
};

/** The case ids whose departure the divergence shows. */
function candidates(op: Op, d: Divergence): string[] {
  const ids: string[] = [];
  if ('dryRun' in op && op.dryRun === 'bare' && /422 Invalid \(dryRun\)/.test(d.signature))
    ids.push(`dry-run/${METHOD[op.op]}/bare`);
  if (
    op.op === 'merge-patch' &&
    op.patch.clearManagedFields &&
    d.paths.some((p) => p.includes('managedFields'))
  )
    ids.push('apply/managed-fields/clear/empty-list-ignored');
  if (
    op.op === 'merge-patch' &&
    op.strict &&
    op.patch.unknownField &&
    /400 BadRequest vs 422 Invalid/.test(d.signature)
  )
    ids.push('field-validation/strict/patch');
  if (
    op.op === 'json-patch' &&
    op.patch.some((p) => p.op === 'replace') &&
    /^status: 422 Invalid.* vs 2xx$/.test(d.signature)
  )
    ids.push('patch/json-patch/law-atomic');
  return ids;
}

/** The known departures of `file` the divergence shows (none when it is new). */
export function knownDepartures(file: ExpectationFile, d: Divergence): KnownDeparture[] {
  const op = d.ops[d.index];
  if (!op) return [];
  return candidates(op, d).flatMap((id) => {
    const e = expectationFor(file, id);
    return e ? [{ id, note: e.note }] : [];
  });
}
