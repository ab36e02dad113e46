// The schemas of built-in kinds as a 1.28 server publishes them (builtin/openapi-1.28.json,
// generated from the captured OpenAPI documents by scripts/gen-builtin-schemas.ts; never
// edited by hand). Named types are resolved once and shared, so a pod template is one schema
// object wherever it appears. Kinds whose schemas carry Protobuf field numbers keep their
// hand-written schemas; kinds added since use these.

import { dataFileText } from '../util/data-file.ts';
import { freeform, intOrString } from './dsl.ts';
import { objectMeta } from './meta.ts';
import { quantity } from './normalize.ts';
import type { Schema } from './types.ts';

interface Published {
  /** `group/version/Kind` (`v1/Pod` for the core group) to the definition's name. */
  kinds: Record<string, string>;
  definitions: Record<string, RawSchema>;
}

type RawSchema = Schema & { $ref?: string; oneOf?: unknown[] };

let published: Published | undefined;
const resolved = new Map<string, Schema>();

function load(): Published {
  published ??= JSON.parse(
    dataFileText(new URL('./builtin/openapi-1.28.json', import.meta.url)),
  ) as Published;
  return published;
}

/** Types the reference models its own way (metadata, quantities, free-form JSON). */
const SPECIAL: Record<string, () => Schema> = {
  'io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta': () => objectMeta,
  'io.orch.apimachinery.pkg.api.resource.Quantity': quantity,
  'io.orch.apimachinery.pkg.util.intstr.IntOrString': intOrString,
  'io.orch.apimachinery.pkg.runtime.RawExtension': freeform,
  'io.orch.apimachinery.pkg.apis.meta.v1.FieldsV1': freeform,
  'io.orch.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': () => ({}),
};

function named(name: string): Schema {
  const have = resolved.get(name);
  if (have) return have;
  const special = SPECIAL[name];
  if (special) {
    const s = special();
    resolved.set(name, s);
    return s;
  }
  const raw = load().definitions[name];
  if (!raw) throw new Error(`no published schema named ${name}`);
  // registered before its fields are resolved: recursive types point back at this object
  const out: Schema = {};
  resolved.set(name, out);
  Object.assign(out, resolve(raw));
  return out;
}

function resolve(raw: RawSchema): Schema {
  if (raw.$ref) {
    const { $ref, ...rest } = raw;
    const target = named($ref);
    return Object.keys(rest).length ? { ...target, ...resolve(rest) } : target;
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'oneOf') continue;
    if (k === 'properties')
      out.properties = Object.fromEntries(
        Object.entries(v as Record<string, RawSchema>).map(([p, s]) => [p, resolve(s)]),
      );
    else if (k === 'items') out.items = resolve(v as RawSchema);
    else if (k === 'additionalProperties' && typeof v === 'object')
      out.additionalProperties = resolve(v as RawSchema);
    else (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** The schema of a whole object of a built-in kind at a group version (`apps/v1`, `v1`). */
export function builtinSchema(groupVersion: string, kind: string): Schema {
  const name = load().kinds[`${groupVersion}/${kind}`];
  if (!name) throw new Error(`no published schema for ${groupVersion} ${kind}`);
  return named(name);
}

/** The schema of a named type (`io.orch.api.core.v1.PodTemplateSpec`). */
export function builtinType(name: string): Schema {
  return named(name);
}

/** Every kind with a published schema, as `group/version/Kind`. */
export function builtinKindsPublished(): string[] {
  return Object.keys(load().kinds);
}
