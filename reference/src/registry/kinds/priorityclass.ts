// PriorityClass (scheduling.orch.io/v1): a name for a pod priority value. Cluster-scoped. The
// two system classes exist from the start; names with the `system-` prefix are theirs alone,
// user classes stay at or below one billion, and value and preemptionPolicy never change.
import { errors, type StatusCause } from '../../errors/status.ts';
import { bool, int, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { Causes, immutable, requiredOneOf } from './common.ts';
import { defineKind, printed } from './define.ts';

export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
export const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';
export const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'];

export interface PriorityClass {
  metadata: KObject['metadata'];
  value?: number;
  globalDefault?: boolean;
  description?: string;
  preemptionPolicy?: string;
}

/** The classes the server creates at start (Kubernetes' system priority classes). */
export const SYSTEM_PRIORITY_CLASSES = [
  {
    name: 'system-node-critical',
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    name: 'system-cluster-critical',
    value: SYSTEM_CRITICAL_PRIORITY,
    description:
      'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
] as const;

/** A system class as the server creates it. */
export function systemPriorityClass(c: (typeof SYSTEM_PRIORITY_CLASSES)[number]): KObject {
  return {
    apiVersion: 'scheduling.orch.io/v1',
    kind: 'PriorityClass',
    metadata: { name: c.name },
    value: c.value,
    description: c.description,
  };
}

// `value` is listed as required, but an object without it decodes to 0 (a Go int32)
const schema = objectSchema({
  value: int(),
  globalDefault: bool(),
  description: str(),
  preemptionPolicy: str(),
});

function knownSystemClass(
  name: string,
  value: number | undefined,
  globalDefault: boolean,
): string | undefined {
  const c = SYSTEM_PRIORITY_CLASSES.find((x) => x.name === name);
  if (!c) return `${name} is not a known system priority class`;
  if (c.value !== value) return `value of ${c.name} PriorityClass must be ${c.value}`;
  if (globalDefault) return `globalDefault of ${c.name} PriorityClass must be false`;
  return undefined;
}

function validatePriorityClass(o: KObject): StatusCause[] {
  const pc = o as PriorityClass;
  const causes = new Causes();
  const name = pc.metadata.name ?? '';
  if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const why = knownSystemClass(name, pc.value, pc.globalDefault === true);
    if (why)
      causes.forbidden(
        'metadata.name',
        `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${why}`,
      );
  } else if (typeof pc.value === 'number' && pc.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    causes.forbidden(
      'value',
      `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`,
    );
  }
  causes.push(...requiredOneOf('preemptionPolicy', pc.preemptionPolicy, PREEMPTION_POLICIES));
  return causes;
}

function validatePriorityClassUpdate(o: KObject, old: KObject): StatusCause[] {
  const pc = o as PriorityClass;
  const before = old as PriorityClass;
  const causes = new Causes();
  if (pc.value !== before.value) causes.forbidden('value', 'may not be changed in an update.');
  causes.push(...immutable('preemptionPolicy', pc.preemptionPolicy, before.preemptionPolicy));
  return causes;
}

function prepare(o: KObject): void {
  const pc = o as PriorityClass;
  pc.value ??= 0;
  pc.preemptionPolicy ??= 'PreemptLowerPriority';
}

export const priorityClassDef = defineKind({
  group: 'scheduling.orch.io',
  kind: 'PriorityClass',
  namespaced: false,
  shortNames: ['pc'],
  schema,
  prepare,
  validate: validatePriorityClass,
  validateUpdate: validatePriorityClassUpdate,
  refuseDelete: (o) =>
    SYSTEM_PRIORITY_CLASSES.some((c) => c.name === o.metadata.name)
      ? errors.forbidden(
          `priorityclasses.scheduling.orch.io "${o.metadata.name}" is forbidden: this is a system priority class and cannot be deleted`,
          { name: o.metadata.name, group: 'scheduling.orch.io', kind: 'priorityclasses' },
        )
      : undefined,
  zeroValue: () => ({ value: 0 }),
  table: printed('priorityClass', {
    Value: 'value',
    'Global-Default': (o) => (o as PriorityClass).globalDefault === true,
  }),
  normalize: false,
});
