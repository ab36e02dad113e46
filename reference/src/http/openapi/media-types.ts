// The media types of the gnostic (Protobuf) form of the Swagger 2.0 document.

/** What clients ask for; `@` is not a valid media type character, so replies use the dotted form. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** The form replies carry (Go's mime parser rejects the `@` one), also accepted in `Accept`. */
export const OPENAPI_V2_PROTOBUF_REPLY = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
