// What the expressions of admission configuration see alike, webhook match conditions and
// validating admission policies (Kubernetes 1.28): the review request's schema (`request`,
// without object and oldObject; options dynamic), and the declarations of a dynamic object
// and of `authorizer`. Each environment declares the request under its own type name.
import { AUTHORIZER_TYPE } from '../../cel/library-authorizer.ts';
import { MAX_REQUEST_SIZE_BYTES } from '../../cel/size.ts';
import type { DeclType } from '../../cel/types.ts';
import { arr, mapOf, obj, str } from '../../schema/dsl.ts';
import type { Schema } from '../../schema/types.ts';

/** A dynamic value no larger than a request (`object`, `oldObject`, untyped `params`). */
export const DYN_DECL: DeclType = {
  kind: 'dyn',
  name: 'dyn',
  maxSize: MAX_REQUEST_SIZE_BYTES,
  minSize: 1,
  schemaType: '',
};

/** `authorizer`. */
export const AUTHORIZER_DECL: DeclType = {
  kind: 'dyn',
  name: AUTHORIZER_TYPE,
  maxSize: 1,
  minSize: 1,
  schemaType: '',
};

const groupVersionKind = obj({ group: str(), version: str(), kind: str() });
const groupVersionResource = obj({ group: str(), version: str(), resource: str() });

/** The review request as expressions see it: without object and oldObject; options dynamic. */
export const ADMISSION_REQUEST_SCHEMA: Schema = obj({
  uid: str(),
  kind: groupVersionKind,
  resource: groupVersionResource,
  subResource: str(),
  requestKind: groupVersionKind,
  requestResource: groupVersionResource,
  requestSubResource: str(),
  name: str(),
  namespace: str(),
  operation: str(),
  userInfo: obj({ username: str(), uid: str(), groups: arr(str()), extra: mapOf(arr(str())) }),
  dryRun: { type: 'boolean' },
  options: {},
});
