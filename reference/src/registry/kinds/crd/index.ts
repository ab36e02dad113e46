// The CustomResourceDefinition kind and its controller: what the rest of the server imports from this folder.
//
// CustomResourceDefinition (apiextensions.orch.io/v1, cluster-scoped, `status` subresource).
// Validation follows Kubernetes (names, scope, versions, structural schemas, subresources,
// printer columns). A controller watches the definitions: it accepts names (NamesAccepted,
// conflicts with other definitions of the group), serves the custom resources and marks the
// definition Established; on deletion (finalizer `customresourcecleanup.apiextensions.orch.io`)
// it deletes every custom resource, stops serving and removes the finalizer.

export { CrdController, startCrdController } from './controller.ts';
export { crdDef } from './kind.ts';
export {
  CLEANUP_FINALIZER,
  CRD_GROUP,
  CRD_KIND,
  CRD_PLURAL,
  findCondition,
  isConditionTrue,
} from './shared.ts';
export { validateCrd } from './validation.ts';
