// Binding (core/v1, namespaced, create only, not stored): ties a pod to a node. A create of
// `bindings` (or of a pod's `binding` subresource) sets the pod's `spec.nodeName` once; the
// handler (handlers/binding.ts) does the work, this is what discovery and OpenAPI list.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { Causes } from './common.ts';
import { defineKind } from './define.ts';

export interface Binding {
  metadata?: KObject['metadata'];
  target?: { kind?: string; name?: string; apiVersion?: string; namespace?: string };
}

/** Kubernetes 1.28's ValidatePodBinding: the target is a Node (or unnamed kind) and has a name. */
export function validateBinding(b: Binding): StatusCause[] {
  const causes = new Causes();
  const kind = b.target?.kind ?? '';
  if (kind !== '' && kind !== 'Node')
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'target.kind',
      message: `Unsupported value: ${JSON.stringify(kind)}: supported values: "Node", "<empty>"`,
    });
  if (!b.target?.name) causes.required('target.name');
  return causes;
}

export const bindingDef = defineKind({
  group: '',
  kind: 'Binding',
  namespaced: true,
  verbs: ['create'],
  schema: builtinSchema('v1', 'Binding'),
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
  normalize: false,
});
