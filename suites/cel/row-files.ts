// Loads the rule rows (rows/*.yaml), validates them against rows.schema.json and against what a
// schema cannot say (ids unique, an update follows a create, a row that expects a refusal also
// has a write that is accepted, a root group holds one row), so a malformed row fails loudly
// when the suite loads and a new row is a new case without new code.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import type { Level } from '../../harness/src/spec.ts';

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
  const schema = JSON.parse(readFileSync(join(HERE, 'rows.schema.json'), 'utf8'));
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  const out: Group[] = [];
  const ids = new Set<string>();
  const names = new Set<string>();
  for (const f of readdirSync(DIR)
    .filter((n) => n.endsWith('.yaml'))
    .sort()) {
    const path = join(DIR, f);
    const doc = parse(readFileSync(path, 'utf8'), { merge: true });
    if (!validate(doc)) {
      const errs = (validate.errors ?? []).map(
        (e) => `  ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
      );
      throw new Error(`${path} does not match rows.schema.json:\n${errs.join('\n')}`);
    }
    for (const raw of (doc as { groups: Omit<Group, 'file'>[] }).groups) {
      const g: Group = { ...raw, file: `rows/${f}` };
      if (names.has(g.group)) throw new Error(`${path}: duplicate group ${g.group}`);
      names.add(g.group);
      for (const row of g.rows) {
        if (ids.has(row.id)) throw new Error(`${path}: duplicate row id ${row.id}`);
        ids.add(row.id);
      }
      validateSemantics(g);
      out.push(g);
    }
  }
  return out;
}
