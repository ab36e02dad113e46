// The API server's own Service (Kubernetes' kubernetes-service controller, the
// `bootstrap-controller` post-start hook): `default/orch` (`default/kubernetes` in Kubernetes'
// words, the service `orch.default.svc` names) with the first cluster IP of the service range
// and one port, `https` 443 to the port the server listens on, labelled as the API server's.
// It is made once the server listens and made again when deleted. A change to it stays: 1.28
// only creates it when missing (its reconciliation of ports and type has not run since 1.17,
// pkg/controlplane/controller/kubernetesservice; a real v1.28.0 left a changed targetPort
// alone for 25 s, past two of its 10 s intervals), so servers on one store that listen on
// different ports do not write it back and forth. Checked against a 1.28 kube-apiserver: labels
// `component: apiserver` and `provider`, `sessionAffinity: None`, type ClusterIP. Its Endpoints
// are not written: bound to a loopback address (as the reference is by default), a 1.28 server
// writes none either (a loopback address is not a valid endpoint).
import { unlessExists } from '../errors/status.ts';
import { firstServiceIp } from '../registry/kinds/service-allocators.ts';
import type { Registry } from '../registry/registry.ts';
import type { RequestContext } from '../registry/types.ts';
import type { KObject } from '../storage/types.ts';
import { DIALECT } from '../util/dialect.ts';
import { inform } from './informer.ts';
import type { Controller } from './types.ts';

/** The Service's name: the dialect's own (`orch`, `kubernetes`). */
export const APISERVER_SERVICE = DIALECT === 'kubernetes' ? 'kubernetes' : 'orch';
const NAMESPACE = 'default';

const system: RequestContext = {
  user: { username: 'system:apiserver', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
  fieldManager: 'orch-apiserver',
};

/** Keeps the API server's Service for a server listening on `port`. */
export function startApiServerService(registry: Registry, port: number): Controller {
  const services = registry.byResource('', 'services')?.store;
  if (!services) return { ready: Promise.resolve(), stop() {} };
  const ports = [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }];
  let stopped = false;
  const ensure = async (): Promise<void> => {
    if (stopped) return;
    if (services.getStored(NAMESPACE, APISERVER_SERVICE)) return;
    await unlessExists(services.create(NAMESPACE, service(ports), system, 'v1'));
  };
  // another server on the same store may create it at the same moment: one of them wins
  const informer = inform(registry, '', 'services', (ev) => {
    if (
      ev.type === 'DELETED' &&
      ev.obj.metadata.namespace === NAMESPACE &&
      ev.obj.metadata.name === APISERVER_SERVICE
    )
      void ensure().catch(() => undefined);
  });
  return {
    ready: ensure().catch(() => undefined),
    stop() {
      stopped = true;
      informer?.stop();
    },
  };
}

function service(ports: unknown[]): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: APISERVER_SERVICE,
      namespace: NAMESPACE,
      labels: { component: 'apiserver', provider: DIALECT === 'kubernetes' ? 'kubernetes' : 'orch' },
    },
    spec: {
      ports,
      clusterIP: firstServiceIp(),
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
  };
}
