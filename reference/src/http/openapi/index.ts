// The OpenAPI documents: what the rest of the server imports from this folder.
//
// The OpenAPI documents: `/openapi/v2` (one Swagger 2.0 document, as JSON or in the
// gnostic Protobuf form clients ask for) and `/openapi/v3` (an index of one OpenAPI 3.0
// document per group version, served at content-addressed URLs). Both are generated from
// the registry: every served resource's paths, operations, parameters and the structural
// schema of its kind, so they change when custom resources come and go.
//
// Extensions use the orch names (`x-orch-group-version-kind`, `x-orch-action`,
// `x-orch-list-type`, ...), as the spec renames them. Kubernetes clients that look for the
// `x-kubernetes-` names find no kind in these documents: kubectl then skips its client-side
// schema check (the server validates, `fieldValidation`) and computes strategic merge
// patches from its compiled-in types; `kubectl explain` finds no schema.

export { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_REPLY } from './media-types.ts';
export { definitionPrefix } from './names.ts';
export { openapiV2, openapiV3Doc } from './render.ts';
export { type OpenApiOptions, openapiRoute } from './route.ts';
