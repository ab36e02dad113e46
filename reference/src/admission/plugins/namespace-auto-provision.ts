// NamespaceAutoProvision (doc3 plugin table: creates a missing namespace): as Kubernetes 1.28,
// the creation of a namespaced object in a namespace that does not exist first creates that
// namespace (as the server, so the user needs no right to create namespaces); a dry run
// creates nothing (and is then refused as any write to a missing namespace is).
import { StatusError } from '../../errors/status.ts';
import type { Registry } from '../../registry/registry.ts';
import type { RequestContext } from '../../registry/types.ts';
import type { AdmissionPlugin } from '../types.ts';
import { forbidden } from './util.ts';

const SERVER: RequestContext = {
  user: { username: 'system:apiserver', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
};

export const namespaceAutoProvision = (env: { registry: Registry }): AdmissionPlugin => ({
  name: 'NamespaceAutoProvision',
  handles: (a) =>
    a.operation === 'CREATE' &&
    !!a.namespace &&
    !a.dryRun &&
    !(a.kind.group === '' && a.kind.kind === 'Namespace'),
  async mutate(a) {
    const store = env.registry.byResource('', 'namespaces')?.store;
    if (!store || store.getStored('', a.namespace)) return;
    try {
      await store.create(
        '',
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: a.namespace } },
        SERVER,
        'v1',
      );
    } catch (e) {
      if (e instanceof StatusError && e.reason === 'AlreadyExists') return;
      throw forbidden(a, e instanceof Error ? e.message : String(e));
    }
  },
});
