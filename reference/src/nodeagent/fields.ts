// The fields of a node agent configuration file (doc3 § Node agent configuration): one
// definition per field with its type, default and the single-field constraints (ranges,
// allowed values, formats). Loading, defaulting, validation and the JSON schema all read this
// table. `row` quotes the doc3 table row a field comes from; `beyond` says what follows the
// kubelet 1.28 where the text leaves a value out ("not shown").

import type { FieldDef } from './field-def.ts';
import { RESOURCE_FIELDS } from './fields-resources.ts';
import { SERVING_FIELDS } from './fields-serving.ts';

export { EVICTION_SIGNALS, type FieldDef, type FieldKind, type Format } from './field-def.ts';

export const API_VERSION = 'nodeagent.config.orch.io/v1beta1';
export const KIND = 'NodeAgentConfiguration';

export const FIELDS: readonly FieldDef[] = [...SERVING_FIELDS, ...RESOURCE_FIELDS];

/** The names of the original interface that this one renames (unknown fields here). */
export const RENAMED: Readonly<Record<string, string>> = {
  kubeletCgroups: 'agentCgroups',
  kubeAPIQPS: 'orchAPIQPS',
  kubeAPIBurst: 'orchAPIBurst',
  kubeReserved: 'orchReserved',
  kubeReservedCgroup: 'orchReservedCgroup',
};
