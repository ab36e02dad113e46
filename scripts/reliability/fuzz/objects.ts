// Objects for a served resource: plausible ones (the right apiVersion, kind, name and
// namespace; a valid spec for the common kinds) and random ones (random spec and top fields).
import type { Prng } from './prng.ts';
import type { ServedResource } from './resources.ts';
import { jsonValue } from './values.ts';
import { SPEC_KEYS, TOP_KEYS } from './vocabulary.ts';

const podSpec = (rng: Prng) => ({
  containers: [
    { name: 'c', image: rng.pick(['nginx', 'busybox:1.36', 'registry.example/x@sha256:abc', '']) },
  ],
  ...(rng.chance(0.2) ? { nodeName: rng.pick(['node-a', 'n']) } : {}),
});

function validSpec(rng: Prng, kind: string): Record<string, unknown> {
  const labels = { app: 'fuzz' };
  switch (kind) {
    case 'ConfigMap':
      return {
        data: {
          k: rng.pick(['v', '', 'x'.repeat(rng.int(0, 100))]),
          [rng.pick(['k2', 'key.name', 'bad key'])]: 'v',
        },
      };
    case 'Secret':
      return rng.chance(0.5)
        ? { data: { k: rng.pick(['dmFsdWU=', 'not base64!', '']) } }
        : { stringData: { k: 'v' } };
    case 'Pod':
      return { spec: podSpec(rng) };
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet':
    case 'DaemonSet':
      return {
        spec: {
          replicas: rng.pick([0, 1, 3, -1]),
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: podSpec(rng) },
          ...(kind === 'StatefulSet' ? { serviceName: 's' } : {}),
        },
      };
    case 'Job':
      return { spec: { template: { spec: { ...podSpec(rng), restartPolicy: 'Never' } } } };
    case 'Service':
      return { spec: { ports: [{ port: rng.pick([80, 0, 70000]) }], selector: labels } };
    case 'Lease':
      return { spec: { holderIdentity: 'fz', leaseDurationSeconds: rng.int(-1, 30) } };
    case 'Event':
      return { involvedObject: { kind: 'Pod', name: 'fz-a' }, reason: 'Fuzz', message: 'fuzz' };
    default:
      return {};
  }
}

/** A plausible object of `res` named `name` in `namespace` (when namespaced). */
export function objectFor(
  rng: Prng,
  res: ServedResource,
  name: string,
  namespace: string,
): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name };
  if (res.namespaced && rng.chance(0.7)) metadata.namespace = namespace;
  if (rng.chance(0.4)) metadata.labels = { app: rng.pick(['fuzz', 'a', '']) };
  if (rng.chance(0.1)) metadata.resourceVersion = rng.pick(['1', '2', '999', 'abc']);
  if (rng.chance(0.05)) metadata.finalizers = ['orch.io/fuzz'];
  const base = { apiVersion: res.groupVersion, kind: res.kind, metadata };
  if (rng.chance(0.6)) return { ...base, ...validSpec(rng, res.kind) };
  const top: Record<string, unknown> = {};
  for (let i = rng.int(0, 3); i > 0; i--) top[rng.pick(TOP_KEYS)] = jsonValue(rng, 3);
  const spec: Record<string, unknown> = {};
  for (let i = rng.int(0, 5); i > 0; i--) spec[rng.pick(SPEC_KEYS)] = jsonValue(rng, 3);
  return { ...base, spec, ...top };
}
