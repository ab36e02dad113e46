// Loads the table rows (rows/*.yaml), validates them against rows.schema.json, and builds each
// row's file, so a malformed row fails loudly at load time and a new row is a new case.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse, stringify } from 'yaml';
import type { Level } from '../../harness/src/spec.ts';
import { baseDocument, type Kind, merge, without } from './bases.ts';

export interface Row {
  id: string;
  title: string;
  section?: string;
  place: string;
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
  const schema = JSON.parse(readFileSync(join(HERE, 'rows.schema.json'), 'utf8'));
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  const out: Row[] = [];
  const ids = new Set<string>();
  for (const f of readdirSync(join(HERE, 'rows'))
    .filter((n) => n.endsWith('.yaml'))
    .sort()) {
    const path = join(HERE, 'rows', f);
    const doc = parse(readFileSync(path, 'utf8'));
    if (!validate(doc)) {
      const errs = (validate.errors ?? []).map(
        (e) => `  ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
      );
      throw new Error(`${path} does not match rows.schema.json:\n${errs.join('\n')}`);
    }
    const { base, rows } = doc as { base: Kind; rows: Omit<Row, 'base' | 'file'>[] };
    for (const r of rows) {
      if (ids.has(r.id)) throw new Error(`${path}: duplicate row id ${r.id}`);
      ids.add(r.id);
      out.push({ ...r, base, file: `rows/${f}` });
    }
  }
  return out;
}
