// Loads the rule rows (rows/*.yaml), validates them against rows.schema.json and against what a
// schema cannot say (ids unique, an update follows a create, a row that expects a refusal also
// has a write that is accepted, a root group holds one row), so a malformed row fails loudly
// when the suite loads and a new row is a new case without new code.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Level } from '../../harness/src/spec.ts';
import { loadTableFiles, requireTestFiles, uniqueId } from '../../harness/src/yaml-tables.ts';

export type CauseReason =
  | 'FieldValueInvalid'
  | 'FieldValueForbidden'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate';

export interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: CauseReason;
  fieldPath?: string;
}

export interface Violation {
  /** Relative to the row's property (writes) or to the row's schema (definitions). */
  field: string;
  /** A fragment of the cause's message. */
  message: string;
  reason?: CauseReason;
}

export interface Write {
  say?: string;
  create?: unknown;
  update?: unknown;
  refused?: Violation[];
}

export interface Row {
  id: string;
  title: string;
  section: string;
  place: string;
  /** The ids of the rules the place quotes (suites/rules/doc<n>.yaml). */
  specRules?: string[];
  level: Level;
  note?: string;
  schema: Record<string, unknown>;
  rules?: Rule[];
  writes?: Write[];
  definition?: { refused: Violation };
}

export interface Group {
  group: string;
  root?: boolean;
  rows: Row[];
  /** The file it came from (for messages). */
  file: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const DIR = join(HERE, 'rows');

/** The row's property name in its group's `spec`: its id after `cel/`, in camel case. */
export function rowKey(row: Row): string {
  const parts = row.id
    .replace(/^cel\//, '')
    .split(/[/.-]+/)
    .filter(Boolean);
  return parts.map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1))).join('');
}

function validateSemantics(g: Group): void {
  if (g.root && g.rows.length !== 1)
    throw new Error(`${g.file}: root group ${g.group} holds ${g.rows.length} rows, not one`);
  for (const row of g.rows) {
    const where = `${g.file}: ${row.id}`;
    if (!row.writes) continue;
    if (!('create' in row.writes[0]!)) throw new Error(`${where}: the first write must create the object`);
    if (!row.writes.some((w) => !w.refused))
      throw new Error(`${where}: no write is accepted (a server that refuses everything would pass the row)`);
    if (!row.rules && !JSON.stringify(row.schema).includes('x-orch-validations'))
      throw new Error(`${where}: the row has no rule`);
  }
}

export function loadGroups(): Group[] {
  requireTestFiles(DIR);
  const out: Group[] = [];
  const ids = new Set<string>();
  const names = new Set<string>();
  for (const f of loadTableFiles<{ groups: Omit<Group, 'file'>[] }>(DIR, join(HERE, 'rows.schema.json'))) {
    for (const raw of f.doc.groups) {
      const g: Group = { ...raw, file: f.name };
      uniqueId(names, g.group, f.path, 'group');
      for (const row of g.rows) uniqueId(ids, row.id, f.path);
      validateSemantics(g);
      out.push(g);
    }
  }
  return out;
}
