// The OpenAPI rules of one schema node (Kubernetes'
// ValidateCustomResourceDefinitionOpenAPISchema): keywords CRDs do not support, and the
// x-orch-map-type, x-orch-list-type and x-orch-list-map-keys extensions.
import type { NodeFacts } from './schema-structural.ts';
import { type CrdCauses, goListOfStrings, isObj, type JSP } from './validation-causes.ts';

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/** The OpenAPI rules of node `s` at `path` (its children are checked on their own). */
export function openapiRules(
  s: JSP,
  path: string,
  f: NodeFacts,
  opts: { insideMeta: boolean; topMeta: boolean },
  oa: CrdCauses,
): void {
  const { type, hasProps, embedded } = f;
  if (type && !OPENAPI_TYPES.includes(type)) oa.notSupported(`${path}.type`, type, OPENAPI_TYPES);
  if (s.default !== undefined && opts.topMeta)
    oa.forbidden(`${path}.default`, 'must not be set in top-level metadata');
  if (s.id !== undefined && s.id !== '') oa.forbidden(`${path}.id`, 'id is not supported');
  if (s.additionalItems !== undefined)
    oa.forbidden(`${path}.additionalItems`, 'additionalItems is not supported');
  if (isObj(s.patternProperties) && Object.keys(s.patternProperties).length)
    oa.forbidden(`${path}.patternProperties`, 'patternProperties is not supported');
  if (isObj(s.definitions) && Object.keys(s.definitions).length)
    oa.forbidden(`${path}.definitions`, 'definitions is not supported');
  if (s.dependencies !== undefined) oa.forbidden(`${path}.dependencies`, 'dependencies is not supported');
  if (s.$ref !== undefined) oa.forbidden(`${path}.$ref`, '$ref is not supported');
  if (type === 'null')
    oa.forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative');
  if (Array.isArray(s.items)) oa.forbidden(`${path}.items`, 'items must be a schema object and not an array');
  if (opts.insideMeta && embedded)
    oa.forbidden(`${path}.x-orch-embedded-resource`, 'must not be used inside of resource meta');
  if (s.uniqueItems === true)
    oa.forbidden(
      `${path}.uniqueItems`,
      'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    );
  if (
    s.additionalProperties !== undefined &&
    hasProps &&
    (s.additionalProperties === false || isObj(s.additionalProperties))
  )
    oa.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive');
  if (s['x-orch-preserve-unknown-fields'] === false)
    oa.invalid(`${path}.x-orch-preserve-unknown-fields`, false, 'must be true or undefined');
  listRules(s, path, type, oa);
}

/** x-orch-map-type, x-orch-list-type and x-orch-list-map-keys. */
function listRules(s: JSP, path: string, type: string, oa: CrdCauses): void {
  const mapType = s['x-orch-map-type'];
  if (mapType !== undefined && type !== 'object') {
    if (!type) oa.required(`${path}.type`, 'must be object if x-orch-map-type is specified');
    else oa.invalid(`${path}.type`, type, 'must be object if x-orch-map-type is specified');
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular')
    oa.notSupported(`${path}.x-orch-map-type`, mapType, ['atomic', 'granular']);
  const listType = s['x-orch-list-type'];
  const items = isObj(s.items) ? s.items : undefined;
  if (listType !== undefined && type !== 'array') {
    if (!type) oa.required(`${path}.type`, 'must be array if x-orch-list-type is specified');
    else oa.invalid(`${path}.type`, type, 'must be array if x-orch-list-type is specified');
  } else if (listType === 'set' && items) {
    if (
      items.type === 'array' &&
      items['x-orch-list-type'] !== undefined &&
      items['x-orch-list-type'] !== 'atomic'
    )
      oa.invalid(
        `${path}.items.x-orch-list-type`,
        items['x-orch-list-type'],
        'must be atomic as item of a list with x-orch-list-type=set',
      );
    if (items.type === 'object' && items['x-orch-map-type'] !== 'atomic')
      oa.invalid(
        `${path}.items.x-orch-map-type`,
        items['x-orch-map-type'] ?? null,
        'must be atomic as item of a list with x-orch-list-type=set',
      );
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map')
    oa.notSupported(`${path}.x-orch-list-type`, listType, ['atomic', 'set', 'map']);
  const mapKeys = Array.isArray(s['x-orch-list-map-keys']) ? (s['x-orch-list-map-keys'] as string[]) : [];
  if (mapKeys.length > 0) {
    if (listType === undefined)
      oa.required(`${path}.x-orch-list-type`, 'must be map if x-orch-list-map-keys is non-empty');
    else if (listType !== 'map')
      oa.invalid(`${path}.x-orch-list-type`, listType, 'must be map if x-orch-list-map-keys is non-empty');
  }
  if (listType === 'map') listMapRules(path, items, mapKeys, s.items === undefined, oa);
  if ((listType === 'set' || listType === 'map') && items) listItemRules(path, listType, items, mapKeys, oa);
}

/** A list of type map: its keys, and its items' schema. */
function listMapRules(
  path: string,
  items: JSP | undefined,
  mapKeys: string[],
  noItems: boolean,
  oa: CrdCauses,
): void {
  if (mapKeys.length === 0)
    oa.required(`${path}.x-orch-list-map-keys`, 'must not be empty if x-orch-list-type is map');
  if (noItems) oa.required(`${path}.items`, 'must have a schema if x-orch-list-type is map');
  if (items && items.type !== 'object')
    oa.invalid(
      `${path}.items.type`,
      items.type ?? '',
      "must be object if parent array's x-orch-list-type is map",
    );
  if (items && items.type === 'object') {
    const ip = isObj(items.properties) ? (items.properties as Record<string, JSP>) : {};
    const seen = new Set<string>();
    for (const k of mapKeys) {
      const p = Object.hasOwn(ip, k) ? ip[k] : undefined;
      if (p) {
        if (p.type === 'array' || p.type === 'object')
          oa.invalid(
            `${path}.items.properties[${k}].type`,
            items.type,
            "must be a scalar type if parent array's x-orch-list-type is map",
          );
      } else
        oa.invalidRaw(
          `${path}.x-orch-list-map-keys`,
          goListOfStrings(mapKeys),
          'entries must all be names of item properties',
        );
      if (seen.has(k))
        oa.invalidRaw(
          `${path}.x-orch-list-map-keys`,
          goListOfStrings(mapKeys),
          'must not contain duplicate entries',
        );
      seen.add(k);
    }
  }
}

/** The items of a list of type set or map: not nullable, and the map keys required or defaulted. */
function listItemRules(path: string, listType: string, items: JSP, mapKeys: string[], oa: CrdCauses): void {
  if (items.nullable === true)
    oa.forbidden(`${path}.items.nullable`, `cannot be nullable when x-orch-list-type is ${listType}`);
  if (listType === 'map') {
    const req = Array.isArray(items.required) ? (items.required as string[]) : [];
    const ip = isObj(items.properties) ? (items.properties as Record<string, JSP>) : {};
    for (const k of mapKeys) {
      const p = Object.hasOwn(ip, k) ? ip[k] : undefined;
      if (!p) continue;
      if (!req.includes(k) && p.default === undefined)
        oa.required(
          `${path}.items.properties[${k}].default`,
          'this property is in x-orch-list-map-keys, so it must have a default or be a required property',
        );
      if (p.nullable === true)
        oa.forbidden(
          `${path}.items.properties[${k}].nullable`,
          'this property is in x-orch-list-map-keys, so it cannot be nullable',
        );
    }
  }
}
