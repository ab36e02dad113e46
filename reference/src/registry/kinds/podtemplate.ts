// PodTemplate (core v1): a named pod template, checked as a pod's spec is (any restart policy)
// and given a pod's defaults. No status; any template change raises the generation. Schema: the
// one a 1.28 server publishes.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { formatLabels, labelMap } from './common.ts';
import { defineKind, printed } from './define.ts';
import { defaultPodSpec } from './pod-spec.ts';
import { validatePodSpec } from './pod-spec-validation.ts';
import { type PodTemplate, templateAnnotations, templateCells } from './workload-common.ts';

const schema = builtinSchema('v1', 'PodTemplate');

const templateOf = (o: KObject) => (o.template ?? undefined) as PodTemplate | undefined;

function prepare(o: KObject): void {
  const t = ((o.template as PodTemplate | undefined) ??= {});
  o.template = t;
  t.metadata ??= {};
  t.spec ??= {};
  defaultPodSpec(t.spec);
}

function validatePodTemplate(o: KObject): StatusCause[] {
  const t = templateOf(o);
  const causes = labelMap('template.labels', t?.metadata?.labels);
  causes.push(...templateAnnotations('template.annotations', t?.metadata?.annotations));
  const spec = t?.spec ?? {};
  causes.push(...validatePodSpec(spec, 'template.spec'));
  if ((spec.ephemeralContainers ?? []).length > 0)
    causes.forbidden('template.spec.ephemeralContainers', 'ephemeral containers not allowed in pod template');
  return causes;
}

export const podTemplateDef = defineKind({
  group: '',
  kind: 'PodTemplate',
  namespaced: true,
  schema,
  zeroValue: () => ({ template: { metadata: {}, spec: { containers: null } } }),
  table: printed('podTemplate', {
    ...templateCells(templateOf),
    'Pod Labels': (o) => formatLabels(templateOf(o)?.metadata?.labels),
  }),
  prepare,
  validate: validatePodTemplate,
  validateUpdate: validatePodTemplate,
  tracksGeneration: true,
});
