// Priority (doc3 plugin table: fills priority from `priorityClassName`; unknown class
// rejects). A new pod gets `spec.priority` and `spec.preemptionPolicy` from its class, or
// from the global default class when it names none (priority 0 when there is no default);
// a pod that sets a priority other than its class's is refused. An update keeps what the
// create set. A priority class may be made the global default only while no other is.
import type { Registry } from '../../registry/registry.ts';
import type { PriorityClass } from '../../registry/kinds/priorityclass.ts';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { admissionForbidden, getStored, isWriteOf, listAll } from './support.ts';

const GROUP = 'scheduling.orch.io';

interface PodSpecPriority {
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: string;
}

/** The global default class: among those marked, the one of lowest value (as Kubernetes picks it). */
async function defaultClass(registry: Registry): Promise<PriorityClass | undefined> {
  let pick: PriorityClass | undefined;
  for (const o of await listAll(registry, GROUP, 'priorityclasses')) {
    const pc = o as PriorityClass;
    if (pc.globalDefault === true && (!pick || (pc.value ?? 0) < (pick.value ?? 0))) pick = pc;
  }
  return pick;
}

async function admitPod(registry: Registry, a: AdmissionAttributes): Promise<void> {
  const spec = ((a.object as KObject).spec ??= {}) as PodSpecPriority;
  if (a.operation === 'UPDATE') {
    const old = (a.oldObject?.spec ?? {}) as PodSpecPriority;
    if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
    if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined)
      spec.preemptionPolicy = old.preemptionPolicy;
    return;
  }
  let priority = 0;
  let policy: string | undefined = 'PreemptLowerPriority';
  if (!spec.priorityClassName) {
    const def = await defaultClass(registry);
    if (def) {
      priority = def.value ?? 0;
      policy = def.preemptionPolicy;
      spec.priorityClassName = def.metadata.name;
    }
  } else {
    const pc = getStored(registry, GROUP, 'priorityclasses', '', spec.priorityClassName) as
      | PriorityClass
      | undefined;
    if (!pc) throw admissionForbidden(a, `no PriorityClass with name ${spec.priorityClassName} was found`);
    priority = pc.value ?? 0;
    policy = pc.preemptionPolicy;
  }
  if (spec.priority !== undefined && spec.priority !== priority)
    throw admissionForbidden(
      a,
      `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    );
  spec.priority = priority;
  if (policy !== undefined) {
    if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== policy)
      throw admissionForbidden(
        a,
        `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`,
      );
    spec.preemptionPolicy = policy;
  }
}

async function validateClass(registry: Registry, a: AdmissionAttributes): Promise<void> {
  const pc = a.object as PriorityClass;
  if (pc.globalDefault !== true) return;
  const def = await defaultClass(registry);
  if (!def) return;
  if (a.operation === 'CREATE' || def.metadata.name !== pc.metadata.name)
    throw admissionForbidden(
      a,
      `PriorityClass ${def.metadata.name} is already marked as default. Only one default can exist`,
    );
}

export function priorityPlugin(registry: Registry): AdmissionPlugin {
  return {
    name: 'Priority',
    handles: (a) =>
      isWriteOf(a, '', 'pods', ['CREATE', 'UPDATE']) ||
      isWriteOf(a, GROUP, 'priorityclasses', ['CREATE', 'UPDATE']),
    async mutate(a) {
      if (a.resource.resource === 'pods') await admitPod(registry, a);
    },
    async validate(a) {
      if (a.resource.resource === 'priorityclasses') await validateClass(registry, a);
    },
  };
}
