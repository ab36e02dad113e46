// Every built-in kind, installed into a registry.
import type { Handler } from '../../handlers/scope.ts';
import type { NonResourceRoute } from '../../http/server.ts';
import type { Registry } from '../registry.ts';
import type { ResourceDef } from '../types.ts';
import { configMap } from './configmap.ts';
import { crdDef } from './crd/index.ts';
import { deploymentDef, scaleGetHandler, scalePatchHandler, scaleUpdateHandler } from './deployment.ts';
import { eventDef, eventsV1Def } from './event.ts';
import { leaseDef } from './lease.ts';
import { namespaceDef } from './namespace.ts';
import { nodeDef } from './node.ts';
import { evictionHandler, podDef } from './pod.ts';
import { secretDef } from './secret.ts';
import { serviceDef } from './service.ts';
import { serviceAccountDef } from './serviceaccount.ts';

export function builtinKinds(registry: () => Registry): ResourceDef[] {
  return [
    namespaceDef(registry),
    configMap,
    secretDef,
    podDef,
    serviceDef(registry),
    nodeDef,
    serviceAccountDef,
    eventDef,
    eventsV1Def,
    leaseDef,
    deploymentDef,
    crdDef(),
  ];
}

/** Subresources served by their own handlers, keyed `<group>/<plural>/<subresource>/<verb>`. */
export function builtinSubresources(): Map<string, Handler> {
  return new Map<string, Handler>([
    ['/pods/eviction/create', evictionHandler],
    ['apps/deployments/scale/get', scaleGetHandler],
    ['apps/deployments/scale/update', scaleUpdateHandler],
    ['apps/deployments/scale/patch', scalePatchHandler],
  ]);
}

export function installBuiltins(
  registry: Registry,
  subresources: Map<string, Handler>,
  _routes: NonResourceRoute[],
): void {
  for (const def of builtinKinds(() => registry)) registry.add(def);
  for (const [k, h] of builtinSubresources()) subresources.set(k, h);
}
