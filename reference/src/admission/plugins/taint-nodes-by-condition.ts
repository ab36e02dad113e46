// TaintNodesByCondition (doc3 plugin table: adds a not-ready no-schedule taint to new nodes):
// as Kubernetes 1.28, a node created without a `node.orch.io/not-ready` NoSchedule taint gets
// one (`{key: node.orch.io/not-ready, effect: NoSchedule}`), so nothing is scheduled onto it
// before the node controller finds it ready.
import type { AdmissionPlugin } from '../types.ts';
import { NOT_READY_TAINT } from './default-toleration-seconds.ts';
import { isCoreWrite } from './util.ts';

interface Taint {
  key?: string;
  effect?: string;
}

export const taintNodesByCondition = (): AdmissionPlugin => ({
  name: 'TaintNodesByCondition',
  handles: (a) => a.operation === 'CREATE' && isCoreWrite(a, 'nodes') && !!a.object,
  mutate(a) {
    const o = a.object!;
    if (!o.spec || typeof o.spec !== 'object') o.spec = {};
    const spec = o.spec as { taints?: Taint[] };
    const taints = Array.isArray(spec.taints) ? spec.taints : [];
    if (taints.some((t) => t?.key === NOT_READY_TAINT && t.effect === 'NoSchedule')) return;
    spec.taints = [...taints, { key: NOT_READY_TAINT, effect: 'NoSchedule' }];
  },
});
