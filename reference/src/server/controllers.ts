// The controllers `--controllers` selects; their writes are admitted as any client's are. Every
// namespace has its `default` service account before requests come (pods need it).
import type { AdmissionChain } from '../admission/chain.ts';
import type { ServerOptions } from '../config.ts';
import type { AdmissionFor } from '../controllers/client.ts';
import { startControllers } from '../controllers/manager.ts';
import type { CertBundle } from '../http/tls.ts';
import type { Registry } from '../registry/registry.ts';

export type Controllers = ReturnType<typeof startControllers>;

/** Starts the controllers; resolves once they are ready. */
export async function wireControllers(
  options: ServerOptions,
  registry: Registry,
  admission: AdmissionChain,
  cert: CertBundle | undefined,
): Promise<Controllers> {
  const admitControllerWrite: AdmissionFor = (a) => {
    const group = registry.canonicalGroup(a.group);
    const gvk = { group, version: a.version, kind: a.kind };
    const gvr = { group, version: a.version, resource: a.plural };
    return admission.forRequest({
      requestKind: gvk,
      requestResource: gvr,
      kind: gvk,
      resource: gvr,
      subresource: a.subresource,
      options: a.options,
      ctx: a.ctx,
    });
  };
  const controllers = startControllers(
    { registry, admission: admitControllerWrite, now: options.clock ?? Date.now },
    // servers sharing one store (etcd) elect the one that runs them
    {
      controllers: options.controllers,
      caBundle: cert?.ca ?? '',
      leaderElect: !!options.etcdServers?.length,
      namespaceDeletionGraceMs: options.namespaceDeletionGraceMs,
    },
  );
  await controllers.ready;
  return controllers;
}
