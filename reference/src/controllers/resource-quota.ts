// The resource-quota controller (Kubernetes' `resourcequota`): every quota's status holds its
// hard limits and the usage counted from its namespace's objects. A namespace is counted again
// when one of its quotas appears or changes, when an object a quota of it counts is written
// or deleted (whichever server stored it: the controller follows the store), and every five
// minutes (Kubernetes' --resource-quota-sync-period), which also picks up resources served
// only after their quota was made. The ResourceQuota admission plugin keeps the status current
// as the writes it admits go; this controller is what makes it true in the end.

import type { ResourceQuota } from '../registry/kinds/resourcequota.ts';
import { countUsage, hardOf, resourceOfHard, toList } from '../registry/quota-usage.ts';
import type { KObject } from '../storage/types.ts';
import { deepEqual } from '../util/object.ts';
import { ControllerClient, type ControllerEnv, isNotFound } from './client.ts';
import { type Informer, inform } from './informer.ts';
import type { Controller } from './types.ts';
import { WorkQueue } from './work-queue.ts';

const RESYNC_MS = 5 * 60_000;

export function startResourceQuotaController(env: ControllerEnv): Controller {
  const client = new ControllerClient(env, 'resourcequota-controller');
  /** The namespaces holding quotas, with how many. */
  const holding = new Map<string, number>();
  const followed = new Map<string, Informer>();

  const sync = async (ns: string): Promise<void> => {
    // each counted resource listed once for all the namespace's quotas
    const lists = new Map<string, KObject[]>();
    for (const cached of quotas?.cache.values() ?? []) {
      if (cached.metadata.namespace !== ns) continue;
      // the newest stored quota (the cache may be a step behind a write of ours)
      const q = client.get('', 'resourcequotas', ns, cached.metadata.name!) as ResourceQuota | undefined;
      if (!q) continue;
      const hard = hardOf(q);
      const used = await countUsage(env.registry, q, ns, undefined, lists);
      const status = { hard: { ...hard }, used: toList(used, Object.keys(hard), hard) };
      if (deepEqual(q.status ?? {}, status)) continue;
      try {
        await client.update('', 'resourcequotas', { ...(q as KObject), status }, 'v1', 'status');
      } catch (e) {
        if (isNotFound(e)) continue;
        throw e;
      }
    }
  };
  const queue = new WorkQueue('resourcequota controller', sync);

  /** Follows the resources a quota counts (once each), queueing the namespaces with quotas they change. */
  const follow = (q: KObject) => {
    for (const key of Object.keys(hardOf(q as ResourceQuota))) {
      const r = resourceOfHard(key);
      if (!r || r.plural === 'resourcequotas' || followed.has(`${r.group}/${r.plural}`)) continue;
      const i = inform(env.registry, r.group, r.plural, (ev) => {
        const ns = ev.obj.metadata.namespace;
        if (ns && holding.has(ns)) queue.add(ns);
      });
      if (i) followed.set(`${r.group}/${r.plural}`, i);
    }
  };
  const quotas = inform(env.registry, '', 'resourcequotas', (ev) => {
    const ns = ev.obj.metadata.namespace!;
    if (ev.type === 'ADDED') holding.set(ns, (holding.get(ns) ?? 0) + 1);
    if (ev.type === 'DELETED') {
      const n = (holding.get(ns) ?? 1) - 1;
      if (n > 0) holding.set(ns, n);
      else holding.delete(ns);
    }
    if (ev.type !== 'DELETED') follow(ev.obj);
    queue.add(ns);
  });
  const resync = setInterval(() => {
    for (const q of quotas?.cache.values() ?? []) follow(q);
    for (const ns of holding.keys()) queue.add(ns);
  }, RESYNC_MS);
  resync.unref();
  return {
    stop() {
      clearInterval(resync);
      queue.stop();
      quotas?.stop();
      for (const i of followed.values()) i.stop();
      followed.clear();
    },
  };
}
