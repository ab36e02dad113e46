// Loads the configuration rows (rows/*.yaml), validates them against rows.schema.json and against
// what a schema cannot say (ids unique across files), and builds each row's webhooks over its
// file's base webhook, so a malformed row fails loudly when the suite loads and a new row is a
// new case without new code.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Level } from '../../harness/src/spec.ts';
import { loadTableFiles, uniqueId } from '../../harness/src/yaml-tables.ts';

export type Kind = 'validating' | 'mutating';

export interface Violation {
  field: string;
  /** A fragment of the cause's message. */
  message: string;
  reason?: string;
}

export interface Row {
  id: string;
  title: string;
  section?: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
  level: Level;
  note?: string;
  kinds?: Kind[];
  name?: string;
  update?: boolean;
  webhooks: Record<string, unknown>[];
  accepted?: { shows?: Record<string, unknown>[] };
  refused?: Violation[];
}

export interface LoadedRow extends Row {
  /** The row's webhooks merged over the base webhook (null fields left out). */
  sent: Record<string, unknown>[];
  /** The base webhook alone (what an update row creates first). */
  base: Record<string, unknown>;
  file: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const DIR = join(HERE, 'rows');

function merged(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(base);
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete out[k];
    else out[k] = structuredClone(v);
  }
  return out;
}

export function loadRows(): LoadedRow[] {
  const out: LoadedRow[] = [];
  const ids = new Set<string>();
  for (const f of loadTableFiles<{ base: Record<string, unknown>; rows: Row[] }>(
    DIR,
    join(HERE, 'rows.schema.json'),
  )) {
    const { base, rows } = f.doc;
    for (const row of rows) {
      uniqueId(ids, row.id, f.path);
      out.push({ ...row, base, sent: row.webhooks.map((w) => merged(base, w)), file: f.name });
    }
  }
  return out;
}
