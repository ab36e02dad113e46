// The gnostic (Protobuf) form of the Swagger 2.0 document (its media types: media-types.ts).
// The route loads this module (and protobufjs) at the first request for that form.
import protobuf from 'protobufjs';
import type { Json } from './names.ts';

// The messages of gnostic's OpenAPI v2 model (package openapi.v2) this encoder fills, with
// their field numbers; the rest of the model is never produced.
const GNOSTIC_PROTO = `
syntax = "proto3";
package openapi.v2;
message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message Any { string yaml = 2; }
message ApiKeySecurity { string type = 1; string name = 2; string in = 3; string description = 4; }
message BodyParameter { string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; }
message Definitions { repeated NamedSchema additional_properties = 1; }
message Document {
  string swagger = 1; Info info = 2; Paths paths = 8; Definitions definitions = 9;
  repeated SecurityRequirement security = 12; SecurityDefinitions security_definitions = 13;
}
message Info { string title = 1; string version = 2; string description = 3; }
message ItemsItem { repeated Schema schema = 1; }
message NamedAny { string name = 1; Any value = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message NamedSchema { string name = 1; Schema value = 2; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message NonBodyParameter { oneof oneof { QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; } }
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5;
  repeated string produces = 6; repeated string consumes = 7; repeated ParametersItem parameters = 8;
  Responses responses = 9; bool deprecated = 11; repeated NamedAny vendor_extension = 13;
}
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message ParametersItem { oneof oneof { Parameter parameter = 1; } }
message PathItem {
  Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5;
  Operation options = 6; Operation head = 7; Operation patch = 8;
}
message PathParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; bool unique_items = 19; }
message Paths { repeated NamedPathItem path = 2; }
message Properties { repeated NamedSchema additional_properties = 1; }
message QueryParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 6; bool unique_items = 20; }
message Response { string description = 1; SchemaItem schema = 2; }
message ResponseValue { oneof oneof { Response response = 1; } }
message Responses { repeated NamedResponseValue response_code = 1; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5;
  double multiple_of = 6; double maximum = 7; bool exclusive_maximum = 8; double minimum = 9; bool exclusive_minimum = 10;
  int64 max_length = 11; int64 min_length = 12; string pattern = 13; int64 max_items = 14; int64 min_items = 15;
  bool unique_items = 16; int64 max_properties = 17; int64 min_properties = 18; repeated string required = 19;
  repeated Any enum = 20; AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23;
  repeated Schema all_of = 24; Properties properties = 25; bool read_only = 27; Any example = 30;
  repeated NamedAny vendor_extension = 31;
}
message SchemaItem { oneof oneof { Schema schema = 1; } }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message SecurityDefinitionsItem { oneof oneof { ApiKeySecurity api_key_security = 2; } }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message StringArray { repeated string value = 1; }
message TypeItem { repeated string value = 1; }
`;

let documentType: protobuf.Type | undefined;
function gnosticDocument(): protobuf.Type {
  documentType ??= protobuf.parse(GNOSTIC_PROTO, { keepCase: true }).root.lookupType('openapi.v2.Document');
  return documentType;
}

const anyOf = (v: unknown): Json => ({ yaml: JSON.stringify(v) });
const named = <T>(o: Record<string, T>, f: (v: T) => unknown): Json[] =>
  Object.entries(o).map(([name, v]) => ({ name, value: f(v) }));

const SCHEMA_SCALARS: Record<string, string> = {
  format: 'format',
  title: 'title',
  description: 'description',
  multipleOf: 'multiple_of',
  maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum',
  minimum: 'minimum',
  exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length',
  minLength: 'min_length',
  pattern: 'pattern',
  maxItems: 'max_items',
  minItems: 'min_items',
  uniqueItems: 'unique_items',
  maxProperties: 'max_properties',
  minProperties: 'min_properties',
  required: 'required',
  readOnly: 'read_only',
};

function protoSchema(s: Json): Json {
  const out: Json = {};
  const ext: Json[] = [];
  for (const [k, v] of Object.entries(s)) {
    if (k === '$ref') out._ref = v;
    else if (k === 'type') out.type = { value: Array.isArray(v) ? v : [v] };
    else if (k === 'properties')
      out.properties = { additional_properties: named(v as Record<string, Json>, protoSchema) };
    else if (k === 'items') out.items = { schema: [protoSchema(v as Json)] };
    else if (k === 'additionalProperties')
      out.additional_properties =
        typeof v === 'boolean' ? { boolean: v } : { schema: protoSchema(v as Json) };
    else if (k === 'allOf') out.all_of = (v as Json[]).map(protoSchema);
    else if (k === 'default' || k === 'example') out[k] = anyOf(v);
    else if (k === 'enum') out.enum = (v as unknown[]).map(anyOf);
    else if (k.startsWith('x-')) ext.push({ name: k, value: anyOf(v) });
    else if (SCHEMA_SCALARS[k]) out[SCHEMA_SCALARS[k]!] = v;
  }
  if (ext.length) out.vendor_extension = ext;
  return out;
}

function protoOperation(op: Json): Json {
  const out: Json = {};
  const ext: Json[] = [];
  for (const [k, v] of Object.entries(op)) {
    if (k === 'operationId') out.operation_id = v;
    else if (k === 'parameters')
      out.parameters = (v as Json[]).map((p) => {
        if (p.in === 'body')
          return {
            parameter: {
              body_parameter: {
                description: p.description,
                name: p.name,
                in: p.in,
                required: p.required,
                schema: protoSchema(p.schema as Json),
              },
            },
          };
        const sub = {
          required: p.required ?? false,
          in: p.in,
          description: p.description,
          name: p.name,
          type: p.type,
          unique_items: p.uniqueItems ?? false,
        };
        return {
          parameter: {
            non_body_parameter:
              p.in === 'path' ? { path_parameter_sub_schema: sub } : { query_parameter_sub_schema: sub },
          },
        };
      });
    else if (k === 'responses')
      out.responses = {
        response_code: named(v as Record<string, Json>, (r) => ({
          response: {
            description: r.description,
            ...(r.schema ? { schema: { schema: protoSchema(r.schema as Json) } } : {}),
          },
        })),
      };
    else if (k.startsWith('x-')) ext.push({ name: k, value: anyOf(v) });
    else out[k] = v; // tags, summary, description, produces, consumes, deprecated
  }
  if (ext.length) out.vendor_extension = ext;
  return out;
}

/** The Swagger 2.0 document in gnostic's Protobuf form (what kubectl's openapi client decodes). */
export function encodeOpenApiV2Protobuf(doc: Json): Buffer {
  const sec = doc.securityDefinitions as Record<string, Json> | undefined;
  const msg: Json = {
    swagger: doc.swagger,
    info: doc.info,
    paths: {
      path: named(doc.paths as Record<string, Record<string, Json>>, (item) =>
        Object.fromEntries(Object.entries(item).map(([m, op]) => [m, protoOperation(op)])),
      ),
    },
    definitions: { additional_properties: named(doc.definitions as Record<string, Json>, protoSchema) },
    security: ((doc.security as Record<string, string[]>[] | undefined) ?? []).map((r) => ({
      additional_properties: named(r, (v) => ({ value: v })),
    })),
    security_definitions: sec
      ? { additional_properties: named(sec, (d) => ({ api_key_security: d })) }
      : undefined,
  };
  const T = gnosticDocument();
  const problem = T.verify(msg);
  if (problem) throw new Error(`openapi v2 protobuf: ${problem}`);
  return Buffer.from(T.encode(T.fromObject(msg)).finish());
}
