// The service-account controller (Kubernetes' `serviceaccount`): every namespace that is not
// terminating has a ServiceAccount named `default`, made when the namespace appears and made
// again when it is deleted; an existing one is never changed. The ServiceAccount admission
// plugin gives pods without a service account this one, and refuses pods whose account does
// not exist.
import { DEFAULT_SERVICE_ACCOUNT } from '../registry/kinds/serviceaccount.ts';
import {
  ControllerClient,
  type ControllerEnv,
  isNamespaceTerminating,
  isNotFound,
  reasonOf,
} from './client.ts';
import { inform } from './informer.ts';
import type { Controller } from './types.ts';
import { WorkQueue } from './work-queue.ts';

export function startServiceAccountController(env: ControllerEnv): Controller {
  const client = new ControllerClient(env, 'service-account-controller');
  const sync = async (ns: string): Promise<void> => {
    const n = client.get('', 'namespaces', '', ns);
    if (!n || n.metadata.deletionTimestamp) return;
    if (client.get('', 'serviceaccounts', ns, DEFAULT_SERVICE_ACCOUNT)) return;
    try {
      await client.create('', 'serviceaccounts', ns, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: DEFAULT_SERVICE_ACCOUNT },
      });
    } catch (e) {
      // made meanwhile, or the namespace went or is going: nothing to do
      if (reasonOf(e) === 'AlreadyExists' || isNotFound(e) || isNamespaceTerminating(e)) return;
      throw e;
    }
  };
  const queue = new WorkQueue('serviceaccount controller', sync);
  const namespaces = inform(env.registry, '', 'namespaces', (ev) => {
    if (ev.type !== 'DELETED') queue.add(ev.obj.metadata.name!);
  });
  const accounts = inform(env.registry, '', 'serviceaccounts', (ev) => {
    if (ev.type === 'DELETED' && ev.obj.metadata.name === DEFAULT_SERVICE_ACCOUNT)
      queue.add(ev.obj.metadata.namespace!);
  });
  // the namespaces stored at start have theirs before the server takes requests
  const ready = Promise.all(
    [...(namespaces?.cache.values() ?? [])].map((n) => sync(n.metadata.name!).catch(() => undefined)),
  ).then(() => undefined);
  return {
    ready,
    stop() {
      queue.stop();
      namespaces?.stop();
      accounts?.stop();
    },
  };
}
