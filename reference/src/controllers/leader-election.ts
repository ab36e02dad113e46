// Leader election among servers that share one store (etcd), as Kubernetes' controller manager
// elects its leader: a Lease `orch-controller-manager` in orch-system names the holder; the
// holder renews it every 2 s, another server takes it over once it has not been renewed for
// leaseDurationSeconds (15), counting the transition. Only the holder runs the controllers;
// a holder that cannot renew for 10 s stops them (Kubernetes' renew deadline).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { KObject } from '../storage/types.ts';
import {
  CONTROLLER_NAMESPACE,
  ControllerClient,
  type ControllerEnv,
  isConflict,
  reasonOf,
} from './client.ts';
import type { Controller } from './types.ts';

export const LEASE_NAME = 'orch-controller-manager';
const LEASE_SECONDS = 15;
const RENEW_DEADLINE_MS = 10_000;
const RETRY_MS = 2_000;

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** RFC 3339 with six fractional digits (a Lease's MicroTime). */
const micro = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export function leaderElected(env: ControllerEnv, run: () => Controller): Controller {
  const client = new ControllerClient(env, 'orch-controller-manager');
  const identity = `${hostname()}_${randomUUID()}`;
  let running: Controller | undefined;
  let renewedAt = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const attempt = async (): Promise<boolean> => {
    const now = env.now();
    const cur = client.get('coordination.orch.io', 'leases', CONTROLLER_NAMESPACE, LEASE_NAME);
    const spec = (cur?.spec ?? {}) as LeaseSpec;
    const mine = spec.holderIdentity === identity;
    const renewed = Date.parse(spec.renewTime ?? '') || 0;
    if (
      cur &&
      !mine &&
      spec.holderIdentity &&
      renewed + (spec.leaseDurationSeconds ?? LEASE_SECONDS) * 1000 > now
    )
      return false;
    const next: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: LEASE_SECONDS,
      acquireTime: mine ? spec.acquireTime : micro(now),
      renewTime: micro(now),
      leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : cur ? (spec.leaseTransitions ?? 0) + 1 : 0,
    };
    try {
      if (cur) await client.update('coordination.orch.io', 'leases', { ...cur, spec: next } as KObject);
      else
        await client.create('coordination.orch.io', 'leases', CONTROLLER_NAMESPACE, {
          apiVersion: 'coordination.orch.io/v1',
          kind: 'Lease',
          metadata: { name: LEASE_NAME },
          spec: next,
        });
      return true;
    } catch (e) {
      if (isConflict(e) || reasonOf(e) === 'AlreadyExists') return false;
      throw e;
    }
  };

  const tick = async () => {
    if (stopped) return;
    // held, held by another, or not known (the store failed)
    let held: boolean | undefined;
    try {
      held = await attempt();
    } catch {
      held = undefined;
    }
    if (stopped) return;
    if (held) {
      renewedAt = env.now();
      if (!running) running = run();
    } else if (running && (held === false || env.now() - renewedAt > RENEW_DEADLINE_MS)) {
      running.stop();
      running = undefined;
    }
    timer = setTimeout(() => void tick(), RETRY_MS);
    timer.unref();
  };
  void tick();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      running?.stop();
      running = undefined;
    },
  };
}
