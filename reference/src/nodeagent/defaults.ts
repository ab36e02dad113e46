// Defaulting a node agent configuration: every absent field with a default in the table gets
// it (objects with a default are created, then their own fields defaulted); an empty
// imageServiceEndpoint falls back to containerRuntimeEndpoint. The input is not changed.
import { type FieldDef, FIELDS } from './fields.ts';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function defaultObject(defs: readonly FieldDef[], obj: Obj): Obj {
  const out: Obj = { ...obj };
  for (const def of defs) {
    if (out[def.name] === undefined && def.default !== undefined)
      out[def.name] = structuredClone(def.default);
    const v = out[def.name];
    if (def.kind === 'object' && isObject(v)) out[def.name] = defaultObject(def.fields ?? [], v);
    if (def.kind === 'objectList' && Array.isArray(v))
      out[def.name] = v.map((x) => (isObject(x) ? defaultObject(def.fields ?? [], x) : x));
  }
  return out;
}

/** The configuration with every default applied (a loaded, well-typed configuration). */
export function applyDefaults(config: Obj): Obj {
  const out = defaultObject(FIELDS, config);
  if (!out.imageServiceEndpoint && typeof out.containerRuntimeEndpoint === 'string')
    out.imageServiceEndpoint = out.containerRuntimeEndpoint;
  return out;
}
