// Namespace (core/v1): deletion marks it Terminating; a controller then deletes every
// namespaced object in it, and the namespace goes once it is empty.
import { arr, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import type { Registry } from '../registry.ts';
import type { RequestContext, ResourceDef } from '../types.ts';
import { clone } from '../../util/object.ts';
import { AGE_COLUMN, NAME_COLUMN } from './common.ts';

export const NAMESPACE_FINALIZER = 'orch';
/** The three namespaces that may not be deleted. */
export const PROTECTED_NAMESPACES = ['default', 'orch-system', 'orch-public'];
export const SYSTEM_NAMESPACES = [...PROTECTED_NAMESPACES, 'orch-node-lease'];

const SYSTEM: RequestContext = {
  user: { username: 'system:namespace-controller', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
};

export function namespaceDef(registry: () => Registry): ResourceDef {
  const finalizing = new Set<string>();
  const finalize = (name: string) => {
    if (finalizing.has(name)) return;
    finalizing.add(name);
    const step = async () => {
      const reg = registry();
      const nsStore = reg.byResource('', 'namespaces')!.store;
      const ns = nsStore.getStored('', name);
      if (!ns?.obj.metadata.deletionTimestamp) {
        finalizing.delete(name);
        return;
      }
      let remaining = 0;
      for (const s of reg.all()) {
        if (!s.def.namespaced) continue;
        const { items } = await s.store.list(name, {});
        for (const it of items) {
          remaining++;
          if (it.metadata.deletionTimestamp) continue;
          try {
            await s.store.delete(name, it.metadata.name!, {}, SYSTEM, s.def.versions[0]!);
          } catch {
            // gone meanwhile, or refused: retried on the next round
          }
        }
      }
      if (remaining === 0) {
        const cur = nsStore.getStored('', name);
        if (cur) {
          const next = clone(cur.obj);
          const spec = (next.spec ?? {}) as { finalizers?: string[] };
          spec.finalizers = (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
          next.spec = spec;
          try {
            await nsStore.update('', name, next, SYSTEM, 'v1', 'finalize');
          } catch {
            // retried below
          }
        }
        if (!nsStore.getStored('', name)) {
          finalizing.delete(name);
          return;
        }
      }
      setTimeout(() => void step().catch(() => finalizing.delete(name)), remaining === 0 ? 10 : 50).unref();
    };
    setImmediate(() => void step().catch(() => finalizing.delete(name)));
  };

  return {
    group: '',
    versions: ['v1'],
    kind: 'Namespace',
    listKind: 'NamespaceList',
    plural: 'namespaces',
    singular: 'namespace',
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
    strategy: {
      zeroValue: () => ({ spec: { finalizers: [NAMESPACE_FINALIZER] } }),
      nameRule: 'label',
      tracksGeneration: false,
      allowUnconditionalUpdate: true,
      fieldLabels: { 'status.phase': (o) => (o.status as { phase?: string } | undefined)?.phase },
      table: [
        NAME_COLUMN,
        {
          name: 'Status',
          type: 'string',
          description: 'The status of the namespace',
          cell: (o) => (o.status as { phase?: string })?.phase ?? '',
        },
        AGE_COLUMN,
      ],
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
      prepareForStatusUpdate(o: KObject, old: KObject) {
        const status = o.status;
        Object.assign(o, { spec: old.spec });
        o.metadata = { ...old.metadata, resourceVersion: o.metadata.resourceVersion };
        o.status = status;
      },
      gracefulDelete: (o) => ((o.spec as { finalizers?: string[] } | undefined)?.finalizers?.length ?? 0) > 0,
      prepareForDelete(o: KObject) {
        o.status = { ...((o.status as object) ?? {}), phase: 'Terminating' };
      },
      onDeleteRequested: (o) => finalize(o.metadata.name!),
      prepareForSubresource: { finalize: prepareFinalize },
    },
  };
}

/** The `finalize` subresource replaces spec.finalizers (and only that). */
export function prepareFinalize(o: KObject, old: KObject): void {
  const finalizers = (o.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
  const keep = clone(old);
  keep.spec = { ...((keep.spec as object) ?? {}), finalizers };
  Object.assign(o, keep);
}

/** Resumes finalization of namespaces left Terminating by a restart. */
export function resumeTerminating(reg: Registry): void {
  const s = reg.byResource('', 'namespaces');
  if (!s) return;
  void s.store.list('', {}).then(({ items }) => {
    for (const ns of items) if (ns.metadata.deletionTimestamp) s.def.strategy.onDeleteRequested?.(ns);
  });
}
