// The controller manager: starts the controllers `--controllers` selects (Kubernetes' default
// set `*` unless told otherwise) and stops them all at shutdown.

import { startBootstrapSigner } from './bootstrap-signer.ts';
import { controllerEnabled } from './catalog.ts';
import type { ControllerEnv } from './client.ts';
import { startDeploymentController } from './deployment.ts';
import { startGarbageCollector } from './garbage-collector.ts';
import { leaderElected } from './leader-election.ts';
import { startNamespaceController } from './namespace.ts';
import { startReplicaSetController } from './replicaset.ts';
import { startResourceQuotaController } from './resource-quota.ts';
import { startRootCaPublisher } from './root-ca-publisher.ts';
import { startServiceAccountController } from './service-account.ts';
import { startTokenCleaner } from './token-cleaner.ts';
import type { Controller } from './types.ts';

export interface ManagerOptions {
  /** `--controllers` (default `*`). */
  controllers?: readonly string[];
  /** The CA bundle (PEM) that verifies the server's serving certificate; '' when it serves plain HTTP. */
  caBundle: string;
  /** The store is shared with other servers: only the one holding the Lease runs the controllers. */
  leaderElect?: boolean;
  /** The namespace controller's wait after a deletion (Kubernetes' 5 s when absent). */
  namespaceDeletionGraceMs?: number;
}

export function startControllers(env: ControllerEnv, o: ManagerOptions): Controller {
  // a server that waits to lead does not wait for the controllers to start
  if (o.leaderElect) return leaderElected(env, () => startAll(env, o));
  return startAll(env, o);
}

function startAll(env: ControllerEnv, o: ManagerOptions): Controller {
  const on = (name: string) => controllerEnabled(o.controllers, name);
  const started: Controller[] = [];
  const start = (name: string, f: () => Controller) => {
    if (on(name)) started.push(f());
  };
  start('namespace', () => startNamespaceController(env, o.namespaceDeletionGraceMs));
  start('serviceaccount', () => startServiceAccountController(env));
  start('tokencleaner', () => startTokenCleaner(env));
  start('bootstrapsigner', () => startBootstrapSigner(env));
  start('root-ca-cert-publisher', () => startRootCaPublisher(env, o.caBundle));
  start('garbagecollector', () => startGarbageCollector(env));
  start('deployment', () => startDeploymentController(env));
  start('replicaset', () => startReplicaSetController(env));
  start('resourcequota', () => startResourceQuotaController(env));
  return {
    ready: Promise.all(started.map((c) => c.ready)).then(() => undefined),
    stop() {
      for (const c of started.splice(0)) c.stop();
    },
  };
}
