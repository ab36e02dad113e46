// Loads the table rows (rows/*.yaml), validates them against rows.schema.json, and builds each
// row's file, so a malformed row fails loudly at load time and a new row is a new case.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { Level } from '../../harness/src/spec.ts';
import { loadTableFiles, uniqueId } from '../../harness/src/yaml-tables.ts';
import { baseDocument, type Kind, merge, without } from './bases.ts';

export interface Row {
  id: string;
  title: string;
  section?: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
  level: Level;
  set?: Record<string, unknown>;
  unset?: string[];
  text?: string;
  name?: string;
  expect: 'accept' | 'refuse' | 'default';
  paths?: (string | string[])[];
  at?: string;
  value?: unknown;
  duration?: boolean;
  empty?: boolean;
  /** Set by the loader: the kind of the base, the file of the row. */
  base: Kind;
  file: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));

/** The text of the file a row hands to the validator or the defaulter. */
export function rowText(row: Row): string {
  if (row.text !== undefined) return row.text;
  let doc = merge(baseDocument(row.base), row.set ?? {});
  for (const p of row.unset ?? []) doc = without(doc, p);
  return stringify(doc);
}

export function loadRows(): Row[] {
  const out: Row[] = [];
  const ids = new Set<string>();
  type File = { base: Kind; rows: Omit<Row, 'base' | 'file'>[] };
  for (const f of loadTableFiles<File>(join(HERE, 'rows'), join(HERE, 'rows.schema.json'))) {
    for (const r of f.doc.rows) {
      uniqueId(ids, r.id, f.path);
      out.push({ ...r, base: f.doc.base, file: f.name });
    }
  }
  return out;
}
