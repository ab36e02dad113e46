// The checks a server contributes, under the names Kubernetes 1.28 gives them and in its order
// (doc3 "Health"; the names are not shown there): `ping`; `log`; `etcd`, the store (the
// write-ahead log still the file a restart reads, its directory taking a durable write, the log
// not failed); on /readyz only `etcd-readiness` and `informer-sync`; the post-start hooks of
// the parts this server has; and on /readyz only `shutdown`, failing from the moment a
// graceful shutdown starts.
import type { Storage } from '../storage/types.ts';
import type { HealthChecks } from './checks.ts';

export interface ServerParts {
  storage: Storage;
  /** The custom-definition controller has served every stored definition. */
  crdSynced: () => boolean;
  /** The RBAC mode is on (its default roles are installed at start). */
  rbac: boolean;
  shuttingDown: () => boolean;
  /** Why the APIServices made at start are not all available yet (`autoregister-completion`), or undefined. */
  apiServicesPending?: () => string | undefined;
  /** Why the API server's own Service is not kept yet (`bootstrap-controller`: it starts once the server listens), or undefined. */
  apiServerService: () => string | undefined;
}

const ok = () => undefined;

export function addHealthChecks(health: HealthChecks, p: ServerParts): void {
  const notSynced = () => (p.crdSynced() ? undefined : 'custom resource definitions not yet synced');
  health.add({ name: 'ping', check: ok });
  health.add({
    name: 'log',
    check: () => (process.stderr.writable ? undefined : 'the server log (standard error) is closed'),
  });
  // both probe the store now, as Kubernetes' etcd and etcd-readiness checks do
  const store = async () => ((await p.storage.probe?.()) ?? p.storage.failure())?.message;
  health.add({ name: 'etcd', check: store });
  health.add({ name: 'etcd-readiness', livez: false, check: store });
  health.add({ name: 'informer-sync', livez: false, check: notSynced });
  // hooks that run before the server listens have finished by the time anyone can ask
  const hook = (name: string, check: () => string | undefined = ok) =>
    health.add({ name: `poststarthook/${name}`, postStartHook: true, check });
  // the admission plugins are built and initialized before the server listens
  hook('start-kube-apiserver-admission-initializer');
  hook('generic-apiserver-start-informers');
  // requests are classified by FlowSchema as soon as the server listens (flowcontrol/)
  hook('priority-and-fairness-config-consumer');
  hook('priority-and-fairness-filter');
  // the stored objects are counted for /metrics at each scrape
  hook('storage-object-count-tracker-hook');
  hook('start-apiextensions-informers');
  hook('start-apiextensions-controllers');
  hook('crd-informer-synced', notSynced);
  // the cluster IP and node port pools are rebuilt from the stored Services before the first allocation
  hook('start-service-ip-repair-controllers');
  if (p.rbac) hook('rbac/bootstrap-roles');
  hook('scheduling/bootstrap-system-priority-classes');
  // the priority-and-fairness configuration objects are made before the server listens
  hook('priority-and-fairness-config-producer');
  hook('start-system-namespaces-controller');
  hook('bootstrap-controller', p.apiServerService);
  hook('start-cluster-authentication-info-controller');
  if (p.apiServicesPending) {
    hook('start-kube-aggregator-informers');
    hook('apiservice-registration-controller');
    hook('apiservice-status-available-controller');
    hook('kube-apiserver-autoregistration');
    health.add({ name: 'autoregister-completion', check: p.apiServicesPending });
    // the OpenAPI documents cover every group version the APIServices name (all served here)
    hook('apiservice-openapi-controller');
    hook('apiservice-openapiv3-controller');
  }
  health.add({
    name: 'shutdown',
    livez: false,
    check: () => (p.shuttingDown() ? 'the server is shutting down' : undefined),
  });
}
