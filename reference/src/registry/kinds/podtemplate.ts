// PodTemplate (core v1): a named pod template, checked as a pod's spec is (any restart policy)
// and given a pod's defaults. No status; any template change raises the generation. Schema: the
// one a 1.28 server publishes.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import type { ResourceDef } from '../types.ts';
import { ALL_VERBS, fieldErr, formatLabels, labelMap, NAME_COLUMN, normalizeBySchema } from './common.ts';
import { defaultPodSpec, validatePodSpec } from './pod-spec.ts';
import { containerColumns, type PodTemplate, templateAnnotations } from './workload-common.ts';

const schema = builtinSchema('v1', 'PodTemplate');

const templateOf = (o: KObject) => (o.template ?? undefined) as PodTemplate | undefined;

function prepare(o: KObject): void {
  normalizeBySchema(o, schema, 'PodTemplate');
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
    causes.push(
      fieldErr.forbidden(
        'template.spec.ephemeralContainers',
        'ephemeral containers not allowed in pod template',
      ),
    );
  return causes;
}

export const podTemplateDef: ResourceDef = {
  group: '',
  versions: ['v1'],
  kind: 'PodTemplate',
  listKind: 'PodTemplateList',
  plural: 'podtemplates',
  singular: 'podtemplate',
  namespaced: true,
  verbs: ALL_VERBS,
  subresources: [],
  schema,
  strategy: {
    zeroValue: () => ({ template: { metadata: {}, spec: { containers: null } } }),
    allowUnconditionalUpdate: true,
    table: [
      NAME_COLUMN,
      ...containerColumns(templateOf, 0),
      {
        name: 'Pod Labels',
        type: 'string',
        description: 'More info: http://kubernetes.io/docs/user-guide/labels',
        cell: (o) => formatLabels(templateOf(o)?.metadata?.labels),
      },
    ],
    prepareForCreate: prepare,
    prepareForUpdate: (o) => prepare(o),
    validate: validatePodTemplate,
    validateUpdate: validatePodTemplate,
  },
};
