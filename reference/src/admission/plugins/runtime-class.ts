// RuntimeClass (doc3 plugin table: rejects workload units that set `overhead`; fills
// `.spec.overhead` from the runtime class). A new pod naming a runtime class gets the class's
// `overhead.podFixed` as its overhead and the class's scheduling node selector and tolerations
// merged into its own; a class that does not exist, an overhead the class does not define, or
// a node selector that conflicts with the class's refuses the pod.
import type { Registry } from '../../registry/registry.ts';
import type { Toleration } from '../../registry/kinds/pod-spec.ts';
import type { RuntimeClass } from '../../registry/kinds/runtimeclass.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { admissionForbidden, getStored, isWriteOf } from './support.ts';

interface PodSpecRuntime {
  runtimeClassName?: string;
  overhead?: Record<string, string>;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
}

const specOf = (a: AdmissionAttributes) => ((a.object as KObject).spec ?? {}) as PodSpecRuntime;

function classOf(registry: Registry, a: AdmissionAttributes): RuntimeClass | undefined {
  const name = specOf(a).runtimeClassName;
  if (!name) return undefined;
  const rc = getStored(registry, 'node.orch.io', 'runtimeclasses', '', name) as RuntimeClass | undefined;
  if (!rc) throw admissionForbidden(a, `pod rejected: RuntimeClass "${name}" not found`);
  return rc;
}

const hasOverhead = (spec: PodSpecRuntime) => Object.keys(spec.overhead ?? {}).length > 0;

function setOverhead(a: AdmissionAttributes, rc: RuntimeClass | undefined): void {
  const fixed = rc?.overhead?.podFixed;
  if (!fixed) return;
  const spec = specOf(a);
  if (hasOverhead(spec) && !deepEqual(spec.overhead, fixed))
    throw admissionForbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
  spec.overhead = { ...fixed };
}

function setScheduling(a: AdmissionAttributes, rc: RuntimeClass | undefined): void {
  const sched = rc?.scheduling;
  if (!sched) return;
  const spec = specOf(a);
  const selector = sched.nodeSelector ?? {};
  if (Object.keys(selector).length) {
    const mine = { ...(spec.nodeSelector ?? {}) };
    for (const [k, v] of Object.entries(selector)) {
      if (mine[k] !== undefined && mine[k] !== v)
        throw admissionForbidden(
          a,
          `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${mine[k]}`,
        );
      mine[k] = v;
    }
    spec.nodeSelector = mine;
  }
  const add = (sched.tolerations ?? []).filter((t) => !(spec.tolerations ?? []).some((x) => deepEqual(x, t)));
  if (add.length) spec.tolerations = [...(spec.tolerations ?? []), ...add];
}

function validateOverhead(a: AdmissionAttributes, rc: RuntimeClass | undefined): void {
  const spec = specOf(a);
  const fixed = rc?.overhead?.podFixed;
  if (fixed) {
    if (!deepEqual(spec.overhead ?? {}, fixed))
      throw admissionForbidden(
        a,
        "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
      );
  } else if (hasOverhead(spec))
    throw admissionForbidden(
      a,
      'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
    );
}

export function runtimeClassPlugin(registry: Registry): AdmissionPlugin {
  return {
    name: 'RuntimeClass',
    handles: (a) => isWriteOf(a, '', 'pods', ['CREATE']),
    mutate(a) {
      const rc = classOf(registry, a);
      setOverhead(a, rc);
      setScheduling(a, rc);
    },
    validate(a) {
      validateOverhead(a, classOf(registry, a));
    },
  };
}
