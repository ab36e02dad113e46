// Loading a node agent configuration file: parse (parse.ts), check the document's apiVersion
// and kind, decode strictly against the kind's fields (structure.ts), apply the defaults
// (defaults.ts) and check every rule (field-rules.ts, cross-field.ts, credential-provider.ts).
// Every error is collected: the caller gets them all at once, each with its field path.
import { checkCrossField } from './cross-field.ts';
import { applyDefaults } from './defaults.ts';
import {
  CREDENTIAL_PROVIDER_FIELDS,
  CREDENTIAL_PROVIDER_KIND,
  checkCredentialProviders,
} from './credential-provider.ts';
import type { FieldError } from './field-error.ts';
import { checkFields } from './field-rules.ts';
import { API_VERSION, type FieldDef, FIELDS, KIND } from './fields.ts';
import { NODE_CONFIG_SOURCE_FIELDS, NODE_CONFIG_SOURCE_KIND } from './node-config-source.ts';
import { parseText } from './parse.ts';
import { checks, type RuleOptions } from './rule-class.ts';
import { checkObject } from './structure.ts';

type Obj = Record<string, unknown>;

export const KINDS: Readonly<Record<string, readonly FieldDef[]>> = {
  [KIND]: FIELDS,
  [CREDENTIAL_PROVIDER_KIND]: CREDENTIAL_PROVIDER_FIELDS,
  [NODE_CONFIG_SOURCE_KIND]: NODE_CONFIG_SOURCE_FIELDS,
};

export interface Loaded {
  kind?: string;
  /** The configuration with its defaults applied (when the document is an object of a known kind). */
  config?: Obj;
  errors: FieldError[];
}

/** Drops fields set to null (Kubernetes decodes them as unset). */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v === null || typeof v !== 'object') return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = dropNulls(x);
  return out;
}

export function loadNodeConfig(text: string, opts?: RuleOptions): Loaded {
  const parsed = parseText(text);
  if (parsed.errors.length) return { errors: parsed.errors };
  const errors: FieldError[] = [];
  if (checks(opts, 'duplicate-fields'))
    for (const p of parsed.duplicates)
      errors.push({ path: p, type: 'Duplicate value', detail: `the field ${p} appears more than once` });
  const doc = parsed.value as Obj;
  if (doc.apiVersion === undefined || doc.apiVersion === '')
    errors.push({ path: 'apiVersion', type: 'Required value', detail: `apiVersion must be ${API_VERSION}` });
  else if (doc.apiVersion !== API_VERSION)
    errors.push({
      path: 'apiVersion',
      type: 'Unsupported value',
      value: doc.apiVersion,
      detail: `supported values: "${API_VERSION}"`,
    });
  const kind = doc.kind;
  const defs = typeof kind === 'string' ? KINDS[kind] : undefined;
  if (kind === undefined || kind === '') {
    errors.push({
      path: 'kind',
      type: 'Required value',
      detail: `kind must be one of ${Object.keys(KINDS).join(', ')}`,
    });
    return { errors };
  }
  if (!defs) {
    errors.push({
      path: 'kind',
      type: 'Unsupported value',
      value: kind,
      detail: `supported values: ${Object.keys(KINDS)
        .map((k) => `"${k}"`)
        .join(', ')}`,
    });
    return { errors };
  }
  checkObject(defs, doc, '', opts, errors, ['apiVersion', 'kind']);
  const clean = dropNulls(doc) as Obj;
  const config = kind === KIND ? applyDefaults(clean) : clean;
  checkFields(defs, config, '', opts, errors);
  if (kind === KIND) checkCrossField(config, opts, errors);
  if (kind === CREDENTIAL_PROVIDER_KIND) checkCredentialProviders(config, opts, errors);
  return { kind: kind as string, config, errors: dedupe(errors) };
}

/** One error per path and kind of error (a type error and a rule can name the same value). */
function dedupe(errors: FieldError[]): FieldError[] {
  const typed = new Set(
    errors.filter((e) => /^must be (a|an) /.test(e.detail) && e.type === 'Invalid value').map((e) => e.path),
  );
  const seen = new Set<string>();
  return errors.filter((e) => {
    // a value of the wrong type gets its type error only
    if (typed.has(e.path) && !/^must be (a|an) /.test(e.detail)) return false;
    const key = `${e.path}\u0000${e.type}\u0000${e.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
