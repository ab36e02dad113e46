// Namespace (core/v1): deletion marks it Terminating; the namespace controller
// (controllers/namespace.ts) then deletes every namespaced object in it and removes the `orch`
// finalizer once it is empty, and the namespace goes.
import { arr, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { DIALECT } from '../../util/dialect.ts';
import { clone } from '../../util/object.ts';
import type { ResourceDef } from '../types.ts';
import { defineKind, printed } from './define.ts';

/** The namespace finalizer is the dialect's own name (`kubernetes` in Kubernetes' words). */
export const NAMESPACE_FINALIZER = DIALECT === 'kubernetes' ? 'kubernetes' : 'orch';
/** The three namespaces that may not be deleted. */
export const PROTECTED_NAMESPACES = ['default', 'orch-system', 'orch-public'];
export const SYSTEM_NAMESPACES = [...PROTECTED_NAMESPACES, 'orch-node-lease'];

export function namespaceDef(): ResourceDef {
  return defineKind({
    group: '',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['finalize', 'status'],
    protobuf: true,
    schema: objectSchema({
      spec: obj({ finalizers: arr(str()) }),
      status: obj({
        phase: str(),
        conditions: arr(
          obj({ type: str(), status: str(), lastTransitionTime: str(), reason: str(), message: str() }),
        ),
      }),
    }),
    zeroValue: () => ({ spec: { finalizers: [NAMESPACE_FINALIZER] } }),
    nameRule: 'label',
    fieldLabels: { 'status.phase': (o) => (o.status as { phase?: string } | undefined)?.phase },
    table: printed('namespace', { Status: 'status.phase' }),
    prepareForCreate(o: KObject) {
      o.spec = { finalizers: [NAMESPACE_FINALIZER] };
      o.status = { phase: 'Active' };
      o.metadata.labels = { ...(o.metadata.labels ?? {}), 'orch.io/metadata.name': o.metadata.name ?? '' };
    },
    prepareForUpdate(o: KObject, old: KObject) {
      o.spec = old.spec;
      o.status = old.status;
      o.metadata.labels = { ...(o.metadata.labels ?? {}), 'orch.io/metadata.name': o.metadata.name ?? '' };
    },
    // through /status only spec stays as stored: metadata changes (labels, annotations) are
    // kept, as they always were for this kind; the name label is ensured as on any update
    prepareForStatusUpdate(o: KObject, old: KObject) {
      o.spec = old.spec;
      o.metadata.labels = { ...(o.metadata.labels ?? {}), 'orch.io/metadata.name': o.metadata.name ?? '' };
    },
    gracefulDelete: (o) => ((o.spec as { finalizers?: string[] } | undefined)?.finalizers?.length ?? 0) > 0,
    prepareForDelete(o: KObject) {
      o.status = { ...((o.status as object) ?? {}), phase: 'Terminating' };
    },
    prepareForSubresource: { finalize: prepareFinalize },
    normalize: false,
  });
}

/** The `finalize` subresource replaces spec.finalizers (and only that). */
export function prepareFinalize(o: KObject, old: KObject): void {
  const finalizers = (o.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
  const keep = clone(old);
  keep.spec = { ...((keep.spec as object) ?? {}), finalizers };
  Object.assign(o, keep);
}
