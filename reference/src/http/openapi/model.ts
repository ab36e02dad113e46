// The model: the operations and definitions built from the registry, which both documents render.
import type { Registry } from '../../registry/registry.ts';
import { schemaFor } from '../../registry/types.ts';
import { discoveryOps } from './discovery-ops.ts';
import { definitionPrefix, type Json, META, ref } from './names.ts';
import type { Op } from './op.ts';
import { resourceOps } from './operations.ts';
import { commonDefinitions, convertSchema, gvkExt, scaleDefinitions, TYPE_META } from './schemas.ts';

export interface Built {
  ops: Op[];
  definitions: Record<string, Json>;
}

export function buildModel(registry: Registry): Built {
  const definitions = commonDefinitions();
  const ops = discoveryOps(registry);
  for (const { def } of registry.all()) {
    for (const version of def.versions) {
      if (!registry.lookup(def.group, version, def.plural)) continue;
      const prefix = definitionPrefix(def.group, version);
      const kindDef = `${prefix}.${def.kind}`;
      const listDef = `${prefix}.${def.listKind}`;
      // each version's own schema (a converted version's differs from the stored one)
      const own = schemaFor(def, version);
      const schema: Json = own
        ? convertSchema(own)
        : {
            type: 'object',
            properties: { ...TYPE_META, metadata: ref(`${META}.ObjectMeta`) },
            'x-orch-preserve-unknown-fields': true,
          };
      definitions[kindDef] = { ...schema, ...gvkExt(def.group, version, def.kind) };
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
  return { ops, definitions };
}
