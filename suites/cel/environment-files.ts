// Loads the environment rows (environment/*.yaml), validates them against
// environment.schema.json and against what a schema cannot say (ids unique, an expression naming
// `self` compiled as a rule only).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Level } from '../../harness/src/spec.ts';
import { loadTableFiles, uniqueId } from '../../harness/src/yaml-tables.ts';

export type CompilePlace = 'rule' | 'policy' | 'match-condition';

export const PLACES: CompilePlace[] = ['rule', 'policy', 'match-condition'];

export interface EnvironmentRow {
  id: string;
  title: string;
  section: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
  level: Level;
  note?: string;
  expression: string;
  places?: CompilePlace[];
  accepted?: true;
  refused?: string;
  /** The file it came from (for messages). */
  file: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));

/** Whether the expression names `self` (outside quoted text). */
const namesSelf = (e: string) => /\bself\b/.test(e.replace(/'[^']*'|"[^"]*"/g, ''));

export function loadEnvironmentRows(): EnvironmentRow[] {
  const out: EnvironmentRow[] = [];
  const ids = new Set<string>();
  for (const f of loadTableFiles<{ rows: Omit<EnvironmentRow, 'file'>[] }>(
    join(HERE, 'environment'),
    join(HERE, 'environment.schema.json'),
  )) {
    for (const row of f.doc.rows) {
      uniqueId(ids, row.id, f.path);
      const places = row.places ?? PLACES;
      if (namesSelf(row.expression) && places.some((p) => p !== 'rule'))
        throw new Error(`${f.path}: ${row.id} names self: it is compiled as a rule only (places: [rule])`);
      out.push({ ...row, file: f.name });
    }
  }
  return out;
}
