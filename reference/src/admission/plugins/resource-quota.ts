// ResourceQuota (doc3 plugin table: enforces quota objects). For every write of a namespaced
// object (not a subresource) in a namespace with quotas: the quotas that count the object are
// checked (a pod must set the compute resources a quota limits; the usage the write adds must
// stay within each quota's hard limits, else 403 `exceeded quota: <name>, requested: ...,
// used: ..., limited: ...`), then each quota's `status.used` is rewritten with the namespace's
// usage after the write. A quota's own status is filled when it is created or changed (hard
// from spec, used counted from the namespace's objects).
import type { ResourceQuota } from '../../registry/kinds/resourcequota.ts';
import { containersOf, podSpecOf } from '../../registry/pod-resources.ts';
import {
  addUsage,
  countUsage,
  hardOf,
  MUST_SPECIFY,
  prettyPrint,
  quotaMatches,
  toList,
  type Usage,
  usageOf,
} from '../../registry/quota-usage.ts';
import type { Registry } from '../../registry/registry.ts';
import { nanosOf } from '../../schema/quantity-math.ts';
import type { KObject } from '../../storage/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { admissionForbidden, heldObjects, listAll, serverContext } from './support.ts';

/** Containers missing a compute resource the quota limits: `must specify limits.cpu for: app; ...`. */
function missingCompute(q: ResourceQuota, o: KObject): string | undefined {
  const required = Object.keys(hardOf(q)).filter((k) => MUST_SPECIFY.includes(k));
  if (!required.length) return undefined;
  const missing = new Map<string, Set<string>>();
  for (const c of containersOf(podSpecOf(o))) {
    const r = c.resources ?? {};
    for (const k of required) {
      const [which, res] = k.startsWith('limits.')
        ? ['limits', k.slice(7)]
        : ['requests', k.replace(/^requests\./, '')];
      if ((r as Record<string, Record<string, string> | undefined>)[which]?.[res] === undefined) {
        const s = missing.get(k) ?? new Set<string>();
        s.add(c.name ?? '');
        missing.set(k, s);
      }
    }
  }
  if (!missing.size) return undefined;
  return `must specify ${[...missing.keys()]
    .sort()
    .map((k) => `${k} for: ${[...missing.get(k)!].sort().join(',')}`)
    .join('; ')}`;
}

async function writeStatus(registry: Registry, q: ResourceQuota, used: Usage): Promise<void> {
  const served = registry.byResource('', 'resourcequotas');
  const cur = served?.store.getStored(q.metadata.namespace ?? '', q.metadata.name ?? '')?.obj as
    | ResourceQuota
    | undefined;
  if (!served || !cur) return;
  const hard = hardOf(cur);
  const status = { hard: { ...hard }, used: toList(used, Object.keys(hard), hard) };
  if (JSON.stringify(cur.status) === JSON.stringify(status)) return;
  const next = { ...(cur as KObject), status };
  try {
    await served.store.update(
      cur.metadata.namespace ?? '',
      cur.metadata.name ?? '',
      next,
      serverContext(),
      'v1',
      'status',
    );
  } catch {
    // a concurrent change of the quota: the next write counts again
  }
}

async function admit(registry: Registry, a: AdmissionAttributes): Promise<void> {
  const quotas = (await listAll(registry, '', 'resourcequotas', a.namespace)) as ResourceQuota[];
  if (!quotas.length) return;
  const { group, resource: plural } = a.resource;
  const key = `${group}/${plural}/${a.name || a.object?.metadata?.name}`;
  const after = a.operation === 'DELETE' ? undefined : (a.object as KObject);
  const before = a.operation === 'CREATE' ? undefined : a.oldObject;
  const writes: [ResourceQuota, Usage][] = [];
  for (const q of quotas) {
    const hard = hardOf(q);
    const names = Object.keys(hard);
    const countsAfter = after !== undefined && quotaMatches(q, group, plural, after);
    const countsBefore = before !== undefined && quotaMatches(q, group, plural, before);
    if (!countsAfter && !countsBefore) continue;
    const tracked = (u: Usage) => Object.keys(u).some((k) => names.includes(k));
    const newU = countsAfter ? usageOf(group, plural, after) : {};
    const oldU = countsBefore ? usageOf(group, plural, before) : {};
    // a pod must set what the quota limits, even where it would count nothing
    if (countsAfter && group === '' && plural === 'pods' && a.operation === 'CREATE') {
      const why = missingCompute(q, after);
      if (why) throw admissionForbidden(a, `failed quota: ${q.metadata.name}: ${why}`);
    }
    if (!tracked(newU) && !tracked(oldU)) continue;
    const used = await countUsage(registry, q, a.namespace, key);
    if (before && countsBefore && a.operation !== 'CREATE') addUsage(used, oldU);
    // what the write adds: the new usage over the old one, where it grew
    const requested: Usage = {};
    for (const k of names) {
      const d = (newU[k]?.n ?? 0n) - (oldU[k]?.n ?? 0n);
      if (d > 0n) requested[k] = { n: d, bin: newU[k]!.bin };
    }
    const exceeded = Object.keys(requested).filter(
      (k) => (used[k]?.n ?? 0n) + requested[k]!.n > (nanosOf(hard[k]) ?? 0n),
    );
    if (exceeded.length)
      throw admissionForbidden(
        a,
        `exceeded quota: ${q.metadata.name}, requested: ${prettyPrint(toList(requested, exceeded, hard))}, used: ${prettyPrint(
          toList(used, exceeded, hard),
        )}, limited: ${prettyPrint(Object.fromEntries(exceeded.map((k) => [k, hard[k]!])))}`,
      );
    // the namespace's usage once the write is done
    const next: Usage = {};
    addUsage(next, used);
    addUsage(next, oldU, -1n);
    addUsage(next, newU);
    writes.push([q, next]);
  }
  if (a.dryRun) return;
  for (const [q, u] of writes) await writeStatus(registry, q, u);
}

/** A quota being created or changed gets its status as the quota controller would write it. */
async function fillQuotaStatus(registry: Registry, a: AdmissionAttributes): Promise<void> {
  const q = a.object as ResourceQuota;
  const hard = hardOf(q);
  const used = await countUsage(registry, q, a.namespace);
  // a new quota counting quotas counts itself
  if (a.operation === 'CREATE' && quotaMatches(q, '', 'resourcequotas', a.object as KObject))
    addUsage(used, usageOf('', 'resourcequotas', a.object as KObject));
  q.status = { hard: { ...hard }, used: toList(used, Object.keys(hard), hard) };
}

export function resourceQuotaPlugin(registry: Registry): AdmissionPlugin {
  return {
    name: 'ResourceQuota',
    handles: (a) => a.subresource === '' && a.namespace !== '' && a.operation !== 'CONNECT',
    mutate(a) {
      if (a.resource.group === '' && a.resource.resource === 'resourcequotas' && a.operation !== 'DELETE')
        return fillQuotaStatus(registry, a);
    },
    validate(a) {
      // a namespace without quotas (most writes): nothing to check, and nothing to wait for
      if (heldObjects(registry, '', 'resourcequotas', a.namespace)?.length === 0) return;
      return admit(registry, a);
    },
  };
}
