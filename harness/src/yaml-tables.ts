// Table files of the suites (`<area>/rows/*.yaml` and the like): each file read as YAML (with
// merge keys), checked against the area's JSON schema, in file-name order, so a malformed row
// fails loudly when the suite loads. What a schema cannot say (ids unique across files, rules
// between fields) the area checks on the documents it gets back.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

export interface TableFile<T> {
  /** The file's path. */
  path: string;
  /** `<folder>/<file name>` (for reports: where a row comes from). */
  name: string;
  doc: T;
}

/** The `.yaml` files of `dir`, each validated against the JSON schema file `schemaPath`. */
export function loadTableFiles<T>(dir: string, schemaPath: string): TableFile<T>[] {
  const validate = validator(schemaPath);
  return readdirSync(dir)
    .filter((n) => n.endsWith('.yaml'))
    .sort()
    .map((f) => readChecked<T>(join(dir, f), schemaPath, validate));
}

/** One `.yaml` table file, validated against the JSON schema file `schemaPath`. */
export function loadTableFile<T>(path: string, schemaPath: string): TableFile<T> {
  return readChecked<T>(path, schemaPath, validator(schemaPath));
}

function validator(schemaPath: string): ValidateFunction {
  return new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
}

function readChecked<T>(path: string, schemaPath: string, validate: ValidateFunction): TableFile<T> {
  const doc = parse(readFileSync(path, 'utf8'), { merge: true });
  if (!validate(doc)) {
    const errs = (validate.errors ?? []).map((e) => `  ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    throw new Error(`${path} does not match ${basename(schemaPath)}:\n${errs.join('\n')}`);
  }
  return { path, name: `${basename(dirname(path))}/${basename(path)}`, doc: doc as T };
}

/** Throws when `id` was seen before (ids are unique across an area's files). */
export function uniqueId(seen: Set<string>, id: string, path: string, what = 'row id'): void {
  if (seen.has(id)) throw new Error(`${path}: duplicate ${what} ${id}`);
  seen.add(id);
}
