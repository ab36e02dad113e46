// ServiceAccount (core/v1): an identity for workloads; `secrets` merge by name. The `token`
// subresource (TokenRequest) is served by the handler the server wires for it.
import { arr, bool, keyedList, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { objectReferenceFields } from './common.ts';
import { defineKind, printed } from './define.ts';

/** The account every namespace has (made by the service-account controller); pods without one get it. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

const schema = objectSchema({
  secrets: keyedList(obj(objectReferenceFields), ['name']),
  imagePullSecrets: arr(obj({ name: str() })),
  automountServiceAccountToken: bool(),
});

/** Secret references keep only their name (Kubernetes' cleanSecretReferences). */
function prepare(o: KObject): void {
  if (Array.isArray(o.secrets))
    o.secrets = (o.secrets as { name?: string }[]).map((r) =>
      r && typeof r === 'object' && r.name !== undefined ? { name: r.name } : {},
    );
}

export const serviceAccountDef = defineKind({
  group: '',
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  subresources: ['token'],
  protobuf: true,
  schema,
  returnDeletedObject: true,
  table: printed('serviceAccount', { Secrets: (o) => ((o.secrets as unknown[] | undefined) ?? []).length }),
  prepareForCreate: (o) => prepare(o),
  prepareForUpdate: (o) => prepare(o),
});
