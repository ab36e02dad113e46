// DefaultTolerationSeconds (doc3 plugin table: adds tolerations for not-ready and unreachable
// taints, default 5 minutes, from the server flags `default-not-ready-toleration-seconds` and
// `default-unreachable-toleration-seconds`): as Kubernetes 1.28, a pod created or updated without
// a toleration of the NoExecute `node.orch.io/not-ready` taint (or `node.orch.io/unreachable`)
// gets `{key, operator: Exists, effect: NoExecute, tolerationSeconds: N}` for it; a toleration
// with an empty key or an empty effect counts as one.
import type { AdmissionPlugin } from '../types.ts';
import { isPodWrite, podSpec, type Toleration } from './util.ts';
import type { ServerOptions } from '../../config.ts';

export const NOT_READY_TAINT = 'node.orch.io/not-ready';
export const UNREACHABLE_TAINT = 'node.orch.io/unreachable';
/** Both flags' default: 5 minutes. */
export const DEFAULT_TOLERATION_SECONDS = 300;

const tolerates = (t: Toleration, key: string) =>
  !!t && (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect);

export const defaultTolerationSeconds = (env: {
  options: Pick<ServerOptions, 'defaultNotReadyTolerationSeconds' | 'defaultUnreachableTolerationSeconds'>;
}): AdmissionPlugin => {
  const notReady = env.options.defaultNotReadyTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS;
  const unreachable = env.options.defaultUnreachableTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS;
  return {
    name: 'DefaultTolerationSeconds',
    handles: (a) => isPodWrite(a) && !!a.object,
    mutate(a) {
      const spec = podSpec(a);
      const list = (Array.isArray(spec.tolerations) ? spec.tolerations : []) as Toleration[];
      const add: Toleration[] = [];
      if (!list.some((t) => tolerates(t, NOT_READY_TAINT)))
        add.push({
          key: NOT_READY_TAINT,
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: notReady,
        });
      if (!list.some((t) => tolerates(t, UNREACHABLE_TAINT)))
        add.push({
          key: UNREACHABLE_TAINT,
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: unreachable,
        });
      if (add.length) spec.tolerations = [...list, ...add];
    },
  };
};
