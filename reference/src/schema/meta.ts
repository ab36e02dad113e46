// Schemas shared by every kind: ObjectMeta and the envelope.
import { arr, bool, freeform, int, mapOf, obj, setOf, str, time } from './dsl.ts';
import type { Schema } from './types.ts';

export const ownerReference: Schema = obj(
  {
    apiVersion: str(),
    kind: str(),
    name: str(),
    uid: str(),
    controller: bool(),
    blockOwnerDeletion: bool(),
  },
  { required: ['apiVersion', 'kind', 'name', 'uid'] },
);

export const managedFieldsEntry: Schema = obj({
  manager: str(),
  operation: str(),
  apiVersion: str(),
  time: time(),
  fieldsType: str(),
  fieldsV1: freeform(),
  subresource: str(),
});

export const objectMeta: Schema = obj({
  name: str(),
  generateName: str(),
  namespace: str(),
  selfLink: str(),
  uid: str(),
  resourceVersion: str(),
  generation: int(),
  creationTimestamp: time({ nullable: true }),
  deletionTimestamp: time({ nullable: true }),
  deletionGracePeriodSeconds: int(),
  labels: mapOf(str()),
  annotations: mapOf(str()),
  ownerReferences: {
    ...arr(ownerReference),
    'x-orch-list-type': 'map',
    'x-orch-list-map-keys': ['uid'],
    'x-orch-patch-strategy': 'merge',
    'x-orch-patch-merge-key': 'uid',
  },
  finalizers: setOf(str(), { 'x-orch-patch-strategy': 'merge' }),
  managedFields: arr(managedFieldsEntry, { 'x-orch-list-type': 'atomic' }),
});

/** The schema of a whole object of a kind: envelope, metadata and the kind's own fields. */
export function objectSchema(fields: Record<string, Schema>, extra: Schema = {}): Schema {
  return obj({ apiVersion: str(), kind: str(), metadata: objectMeta, ...fields }, extra);
}
