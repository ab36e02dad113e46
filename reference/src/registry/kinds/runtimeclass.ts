// RuntimeClass (node.orch.io/v1): a container runtime configuration pods may name. Cluster-
// scoped. `handler` is a DNS label that never changes; `overhead.podFixed` is what a pod of the
// class costs beyond its containers; `scheduling` narrows the nodes such pods may run on.
import type { StatusCause } from '../../errors/status.ts';
import { arr, mapOf, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { Causes, dnsLabel, immutable, labelMap, qualifiedName, quantity } from './common.ts';
import { defineKind, printed } from './define.ts';
import { type Toleration, toleration } from './pod-spec.ts';
import { isStandardContainerResource, nonNegativeQuantity, resourceName } from './resource-lists.ts';

export interface RuntimeClass {
  metadata: KObject['metadata'];
  handler?: string;
  overhead?: { podFixed?: Record<string, string> };
  scheduling?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
}

const schema = objectSchema(
  {
    handler: str(),
    overhead: obj({ podFixed: mapOf(quantity()) }),
    scheduling: obj({
      nodeSelector: mapOf(str(), { 'x-orch-map-type': 'atomic' }),
      tolerations: arr(toleration, { 'x-orch-list-type': 'atomic' }),
    }),
  },
  { required: ['handler'] },
);

const EFFECTS = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'];

/** Tolerations as pods and runtime classes carry them. */
export function validateTolerations(field: string, ts: Toleration[] | undefined): StatusCause[] {
  const causes = new Causes();
  (ts ?? []).forEach((t, i) => {
    const p = `${field}[${i}]`;
    if (t.key) causes.push(...qualifiedName(`${p}.key`, t.key));
    const op = t.operator ?? 'Equal';
    if (!t.key && op !== 'Exists')
      causes.invalid(
        `${p}.operator`,
        t.operator ?? '',
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      );
    if (op === 'Exists' && t.value)
      causes.invalid(`${p}.operator`, t.operator, "value must be empty when `operator` is 'Exists'");
    if (op !== 'Equal' && op !== 'Exists')
      causes.notSupported(`${p}.operator`, t.operator, ['Equal', 'Exists']);
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute')
      causes.invalid(
        `${p}.effect`,
        t.effect ?? '',
        "effect must be 'NoExecute' when `tolerationSeconds` is set",
      );
    if (t.effect && !EFFECTS.includes(t.effect)) causes.notSupported(`${p}.effect`, t.effect, EFFECTS);
  });
  return causes;
}

function validateRuntimeClass(o: KObject): StatusCause[] {
  const rc = o as RuntimeClass;
  const causes = dnsLabel('handler', rc.handler ?? '');
  for (const [k, v] of Object.entries(rc.overhead?.podFixed ?? {})) {
    const f = `overhead.podFixed[${k}]`;
    causes.push(
      ...resourceName(
        f,
        k,
        isStandardContainerResource,
        'must be a standard resource type or fully qualified',
      ),
    );
    causes.push(...nonNegativeQuantity(f, v));
  }
  if (rc.scheduling) {
    causes.push(...labelMap('scheduling.nodeSelector', rc.scheduling.nodeSelector));
    causes.push(...validateTolerations('scheduling.tolerations', rc.scheduling.tolerations));
  }
  return causes;
}

export const runtimeClassDef = defineKind({
  group: 'node.orch.io',
  kind: 'RuntimeClass',
  namespaced: false,
  schema,
  zeroValue: () => ({ handler: '' }),
  validate: validateRuntimeClass,
  validateUpdate: (o, old) =>
    immutable('handler', (o as RuntimeClass).handler, (old as RuntimeClass).handler),
  // Kubernetes describes Handler with ObjectMeta's documentation of `handler`, which it has not: ''
  table: printed('runtimeClass', { Handler: 'handler' }),
});
