// CSIStorageCapacity (storage.orch.io/v1): the capacity a CSI driver reports for a storage
// class in a part of the cluster (the nodes its `nodeTopology` selects). Namespaced. The
// class name is required; capacities are quantities not below zero; the class and the
// topology never change. Kubernetes 1.28 prints it with the default columns.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import { validLabelValue } from '../../selectors/labels.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import { nameProblem } from '../validation.ts';
import { Causes, type LabelSelectorObj, validateLabelSelector } from './common.ts';
import { defineKind } from './define.ts';
import { goSlice, goStr, goStringMap, goStruct } from './go-syntax.ts';
import { nonNegativeQuantity } from './resource-lists.ts';

export interface CSIStorageCapacity {
  metadata: KObject['metadata'];
  nodeTopology?: LabelSelectorObj;
  storageClassName?: string;
  capacity?: string;
  maximumVolumeSize?: string;
}

const schema = builtinSchema('storage.orch.io/v1', 'CSIStorageCapacity');

/** Label values of `In` and `NotIn` requirements that are not label values, with their paths. */
function badSelectorValues(sel: LabelSelectorObj | undefined): StatusCause[] {
  const out = new Causes();
  for (const [i, e] of (sel?.matchExpressions ?? []).entries())
    for (const [j, v] of (e?.values ?? []).entries()) {
      const p = validLabelValue(v);
      if (p) out.invalid(`nodeTopology.matchExpressions[${i}].values[${j}]`, v, p);
    }
  return out;
}

/** 1.28's checks; label values in the topology are let through on updates of objects that already had bad ones. */
function validate(o: KObject, allowBadValues = false): Causes {
  const c = o as CSIStorageCapacity;
  const causes = validateLabelSelector('nodeTopology', c.nodeTopology);
  if (!allowBadValues) causes.push(...badSelectorValues(c.nodeTopology));
  const cls = c.storageClassName ?? '';
  const p = nameProblem(cls, 'subdomain');
  if (p) causes.invalid('storageClassName', cls, p);
  if (c.capacity !== undefined) causes.push(...nonNegativeQuantity('capacity', c.capacity));
  return causes;
}

/** A label selector as Go prints the struct. */
function goSelector(s: LabelSelectorObj): string {
  const exprs = s.matchExpressions?.length
    ? `[]v1.LabelSelectorRequirement{${s.matchExpressions
        .map((e) =>
          goStruct('v1.LabelSelectorRequirement', [
            ['Key', goStr(e.key)],
            ['Operator', goStr(e.operator)],
            ['Values', goSlice('string', e.values)],
          ]),
        )
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return goStruct('v1.LabelSelector', [
    ['MatchLabels', goStringMap(s.matchLabels)],
    ['MatchExpressions', exprs],
  ]);
}

function validateUpdate(o: KObject, old: KObject): StatusCause[] {
  const c = o as CSIStorageCapacity;
  const before = old as CSIStorageCapacity;
  const causes = validate(o, badSelectorValues(before.nodeTopology).length > 0);
  if (!deepEqual(c.nodeTopology ?? null, before.nodeTopology ?? null))
    causes.invalidShown(
      'nodeTopology',
      c.nodeTopology ? goSelector(c.nodeTopology) : 'null',
      'field is immutable',
    );
  if (c.storageClassName !== before.storageClassName)
    causes.invalid('storageClassName', c.storageClassName ?? '', 'field is immutable');
  return causes;
}

export const csiStorageCapacityDef = defineKind({
  group: 'storage.orch.io',
  kind: 'CSIStorageCapacity',
  namespaced: true,
  schema,
  zeroValue: () => ({ storageClassName: '' }),
  validate: (o) => validate(o),
  validateUpdate,
});
