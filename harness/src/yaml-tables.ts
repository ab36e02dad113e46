// Table files of the suites (`<area>/rows/*.yaml` and the like): each file read as YAML (with
// merge keys), checked against the area's JSON schema, in file-name order, so a malformed row
// fails loudly when the suite loads. What a schema cannot say (ids unique across files, rules
// between fields) the area checks on the documents it gets back.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { cachedDocument } from './table-cache.ts';

export interface TableFile<T> {
  /** The file's path. */
  path: string;
  /** `<folder>/<file name>` (for reports: where a row comes from). */
  name: string;
  doc: T;
}

/** The `.yaml` files of `dir`, each validated against the JSON schema file `schemaPath`. */
export function loadTableFiles<T>(dir: string, schemaPath: string): TableFile<T>[] {
  const schema = readFileSync(schemaPath, 'utf8');
  return readdirSync(dir)
    .filter((n) => n.endsWith('.yaml'))
    .sort()
    .map((f) => readChecked<T>(join(dir, f), schemaPath, schema));
}

/** One `.yaml` table file, validated against the JSON schema file `schemaPath`. */
export function loadTableFile<T>(path: string, schemaPath: string): TableFile<T> {
  return readChecked<T>(path, schemaPath, readFileSync(schemaPath, 'utf8'));
}

/** Compiled schemas by their text (a worker compiles each once). */
const validators = new Map<string, ValidateFunction>();

function validator(schema: string): ValidateFunction {
  let v = validators.get(schema);
  if (!v)
    validators.set(schema, (v = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(schema))));
  return v;
}

/**
 * A file's document: parsed and validated, or, when this text was checked against this schema
 * before, the document as it was then (table-cache.ts; parsing and compiling the schema are
 * most of a suite file's start).
 */
function readChecked<T>(path: string, schemaPath: string, schema: string): TableFile<T> {
  const text = readFileSync(path, 'utf8');
  const doc = cachedDocument([text, schema], () => {
    const parsed = parse(text, { merge: true });
    const validate = validator(schema);
    if (!validate(parsed)) {
      const errs = (validate.errors ?? []).map(
        (e) => `  ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
      );
      throw new Error(`${path} does not match ${basename(schemaPath)}:\n${errs.join('\n')}`);
    }
    return parsed;
  });
  return { path, name: `${basename(dirname(path))}/${basename(path)}`, doc: doc as T };
}

/**
 * Throws unless each `.yaml` file of `dir` has its test file beside it (`<name>.test.ts`, which
 * runs that file's rows): a table file added without one would never run.
 */
export function requireTestFiles(dir: string): void {
  const names = new Set(readdirSync(dir));
  for (const f of names)
    if (f.endsWith('.yaml') && !names.has(f.replace(/\.yaml$/, '.test.ts')))
      throw new Error(
        `${join(dir, f)} has no test file beside it (${f.replace(/\.yaml$/, '.test.ts')}): its rows would never run`,
      );
}

/** Throws when `id` was seen before (ids are unique across an area's files). */
export function uniqueId(seen: Set<string>, id: string, path: string, what = 'row id'): void {
  if (seen.has(id)) throw new Error(`${path}: duplicate ${what} ${id}`);
  seen.add(id);
}
