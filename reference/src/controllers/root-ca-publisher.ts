// The root-CA publisher (Kubernetes' `root-ca-cert-publisher`): every namespace holds a
// ConfigMap `orch-root-ca.crt` whose `ca.crt` is the CA bundle that verifies the server's
// serving certificate (empty when the server serves plain HTTP), annotated with a description.
// It is made when a namespace appears (or turns active), made again when deleted, and set back
// when its data or the description changes: the data becomes exactly `ca.crt` (other keys go),
// while labels, other annotations and binaryData are left as they are. A namespace that is
// missing or terminating gets none (the create is not retried).
import { ROOT_CA_CONFIG_MAP } from '../registry/kinds/configmap.ts';
import type { KObject } from '../storage/types.ts';
import { deepEqual } from '../util/object.ts';
import { ControllerClient, type ControllerEnv, isNamespaceTerminating, isNotFound } from './client.ts';
import { follow, inform } from './informer.ts';
import type { Controller } from './types.ts';
import { WorkQueue } from './work-queue.ts';

export const ROOT_CA_KEY = 'ca.crt';
export const DESCRIPTION_ANNOTATION = 'orch.io/description';
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the orch-apiserver when using internal endpoints such as the internal service IP or orch.default.svc. ' +
  'No other usage is guaranteed across distributions of orch clusters.';

export function startRootCaPublisher(env: ControllerEnv, caBundle: string): Controller {
  const client = new ControllerClient(env, 'root-ca-cert-publisher');
  const data = { [ROOT_CA_KEY]: caBundle };
  const sync = async (ns: string): Promise<void> => {
    const cm = configMaps?.get(ns, ROOT_CA_CONFIG_MAP);
    if (!cm) {
      try {
        await client.create('', 'configmaps', ns, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: ROOT_CA_CONFIG_MAP,
            annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION },
          },
          data,
        });
      } catch (e) {
        // not retried when the namespace is gone or going (Kubernetes does not either)
        if (isNotFound(e) || isNamespaceTerminating(e)) return;
        throw e;
      }
      return;
    }
    const annotations = cm.metadata.annotations ?? {};
    if (deepEqual(cm.data ?? {}, data) && annotations[DESCRIPTION_ANNOTATION]) return;
    const next: KObject = structuredClone(cm);
    next.data = { ...data };
    next.metadata.annotations = { ...annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION };
    await client.update('', 'configmaps', next);
  };
  const queue = new WorkQueue('root-ca-cert-publisher', sync);
  // a change or deletion of the config map (not its creation) has it checked
  const configMaps = follow(env.registry, '', 'configmaps', (ev) => {
    if (ev.obj.metadata.name === ROOT_CA_CONFIG_MAP && ev.type !== 'ADDED')
      queue.add(ev.obj.metadata.namespace!);
  });
  const namespaces = inform(env.registry, '', 'namespaces', (ev) => {
    const phase = (ev.obj.status as { phase?: string } | undefined)?.phase;
    // a namespace appearing; an update only while it is active
    if (ev.type === 'ADDED' || (ev.type === 'MODIFIED' && phase === 'Active'))
      queue.add(ev.obj.metadata.name!);
  });
  return {
    stop() {
      queue.stop();
      configMaps?.stop();
      namespaces?.stop();
    },
  };
}
