// PodDisruptionBudget (policy/v1) with the `status` subresource, validated as Kubernetes 1.28
// does: minAvailable or maxUnavailable (not both), each a non-negative integer or a percent of
// at most 100%. doc2's field change for policy/v1: an empty `spec.selector` selects every pod
// of the namespace; an unset one selects none (`selectsPod`, which the eviction subresource
// uses). No disruption controller runs here: status is what a client writes.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import {
  Causes,
  keepStoredStatus,
  type LabelSelectorObj,
  nonNegative,
  schemaStatusUpdate,
  selectorMatches,
  validateLabelSelector,
} from './common.ts';
import { defineKind, printed } from './define.ts';

const schema = builtinSchema('policy/v1', 'PodDisruptionBudget');

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];
const STATUS_COUNTS = ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const;

export interface PdbSpec {
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  selector?: LabelSelectorObj;
  unhealthyPodEvictionPolicy?: string;
}

export interface PdbStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  conditions?: {
    type: string;
    status: string;
    reason?: string;
    message?: string;
    observedGeneration?: number;
    lastTransitionTime?: string;
  }[];
}

export const pdbSpecOf = (o: KObject) => (o.spec ?? {}) as PdbSpec;
export const pdbStatusOf = (o: KObject) => (o.status ?? {}) as PdbStatus;

/**
 * Whether the budget covers a pod with these labels (policy/v1): an unset selector selects
 * none; an empty one selects all pods of the namespace.
 */
export function selectsPod(pdb: KObject, labels: Record<string, string> | undefined): boolean {
  const sel = pdbSpecOf(pdb).selector;
  if (!sel) return false;
  return selectorMatches(sel, labels);
}

/** An int-or-string as Go prints the struct in a field error. */
function goIntOrString(v: number | string): string {
  return typeof v === 'number'
    ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`
    : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}`;
}

function intOrPercent(field: string, v: number | string | undefined): StatusCause[] {
  if (v === undefined) return [];
  if (typeof v === 'number') return nonNegative(field, v);
  const invalid = (detail: string): StatusCause => ({
    reason: 'FieldValueInvalid',
    field,
    message: `Invalid value: ${goIntOrString(v)}: ${detail}`,
  });
  const m = /^(\d+)%$/.exec(v);
  if (!m)
    return [
      invalid(
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ),
    ];
  return Number(m[1]) > 100 ? [invalid('must not be greater than 100%')] : [];
}

function validatePdb(o: KObject): StatusCause[] {
  const spec = pdbSpecOf(o);
  const causes = new Causes();
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined)
    causes.invalidShown('spec', 'the spec', 'minAvailable and maxUnavailable cannot be both set');
  causes.push(...intOrPercent('spec.minAvailable', spec.minAvailable));
  causes.push(...intOrPercent('spec.maxUnavailable', spec.maxUnavailable));
  causes.push(...validateLabelSelector('spec.selector', spec.selector));
  if (
    spec.unhealthyPodEvictionPolicy !== undefined &&
    !EVICTION_POLICIES.includes(spec.unhealthyPodEvictionPolicy)
  )
    causes.notSupported(
      'spec.unhealthyPodEvictionPolicy',
      spec.unhealthyPodEvictionPolicy,
      EVICTION_POLICIES,
    );
  const st = pdbStatusOf(o);
  for (const f of STATUS_COUNTS) causes.push(...nonNegative(`status.${f}`, st[f]));
  const seen = new Set<string>();
  (st.conditions ?? []).forEach((c, i) => {
    const f = `status.conditions[${i}]`;
    if (!c.type) causes.required(`${f}.type`);
    else if (seen.has(c.type)) causes.duplicate(`${f}.type`, c.type);
    else seen.add(c.type);
    if (!['True', 'False', 'Unknown'].includes(c.status))
      causes.notSupported(`${f}.status`, c.status ?? '', ['False', 'True', 'Unknown']);
  });
  return causes;
}

/** A status as Go decodes one: the four counts are plain int32 fields (0 when absent). */
function fillStatus(o: KObject): void {
  const st = (o.status ?? {}) as PdbStatus;
  for (const f of STATUS_COUNTS) st[f] ??= 0;
  o.status = st;
}

const valueOrNA = (v: number | string | undefined) => (v === undefined ? 'N/A' : String(v));

export const podDisruptionBudgetDef = defineKind({
  group: 'policy',
  kind: 'PodDisruptionBudget',
  namespaced: true,
  shortNames: ['pdb'],
  subresources: ['status'],
  schema,
  zeroValue: () => ({
    status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
  }),
  prepareForCreate(o) {
    o.spec ??= {};
    o.status = {};
    fillStatus(o);
  },
  prepareForUpdate(o, old) {
    o.spec ??= {};
    keepStoredStatus(o, old);
  },
  prepareForStatusUpdate(o, old) {
    schemaStatusUpdate(schema, 'PodDisruptionBudget')(o, old);
    fillStatus(o);
  },
  validate: validatePdb,
  table: printed('podDisruptionBudget', {
    'Min Available': (o) => valueOrNA(pdbSpecOf(o).minAvailable),
    'Max Unavailable': (o) => valueOrNA(pdbSpecOf(o).maxUnavailable),
    'Allowed Disruptions': 'status.disruptionsAllowed',
  }),
  tracksGeneration: true,
});
