// EndpointSlice discovery.orch.io/v1beta1 to v1: the `topology` map of an endpoint gives way to
// the endpoint's own `nodeName` and `zone`; what else it held has no writable place in v1
// (`deprecatedTopology` is the server's).
import type { Obj, Rule } from '../types.ts';

// the label keys in either dialect (Kubernetes spells them with kubernetes.io)
const HOST = ['orch.io/hostname', 'kubernetes.io/hostname'];
const ZONE = ['topology.orch.io/zone', 'topology.kubernetes.io/zone'];

export const endpointSliceRules: Rule[] = [
  {
    kinds: ['EndpointSlice'],
    from: ['discovery.orch.io/v1beta1'],
    to: 'discovery.orch.io/v1',
    convert: (o, _from, notes) => {
      (o.endpoints ?? []).forEach((e: Obj, i: number) => {
        const topo: Obj | undefined = e.topology;
        if (!topo) return;
        delete e.topology;
        for (const k of HOST) if (topo[k] !== undefined) e.nodeName ??= topo[k];
        for (const k of ZONE) if (topo[k] !== undefined) e.zone ??= topo[k];
        const rest = Object.keys(topo).filter((k) => !HOST.includes(k) && !ZONE.includes(k));
        if (rest.length)
          notes.push(
            `endpoints[${i}].topology: ${rest.join(', ')} dropped (v1 keeps only nodeName and zone)`,
          );
      });
      return o;
    },
  },
];
