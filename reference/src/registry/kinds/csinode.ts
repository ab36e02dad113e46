// CSINode (storage.orch.io/v1): the CSI drivers installed on a node, one object per node
// and named after it. Cluster-scoped. Each driver appears once, with its node ID (at most
// 256 characters) and the topology keys it reports (qualified names, no repeats); a driver
// listed before may be dropped or added, never changed.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import { validLabelKey } from '../../selectors/labels.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import { causesOf, nonNegative } from './common.ts';
import { csiDriverName } from './csidriver.ts';
import { defineKind, printed } from './define.ts';
import { goPtr, goSlice, goStr, goStruct } from './go-syntax.ts';

export interface CSINodeDriver {
  name?: string;
  nodeID?: string;
  topologyKeys?: string[];
  allocatable?: { count?: number };
}

const schema = builtinSchema('storage.orch.io/v1', 'CSINode');
/** The node ID limit of 1.28's API server (the longer one, which it applies to every write). */
const MAX_NODE_ID = 256;

const driversOf = (o: KObject): CSINodeDriver[] =>
  ((o.spec as { drivers?: CSINodeDriver[] } | undefined)?.drivers ?? []).filter(
    (d) => d !== null && typeof d === 'object',
  );

function prepare(o: KObject): void {
  const spec = (o.spec ??= {}) as { drivers?: unknown[] };
  // Go decodes an absent list as an empty one: the required field is never missing
  spec.drivers ??= [];
}

function validateDriver(d: CSINodeDriver, p: string, seen: Set<string>): StatusCause[] {
  const causes = csiDriverName(`${p}.name`, d.name);
  const id = d.nodeID ?? '';
  if (!id) causes.required(`${p}.nodeID`);
  if (id.length > MAX_NODE_ID) causes.invalid(`${p}.nodeID`, id, `must be ${MAX_NODE_ID} characters or less`);
  if (typeof d.allocatable?.count === 'number')
    causes.push(...nonNegative(`${p}.allocatable.count`, d.allocatable.count));
  const name = d.name ?? '';
  if (seen.has(name)) causes.duplicate(`${p}.name`, name);
  seen.add(name);
  const keys = new Set<string>();
  for (const k of d.topologyKeys ?? []) {
    if (!k) causes.required(p);
    if (keys.has(k)) causes.duplicate(p, k);
    keys.add(k);
    const problem = validLabelKey(k);
    if (problem) causes.invalid(p, k, problem);
  }
  return causes;
}

function validateCSINode(o: KObject): StatusCause[] {
  const seen = new Set<string>();
  return driversOf(o).flatMap((d, i) => validateDriver(d, `spec.drivers[${i}]`, seen));
}

function goDriver(d: CSINodeDriver): string {
  return goStruct('storage.CSINodeDriver', [
    ['Name', goStr(d.name)],
    ['NodeID', goStr(d.nodeID)],
    ['TopologyKeys', goSlice('string', d.topologyKeys)],
    ['Allocatable', goPtr('storage.VolumeNodeResources', d.allocatable)],
  ]);
}

function validateUpdate(o: KObject, old: KObject): StatusCause[] {
  const causes = causesOf(validateCSINode(o));
  for (const before of driversOf(old))
    for (const now of driversOf(o))
      if (before.name === now.name && !deepEqual(before, now))
        causes.invalidShown('CSINodeDriver', goDriver(now), 'field is immutable');
  return causes;
}

export const csiNodeDef = defineKind({
  group: 'storage.orch.io',
  kind: 'CSINode',
  namespaced: false,
  schema,
  zeroValue: () => ({ spec: { drivers: null } }),
  prepare,
  validate: validateCSINode,
  validateUpdate,
  table: printed('csiNode', { Drivers: (o) => driversOf(o).length }),
});
