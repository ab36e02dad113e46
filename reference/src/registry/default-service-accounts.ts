// The service-account controller (Kubernetes' `serviceaccount` controller): every namespace
// that is not terminating has a ServiceAccount named `default`, made when the namespace
// appears and made again when it is deleted. The ServiceAccount admission plugin gives pods
// without a service account this one, and refuses pods whose account does not exist.
import type { RequestContext } from './types.ts';
import type { Registry } from './registry.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

const SYSTEM: RequestContext = {
  user: {
    username: 'system:serviceaccount:orch-system:service-account-controller',
    groups: ['system:masters'],
  },
  warnings: [],
  dryRun: false,
};

export interface DefaultServiceAccounts {
  /** Resolves once the namespaces stored at start have theirs. */
  ready: Promise<void>;
  stop(): void;
}

export function startDefaultServiceAccounts(registry: Registry): DefaultServiceAccounts {
  const namespaces = registry.byResource('', 'namespaces')!.store;
  const accounts = registry.byResource('', 'serviceaccounts')!.store;
  let stopped = false;
  const ensure = async (ns: string): Promise<void> => {
    if (stopped) return;
    const n = namespaces.getStored('', ns);
    if (!n || n.obj.metadata.deletionTimestamp) return;
    if (accounts.getStored(ns, DEFAULT_SERVICE_ACCOUNT)) return;
    await accounts
      .create(
        ns,
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT } },
        SYSTEM,
        'v1',
      )
      .then(
        () => undefined,
        () => undefined, // made meanwhile, or the namespace went: nothing to do
      );
  };
  const storage = registry.storage;
  const rv = storage.revision();
  const ready = Promise.all(
    storage.list(namespaces.bucket, `${namespaces.bucket}/`).map((s) => ensure(s.obj.metadata.name!)),
  ).then(() => undefined);
  const offNs = storage.watch(namespaces.bucket, rv, (ev) => {
    if (ev.type !== 'DELETED' && ev.obj.metadata.name) void ensure(ev.obj.metadata.name);
  });
  const offSa = storage.watch(accounts.bucket, rv, (ev) => {
    if (
      ev.type === 'DELETED' &&
      ev.obj.metadata.name === DEFAULT_SERVICE_ACCOUNT &&
      ev.obj.metadata.namespace
    )
      setImmediate(() => void ensure(ev.obj.metadata.namespace!));
  });
  return {
    ready,
    stop() {
      stopped = true;
      offNs();
      offSa();
    },
  };
}
