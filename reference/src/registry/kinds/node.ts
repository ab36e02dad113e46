// Node (core/v1, cluster-scoped): a worker. The node agent writes `status` through the status
// subresource; `spec` holds scheduling fields (taints, unschedulable, pod CIDRs).
import { arr, bool, freeform, int, keyedList, mapOf, obj, setOf, str, time } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import { validLabelValue } from '../../selectors/labels.ts';
import type { KObject } from '../../storage/types.ts';
import { Causes, keepStoredStatus, qualifiedName, quantity, schemaStatusUpdate } from './common.ts';
import { defineKind, printed } from './define.ts';

const taint = obj({ key: str(), value: str(), effect: str(), timeAdded: time() });
const nodeCondition = obj({
  type: str(),
  status: str(),
  lastHeartbeatTime: time(),
  lastTransitionTime: time(),
  reason: str(),
  message: str(),
});

const schema = objectSchema({
  spec: obj({
    podCIDR: str(),
    podCIDRs: setOf(str(), { 'x-orch-patch-strategy': 'merge' }),
    providerID: str(),
    unschedulable: bool(),
    taints: arr(taint),
    configSource: freeform(),
    externalID: str(),
  }),
  status: obj({
    capacity: mapOf(quantity()),
    allocatable: mapOf(quantity()),
    phase: str(),
    conditions: keyedList(nodeCondition, ['type']),
    addresses: keyedList(obj({ type: str(), address: str() }), ['type']),
    daemonEndpoints: obj({ kubeletEndpoint: obj({ Port: int() }) }),
    nodeInfo: obj({
      machineID: str(),
      systemUUID: str(),
      bootID: str(),
      kernelVersion: str(),
      osImage: str(),
      containerRuntimeVersion: str(),
      kubeletVersion: str(),
      kubeProxyVersion: str(),
      operatingSystem: str(),
      architecture: str(),
    }),
    images: arr(obj({ names: arr(str()), sizeBytes: int() })),
    volumesInUse: arr(str()),
    volumesAttached: arr(obj({ name: str(), devicePath: str() })),
    config: freeform(),
  }),
});

interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: { key?: string; value?: string; effect?: string }[];
}

interface NodeStatus {
  conditions?: { type?: string; status?: string }[];
  addresses?: { type?: string; address?: string }[];
  nodeInfo?: Record<string, string>;
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

function validCidr(s: string): boolean {
  const m = CIDR.exec(s);
  if (m) return m.slice(1, 5).every((x) => Number(x) <= 255) && Number(m[5]) <= 32;
  // IPv6: hex groups with at most one `::`, prefix up to 128
  const [addr, prefix, ...rest] = s.split('/');
  if (rest.length || prefix === undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > 128) return false;
  if (!addr || !/^[0-9a-fA-F:]+$/.test(addr) || (addr.match(/::/g) ?? []).length > 1) return false;
  const groups = addr.split(':').filter((g) => g !== '');
  return (
    groups.every((g) => g.length <= 4) && (addr.includes('::') ? groups.length < 8 : groups.length === 8)
  );
}

function normalizeNode(o: KObject): void {
  const spec = (o.spec ?? {}) as NodeSpec;
  // podCIDR mirrors podCIDRs[0]
  if (spec.podCIDR && !spec.podCIDRs?.length) spec.podCIDRs = [spec.podCIDR];
  if (spec.podCIDRs?.length) spec.podCIDR = spec.podCIDRs[0];
  o.spec = spec;
}

function validateNode(o: KObject): Causes {
  const causes = new Causes();
  const spec = (o.spec ?? {}) as NodeSpec;
  (spec.podCIDRs ?? []).forEach((c, i) => {
    if (!validCidr(c))
      causes.invalid(
        `spec.podCIDRs[${i}]`,
        c,
        'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      );
  });
  if ((spec.podCIDRs ?? []).length > 2)
    causes.invalid('spec.podCIDRs', spec.podCIDRs, 'may specify no more than one CIDR for each IP family');
  const seen = new Set<string>();
  (spec.taints ?? []).forEach((t, i) => {
    const p = `spec.taints[${i}]`;
    causes.push(...qualifiedName(`${p}.key`, t.key ?? ''));
    if (t.value) {
      const vp = validLabelValue(t.value);
      if (vp) causes.invalid(`${p}.value`, t.value, vp);
    }
    if (!t.effect) causes.required(`${p}.effect`);
    else if (!TAINT_EFFECTS.includes(t.effect)) causes.notSupported(`${p}.effect`, t.effect, TAINT_EFFECTS);
    const k = `${t.key}\u0000${t.effect}`;
    if (seen.has(k)) causes.invalid(p, t, 'taints must be unique by key and effect pair');
    seen.add(k);
  });
  return causes;
}

function nodeStatus(o: KObject): string {
  const st = (o.status ?? {}) as NodeStatus;
  const ready = (st.conditions ?? []).find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if ((o.spec as NodeSpec | undefined)?.unschedulable) parts.push('SchedulingDisabled');
  return parts.join(',');
}

/** Roles from `node-role.orch.io/<role>` labels and the `orch.io/role` label. */
export function nodeRoles(o: KObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata.labels ?? {})) {
    if (k.startsWith('node-role.orch.io/')) {
      const r = k.slice('node-role.orch.io/'.length);
      if (r) roles.add(r);
    } else if (k === 'orch.io/role' && v) roles.add(v);
  }
  return [...roles].sort().join(',') || '<none>';
}

function address(o: KObject, type: string): string {
  return (
    ((o.status as NodeStatus | undefined)?.addresses ?? []).find((a) => a.type === type)?.address ?? '<none>'
  );
}

function info(o: KObject, k: string, unknown = '<unknown>'): string {
  return (o.status as NodeStatus | undefined)?.nodeInfo?.[k] || unknown;
}

export const nodeDef = defineKind({
  group: '',
  kind: 'Node',
  namespaced: false,
  shortNames: ['no'],
  subresources: ['proxy', 'status'],
  schema,
  fieldLabels: { 'spec.unschedulable': (o) => String(!!(o.spec as NodeSpec | undefined)?.unschedulable) },
  table: printed('node', {
    Status: nodeStatus,
    Roles: nodeRoles,
    Version: 'status.nodeInfo.kubeletVersion',
    // the wide columns: addresses and what the node reports of itself
    'Internal-IP': (o) => address(o, 'InternalIP'),
    'External-IP': (o) => address(o, 'ExternalIP'),
    'OS-Image': (o) => info(o, 'osImage'),
    'Kernel-Version': (o) => info(o, 'kernelVersion'),
    'Container-Runtime': (o) => info(o, 'containerRuntimeVersion'),
  }),
  prepareForCreate: (o) => normalizeNode(o),
  prepareForUpdate(o, old) {
    normalizeNode(o);
    keepStoredStatus(o, old);
  },
  prepareForStatusUpdate: schemaStatusUpdate(schema, 'Node'),
  validate: validateNode,
  validateUpdate(o, old) {
    const causes = validateNode(o);
    const spec = (o.spec ?? {}) as NodeSpec;
    const before = (old.spec ?? {}) as NodeSpec;
    const oldCidrs = before.podCIDRs ?? [];
    if (oldCidrs.length > 0 && JSON.stringify(oldCidrs) !== JSON.stringify(spec.podCIDRs ?? []))
      causes.forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid');
    if (before.providerID && before.providerID !== spec.providerID)
      causes.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid');
    return causes;
  },
});
