// What the server creates at start, as Kubernetes' API server does: the system namespaces, the
// system priority classes and the priority-and-fairness configuration (kept, with the
// FlowSchemas' Dangling condition).
import { unlessExists } from '../errors/status.ts';
import {
  ensureFlowControlConfiguration,
  keepFlowControlConfiguration,
  startFlowSchemaStatus,
} from '../registry/flowcontrol-config.ts';
import { SYSTEM_NAMESPACES } from '../registry/kinds/namespace.ts';
import { SYSTEM_PRIORITY_CLASSES, systemPriorityClass } from '../registry/kinds/priorityclass.ts';
import type { Registry } from '../registry/registry.ts';
import type { RequestContext } from '../registry/types.ts';

/** The system namespaces and priority classes (another server on the same etcd may make them at the same moment: theirs stands). */
export async function ensureSystemObjects(registry: Registry): Promise<void> {
  const ns = registry.byResource('', 'namespaces')!.store;
  const system: RequestContext = {
    user: { username: 'system:apiserver', groups: ['system:masters'] },
    warnings: [],
    dryRun: false,
  };
  // all at once: a durable store commits them together rather than one sync each
  const writes: Promise<unknown>[] = [];
  for (const name of SYSTEM_NAMESPACES) {
    if (!ns.getStored('', name))
      writes.push(
        unlessExists(
          ns.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, system, 'v1'),
        ),
      );
  }
  // the system priority classes (as Kubernetes creates them at start)
  const pcs = registry.byResource('scheduling.orch.io', 'priorityclasses')!.store;
  for (const c of SYSTEM_PRIORITY_CLASSES)
    if (!pcs.getStored('', c.name))
      writes.push(unlessExists(pcs.create('', systemPriorityClass(c), system, 'v1')));
  await Promise.all(writes);
}

export interface FlowControlSetup {
  /** Stops keeping the configuration objects. */
  stopKeeping(): void;
  /** The FlowSchemas' Dangling condition. */
  status: { stop(): void };
}

/** The priority-and-fairness configuration objects, and the FlowSchemas' Dangling condition. */
export async function wireFlowControl(registry: Registry): Promise<FlowControlSetup> {
  await ensureFlowControlConfiguration(registry);
  const stopKeeping = keepFlowControlConfiguration(registry);
  const status = startFlowSchemaStatus(registry);
  return { stopKeeping, status };
}
