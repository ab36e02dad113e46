// A JSON schema (draft 2020-12) of the node agent configuration kinds, generated from the same
// field definitions that loading and validation read: types, defaults, ranges, allowed values,
// required fields, and no fields beyond the known ones. Rules between fields are not
// expressible here and are only in the description.
import { CREDENTIAL_PROVIDER_FIELDS, CREDENTIAL_PROVIDER_KIND } from './credential-provider.ts';
import { API_VERSION, EVICTION_SIGNALS, type FieldDef, FIELDS, KIND } from './fields.ts';
import { NODE_CONFIG_SOURCE_FIELDS, NODE_CONFIG_SOURCE_KIND } from './node-config-source.ts';

type Schema = Record<string, unknown>;

const DURATION = '^[-+]?(0|((\\d+\\.?\\d*|\\.\\d+)(ns|us|µs|μs|ms|s|m|h))+)$';

function fieldSchema(def: FieldDef): Schema {
  const s: Schema = { description: def.beyond ? `${def.row} (${def.beyond})` : def.row };
  const scalar = (): Schema => {
    const t: Schema = {};
    if (def.min !== undefined) t.minimum = def.min;
    if (def.max !== undefined) t.maximum = def.max;
    if (def.above !== undefined) t.exclusiveMinimum = def.above;
    if (def.values) t.enum = [...def.values];
    return t;
  };
  switch (def.kind) {
    case 'bool':
      return { ...s, type: 'boolean' };
    case 'string':
      return {
        ...s,
        type: 'string',
        ...scalar(),
        ...(def.format === 'cpuList' ? { pattern: '^(\\d+(-\\d+)?(,\\d+(-\\d+)?)*)?$' } : {}),
      };
    case 'duration':
      return { ...s, type: 'string', pattern: DURATION };
    case 'int32':
      return { ...s, type: 'integer', minimum: -(2 ** 31), maximum: 2 ** 31 - 1, ...scalar() };
    case 'int64':
      return { ...s, type: 'integer', ...scalar() };
    case 'float64':
      return { ...s, type: 'number', ...scalar() };
    case 'stringList':
      return {
        ...s,
        type: 'array',
        items: { type: 'string', ...(def.values ? { enum: [...def.values] } : {}) },
      };
    case 'stringMap':
    case 'boolMap':
    case 'stringListMap':
    case 'resourceList': {
      const value: Schema =
        def.kind === 'boolMap'
          ? { type: 'boolean' }
          : def.kind === 'stringListMap'
            ? { type: 'array', items: { type: 'string' } }
            : def.kind === 'resourceList'
              ? { type: ['string', 'number'] }
              : { type: 'string' };
      const keys = def.signalKeys ? [...EVICTION_SIGNALS] : def.keys ? [...def.keys] : undefined;
      return {
        ...s,
        type: 'object',
        ...(keys ? { propertyNames: { enum: keys } } : {}),
        additionalProperties: value,
      };
    }
    case 'object':
      return { ...s, ...objectSchema(def.fields ?? []) };
    case 'objectList':
      return { ...s, type: 'array', items: objectSchema(def.fields ?? []) };
  }
}

function objectSchema(defs: readonly FieldDef[], top?: string): Schema {
  const properties: Record<string, Schema> = {};
  if (top) {
    properties.apiVersion = { const: API_VERSION };
    properties.kind = { const: top };
  }
  for (const d of defs) {
    const f = fieldSchema(d);
    if (d.default !== undefined) f.default = d.default;
    properties[d.name] = f;
  }
  const required = [
    ...(top ? ['apiVersion', 'kind'] : []),
    ...defs.filter((d) => d.required).map((d) => d.name),
  ];
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

export function nodeConfigJsonSchema(): Schema {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `https://orch.io/schemas/${API_VERSION}`,
    title: `${API_VERSION} configuration files`,
    description:
      'Rules between fields (imageGCHighThresholdPercent above imageGCLowThresholdPercent, podsPerCore not above maxPods, systemCgroups needs cgroupRoot, maxParallelImagePulls only with serializeImagePulls false, the shutdown grace periods, enableSystemLogQuery needs enableSystemLogHandler) are checked by `orch-conformance node-config validate`, not by this schema.',
    oneOf: [
      objectSchema(FIELDS, KIND),
      objectSchema(CREDENTIAL_PROVIDER_FIELDS, CREDENTIAL_PROVIDER_KIND),
      objectSchema(NODE_CONFIG_SOURCE_FIELDS, NODE_CONFIG_SOURCE_KIND),
    ],
  };
}
