// The model: the operations and definitions built from the registry, which both documents render.
import type { Registry } from '../../registry/registry.ts';
import { type ResourceDef, schemaFor } from '../../registry/types.ts';
import { discoveryOps } from './discovery-ops.ts';
import { definitionPrefix, type Json, META, ref } from './names.ts';
import type { Op } from './op.ts';
import { resourceOps } from './operations.ts';
import { commonDefinitions, convertSchema, gvkExt, scaleDefinitions, TYPE_META } from './schemas.ts';

export interface Built {
  ops: Op[];
  definitions: Record<string, Json>;
  /** Definitions the Swagger 2.0 document publishes in place of those of `definitions`. */
  v2Definitions: Record<string, Json>;
}

/**
 * A custom resource's kind as published: a bare object when its definition declares no
 * schema (no properties: clients then check nothing), else the schema with the standard
 * apiVersion, kind and metadata fields and their descriptions.
 */
function customSchema(def: ResourceDef, version: string): Json {
  const own = schemaFor(def, version);
  if (!own || def.versionInfo?.[version]?.schemaless) return { type: 'object' };
  const schema = convertSchema(own);
  schema.properties = {
    ...(schema.properties as Record<string, Json>),
    ...TYPE_META,
    metadata: { ...ref(`${META}.ObjectMeta`), description: "Standard object's metadata." },
  };
  return schema;
}

export function buildModel(registry: Registry): Built {
  const definitions = commonDefinitions();
  const v2Definitions: Record<string, Json> = {};
  const ops = discoveryOps(registry);
  for (const { def } of registry.all()) {
    for (const version of def.versions) {
      if (!registry.lookup(def.group, version, def.plural)) continue;
      const prefix = definitionPrefix(def.group, version);
      const kindDef = `${prefix}.${def.kind}`;
      const listDef = `${prefix}.${def.listKind}`;
      // each version's own schema (a converted version's differs from the stored one)
      const own = schemaFor(def, version);
      let schema: Json;
      if (def.custom) schema = customSchema(def, version);
      else
        schema = own
          ? convertSchema(own)
          : {
              type: 'object',
              properties: { ...TYPE_META, metadata: ref(`${META}.ObjectMeta`) },
              'x-orch-preserve-unknown-fields': true,
            };
      definitions[kindDef] = { ...schema, ...gvkExt(def.group, version, def.kind) };
      // Swagger 2.0 clients check fields against properties and know no preserve-unknown-fields:
      // a custom resource that keeps unknown fields at its root is a bare object there
      if (def.custom && schema['x-orch-preserve-unknown-fields'] === true)
        v2Definitions[kindDef] = { type: 'object', ...gvkExt(def.group, version, def.kind) };
      definitions[listDef] = {
        description: `${def.listKind} is a list of ${def.kind} objects.`,
        type: 'object',
        required: ['items'],
        properties: {
          ...TYPE_META,
          items: { type: 'array', items: ref(kindDef), description: `List of ${def.plural}.` },
          metadata: ref(`${META}.ListMeta`),
        },
        ...gvkExt(def.group, version, def.listKind),
      };
      ops.push(...resourceOps(def, version, kindDef, listDef));
      if (def.subresources.includes('scale')) Object.assign(definitions, scaleDefinitions());
    }
  }
  return { ops, definitions, v2Definitions };
}
