// Strict decoding of a parsed file against its field definitions: every key must be a known
// field (the original interface's names of renamed fields are unknown here), and every value
// must have its field's JSON type. Values are not changed.
import { childPath, type FieldError, keyPath } from './field-error.ts';
import { type FieldDef, RENAMED } from './fields.ts';
import { checks, type RuleOptions } from './rule-class.ts';

const INT32 = [-(2 ** 31), 2 ** 31 - 1] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function typeError(path: string, value: unknown, want: string): FieldError {
  return { path, type: 'Invalid value', value, detail: `must be ${want}` };
}

/** Errors of one value against its field's type (recursing into objects and lists). */
function checkValue(
  def: FieldDef,
  v: unknown,
  path: string,
  opts: RuleOptions | undefined,
  out: FieldError[],
): void {
  switch (def.kind) {
    case 'bool':
      if (typeof v !== 'boolean') out.push(typeError(path, v, 'a boolean'));
      return;
    case 'string':
    case 'duration':
      if (typeof v !== 'string')
        out.push(typeError(path, v, def.kind === 'duration' ? 'a duration string' : 'a string'));
      return;
    case 'int32':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < INT32[0] || v > INT32[1])
        out.push(typeError(path, v, 'a 32-bit integer'));
      return;
    case 'int64':
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) out.push(typeError(path, v, 'an integer'));
      return;
    case 'float64':
      if (typeof v !== 'number' || !Number.isFinite(v)) out.push(typeError(path, v, 'a number'));
      return;
    case 'stringList':
      if (!Array.isArray(v)) out.push(typeError(path, v, 'a list of strings'));
      else
        v.forEach((x, i) => {
          if (typeof x !== 'string') out.push(typeError(childPath(path, i), x, 'a string'));
        });
      return;
    case 'stringMap':
    case 'boolMap':
    case 'stringListMap':
    case 'resourceList': {
      const what = {
        stringMap: 'a map of string to string',
        boolMap: 'a map of string to boolean',
        stringListMap: 'a map of string to list of string',
        resourceList: 'a map of resource name to quantity',
      }[def.kind];
      if (!isObject(v)) {
        out.push(typeError(path, v, what));
        return;
      }
      for (const [k, x] of Object.entries(v)) {
        const p = keyPath(path, k);
        if (def.kind === 'stringMap' && typeof x !== 'string') out.push(typeError(p, x, 'a string'));
        if (def.kind === 'boolMap' && typeof x !== 'boolean') out.push(typeError(p, x, 'a boolean'));
        if (def.kind === 'resourceList' && typeof x !== 'string' && typeof x !== 'number')
          out.push(typeError(p, x, 'a quantity'));
        if (def.kind === 'stringListMap') {
          if (!Array.isArray(x)) out.push(typeError(p, x, 'a list of strings'));
          else
            x.forEach((y, i) => {
              if (typeof y !== 'string') out.push(typeError(childPath(p, i), y, 'a string'));
            });
        }
      }
      return;
    }
    case 'object':
      if (!isObject(v)) out.push(typeError(path, v, 'an object'));
      else checkObject(def.fields ?? [], v, path, opts, out);
      return;
    case 'objectList':
      if (!Array.isArray(v)) out.push(typeError(path, v, 'a list of objects'));
      else
        v.forEach((x, i) => {
          const p = childPath(path, i);
          if (!isObject(x)) out.push(typeError(p, x, 'an object'));
          else checkObject(def.fields ?? [], x, p, opts, out);
        });
      return;
  }
}

/**
 * Errors of an object against a list of field definitions. `extra` names keys allowed beside
 * them (apiVersion and kind at the top).
 */
export function checkObject(
  defs: readonly FieldDef[],
  obj: Record<string, unknown>,
  path: string,
  opts: RuleOptions | undefined,
  out: FieldError[],
  extra: readonly string[] = [],
): void {
  for (const [k, v] of Object.entries(obj)) {
    const p = childPath(path, k);
    const def = defs.find((d) => d.name === k);
    if (!def) {
      if (extra.includes(k) || !checks(opts, 'unknown-fields')) continue;
      const renamed = path === '' ? RENAMED[k] : undefined;
      out.push({
        path: p,
        type: 'Forbidden',
        detail: `unknown field "${k}"${renamed ? ` (this interface calls it "${renamed}")` : ''}`,
      });
      continue;
    }
    // an explicit null is an unset field, as Kubernetes decodes it
    if (v === null) continue;
    checkValue(def, v, p, opts, out);
  }
}
