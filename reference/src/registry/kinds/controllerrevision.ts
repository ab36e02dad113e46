// ControllerRevision (apps/v1): an immutable snapshot of a controller's state (DaemonSet and
// StatefulSet keep their template history in them). `data` is required and never changes;
// `revision` is a number at least 0. Schema: the one a 1.28 server publishes.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { Causes, immutable, nonNegative } from './common.ts';
import { defineKind, printed } from './define.ts';

const schema = builtinSchema('apps/v1', 'ControllerRevision');

interface OwnerRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  controller?: boolean;
}

function prepare(o: KObject): void {
  // an int64 without omitempty: absent reads as 0
  o.revision ??= 0;
}

function validateControllerRevision(o: KObject): StatusCause[] {
  const causes = new Causes();
  if (o.data === undefined || o.data === null) causes.required('data', 'data is mandatory');
  causes.push(...nonNegative('revision', o.revision));
  return causes;
}

/** The controlling owner as `kind.group/name` (kubectl's resource name), `<none>` without one. */
function controllerOf(o: KObject): string {
  const ref = ((o.metadata.ownerReferences ?? []) as OwnerRef[]).find((r) => r?.controller === true);
  if (!ref) return '<none>';
  const gv = ref.apiVersion ?? '';
  const group = gv.includes('/') ? gv.slice(0, gv.indexOf('/')) : '';
  const kind = (ref.kind ?? '').toLowerCase();
  return `${group ? `${kind}.${group}` : kind}/${ref.name ?? ''}`;
}

export const controllerRevisionDef = defineKind({
  group: 'apps',
  kind: 'ControllerRevision',
  namespaced: true,
  schema,
  zeroValue: () => ({ revision: 0 }),
  table: printed('controllerRevision', {
    Controller: (o) => controllerOf(o),
    Revision: (o) => (typeof o.revision === 'number' ? o.revision : 0),
  }),
  prepare,
  validate: validateControllerRevision,
  validateUpdate: (o, old) => [
    ...validateControllerRevision(o),
    ...(o.data === undefined || o.data === null ? [] : immutable('data', o.data, old.data)),
  ],
});
