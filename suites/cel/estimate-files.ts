// Loads the estimate rows (estimates/*.yaml), validates them against estimates.schema.json and
// against what a schema cannot say (ids unique, across these files and the rule rows' too).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Level } from '../../harness/src/spec.ts';
import { loadTableFiles, uniqueId } from '../../harness/src/yaml-tables.ts';

export interface Cause {
  /** Relative to the version's schema (`` is the schema itself). */
  field: string;
  reason: string;
  /** The whole message. */
  message: string;
}

export interface EstimateRow {
  id: string;
  title: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
  level: Level;
  note?: string;
  schema: Record<string, unknown>;
  accepted?: true;
  refused?: Cause[];
  twin?: false;
  /** The file it came from (for messages). */
  file: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));

export function loadEstimateRows(): EstimateRow[] {
  const out: EstimateRow[] = [];
  const ids = new Set<string>();
  for (const f of loadTableFiles<{ rows: Omit<EstimateRow, 'file'>[] }>(
    join(HERE, 'estimates'),
    join(HERE, 'estimates.schema.json'),
  )) {
    for (const row of f.doc.rows) {
      uniqueId(ids, row.id, f.path);
      if (!JSON.stringify(row.schema).includes('x-orch-validations'))
        throw new Error(`${f.path}: ${row.id} has no rule`);
      if (row.twin === false && row.level === 'BEYOND')
        throw new Error(`${f.path}: ${row.id} is BEYOND, it has no twin to leave out`);
      out.push({ ...row, file: f.name });
    }
  }
  return out;
}
