// The cluster role aggregation controller: a ClusterRole with an aggregationRule gets the
// rules of every other ClusterRole its selectors match (in name order, each rule once), kept
// current as cluster roles come, change and go. Runs until stopped.

import { type LabelSelectorObj, selectorMatches } from '../../registry/kinds/common.ts';
import { RBAC_GROUP } from '../../registry/kinds/rbac-common.ts';
import type { Registry } from '../../registry/registry.ts';
import type { RequestContext } from '../../registry/types.ts';
import type { KObject } from '../../storage/types.ts';
import { clone, deepEqual } from '../../util/object.ts';

const SYSTEM: RequestContext = {
  user: { username: 'system:controller:clusterrole-aggregation-controller', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
};

/** The rules an aggregated cluster role should hold, from the others (sorted by name). */
export function aggregatedRules(role: KObject, all: readonly KObject[]): unknown[] {
  const sels =
    (role.aggregationRule as { clusterRoleSelectors?: LabelSelectorObj[] }).clusterRoleSelectors ?? [];
  const out: unknown[] = [];
  for (const sel of sels)
    for (const other of all) {
      if (other.metadata.name === role.metadata.name) continue;
      if (!selectorMatches(sel, other.metadata.labels)) continue;
      for (const r of Array.isArray(other.rules) ? other.rules : [])
        if (!out.some((x) => deepEqual(x, r))) out.push(r);
    }
  return out;
}

export interface Controller {
  stop(): void;
  /** Resolves once no aggregation is pending (tests, start-up). */
  idle(): Promise<void>;
}

export function startAggregation(registry: Registry): Controller {
  const served = registry.byResource(RBAC_GROUP, 'clusterroles');
  if (!served) return { stop() {}, idle: () => Promise.resolve() };
  const { store } = served;
  const storage = registry.storage;
  const bucket = `${RBAC_GROUP}/clusterroles`;
  let stopped = false;
  let pending: Promise<void> | undefined;
  let again = false;

  const sync = async () => {
    const stored = storage
      .list(bucket, '')
      .map((s) => s.obj)
      .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    // The rules every aggregated role ends with, found before anything is written: one
    // aggregated role's rules can be another's (edit's go into admin), so rounds run in memory
    // until none changes (at most one a role: selectors that form a loop stop there).
    let all = stored;
    for (let round = 0, changed = true; changed && round <= all.length; round++) {
      changed = false;
      all = all.map((role) => {
        if (!role.aggregationRule || typeof role.aggregationRule !== 'object') return role;
        const rules = aggregatedRules(role, all);
        if (deepEqual(rules, Array.isArray(role.rules) ? role.rules : [])) return role;
        changed = true;
        return { ...role, rules };
      });
    }
    // each changed role written once, all at once (a durable store commits them together)
    const writes: Promise<unknown>[] = [];
    all.forEach((role, i) => {
      if (stopped || role === stored[i] || deepEqual(role.rules, stored[i]!.rules)) return;
      const next = clone(stored[i]!);
      next.rules = role.rules;
      writes.push(
        store.update('', role.metadata.name!, next, SYSTEM, 'v1').catch(() => {
          // changed or deleted meanwhile: its change event runs another round
        }),
      );
    });
    await Promise.all(writes);
  };
  const schedule = () => {
    if (stopped) return;
    if (pending) {
      again = true;
      return;
    }
    pending = new Promise<void>((resolve) => setImmediate(resolve))
      .then(sync)
      .catch(() => {})
      .finally(() => {
        pending = undefined;
        if (again) {
          again = false;
          schedule();
        }
      });
  };
  const cancel = storage.watch(bucket, storage.revision(), schedule);
  schedule();
  return {
    stop() {
      stopped = true;
      cancel();
    },
    async idle() {
      while (pending) await pending;
    },
  };
}
