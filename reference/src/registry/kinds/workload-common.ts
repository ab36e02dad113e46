// What the workload kinds (Deployment, ReplicaSet, DaemonSet, StatefulSet, ReplicationController)
// share: the selector that must select the pod template, the template's own checks, the
// immutable selector of the apps/v1 kinds, status counters, the `scale` subresource and the
// container cells of their tables. Messages are Kubernetes 1.28's.
import type { StatusCause } from '../../errors/status.ts';
import type { Schema } from '../../schema/types.ts';
import { validLabelKey } from '../../selectors/labels.ts';
import type { KObject } from '../../storage/types.ts';
import type { ScaleAccess } from '../types.ts';
import {
  Causes,
  canonical,
  fieldErr,
  formatLabelSelector,
  keepStoredStatus,
  type LabelSelectorObj,
  labelMap,
  nonNegative,
  schemaStatusUpdate,
  selectorIsEmpty,
  selectorMatches,
  validateLabelSelector,
} from './common.ts';
import type { Cell } from './define.ts';
import type { PodSpec } from './pod-spec.ts';
import { validatePodSpec } from './pod-spec-validation.ts';

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: PodSpec;
}

// ------------------------------------------------------------------ selector and template

/**
 * A `metav1.LabelSelector` that must be set, valid, not empty, and select the template's labels.
 * `word` names the kind in the empty-selector message (`deployment`, which ReplicaSet uses
 * too, `daemonset`, `statefulset`). A missing selector selects nothing, so the template's
 * labels are reported as not matching too.
 */
export function validateSelectorForTemplate(
  spec: { selector?: LabelSelectorObj | null; template?: PodTemplate },
  word: 'deployment' | 'daemonset' | 'statefulset',
): StatusCause[] {
  const causes = new Causes();
  const sel = spec.selector ?? undefined;
  // a daemon set has no required-value check of its own: its missing selector matches nothing
  if (!sel && word !== 'daemonset') causes.required('spec.selector');
  if (sel) {
    causes.push(...validateLabelSelector('spec.selector', sel));
    if (selectorIsEmpty(sel))
      causes.invalidShown('spec.selector', goSelector(sel), `empty selector is invalid for ${word}`);
  }
  // an empty selector selects everything; a missing one selects nothing
  const labels = spec.template?.metadata?.labels;
  if ((!sel || !selectorIsEmpty(sel)) && !selectorMatches(sel, labels))
    causes.push(templateLabelsMismatch(labels));
  return causes;
}

/** The template labels a selector does not select. */
export function templateLabelsMismatch(labels: Record<string, string> | undefined): StatusCause {
  return {
    reason: 'FieldValueInvalid',
    field: 'spec.template.metadata.labels',
    message: `Invalid value: ${goLabels(labels)}: \`selector\` does not match template \`labels\``,
  };
}

/**
 * A workload's pod template (Kubernetes' ValidatePodTemplateSpec and the workload checks after
 * it): labels, the pod spec, `restartPolicy` Always only, no `activeDeadlineSeconds`, no
 * ephemeral containers. `kind` names the kind in the activeDeadlineSeconds message.
 */
export function validateWorkloadTemplate(
  template: PodTemplate | undefined,
  path: string,
  kind: string,
): StatusCause[] {
  const causes = new Causes();
  causes.push(...labelMap(`${path}.labels`, template?.metadata?.labels));
  causes.push(...templateAnnotations(`${path}.annotations`, template?.metadata?.annotations));
  const podSpec = template?.spec ?? {};
  causes.push(...validatePodSpec(podSpec, `${path}.spec`, { restartPolicies: ['Always'] }));
  if ((podSpec.ephemeralContainers ?? []).length > 0)
    causes.forbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template');
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null)
    causes.forbidden(
      `${path}.spec.activeDeadlineSeconds`,
      `activeDeadlineSeconds in ${kind} is not Supported`,
    );
  return causes;
}

/** A template's annotations (Kubernetes' ValidateAnnotations): qualified-name keys, 256 KiB in all. */
export function templateAnnotations(field: string, m: Record<string, string> | undefined): StatusCause[] {
  const entries = Object.entries(m && typeof m === 'object' ? m : {});
  const causes = new Causes();
  for (const [k] of entries) {
    const p = validLabelKey(k.toLowerCase());
    if (p) causes.invalid(field, k, p);
  }
  if (entries.reduce((n, [k, v]) => n + k.length + String(v).length, 0) > 256 * 1024)
    causes.push({ reason: 'FieldValueTooLong', field, message: 'Too long: must have at most 262144 bytes' });
  return causes;
}

/** apps/v1 kinds may not change their selector (Kubernetes' ValidateImmutableField on `spec.selector`). */
export function immutableSelector(
  now: LabelSelectorObj | null | undefined,
  before: LabelSelectorObj | null | undefined,
): StatusCause[] {
  if (JSON.stringify(canonical(now ?? null, empty)) === JSON.stringify(canonical(before ?? null, empty)))
    return [];
  return [
    {
      reason: 'FieldValueInvalid',
      field: 'spec.selector',
      // a removed selector prints as Go prints a nil pointer's value, quoted
      message: `Invalid value: ${now ? goSelector(now) : '"null"'}: field is immutable`,
    },
  ];
}

// an empty map or list is the same selector as none (Go's semantic equality)
const empty = (x: unknown) =>
  x === undefined ||
  x === null ||
  (Array.isArray(x) && x.length === 0) ||
  (typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length === 0);

/** A label selector as Go prints the struct in an `Invalid value`. */
export function goSelector(sel: LabelSelectorObj): string {
  const ml = sel.matchLabels ? goLabels(sel.matchLabels) : 'map[string]string(nil)';
  const me = sel.matchExpressions?.length
    ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions
        .map(
          (e) =>
            `v1.LabelSelectorRequirement{Key:${JSON.stringify(e.key ?? '')}, Operator:${JSON.stringify(e.operator ?? '')}, Values:[]string{${(e.values ?? []).map((v) => JSON.stringify(v)).join(', ')}}}`,
        )
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${ml}, MatchExpressions:${me}}`;
}

/** A label map as Go prints it (`map[string]string{"a":"b"}`, `map[string]string(nil)` when unset). */
export function goLabels(m: Record<string, string> | undefined | null): string {
  if (!m) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`).join(', ')}}`;
}

// ------------------------------------------------------------------ int-or-percent values

const PERCENT_MESSAGE =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** An integer at least 0, or `N%` (Kubernetes' ValidatePositiveIntOrPercent). */
export function positiveIntOrPercent(field: string, v: number | string | undefined | null): StatusCause[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'number') return nonNegative(field, v);
  return /^[0-9]+%$/.test(v) ? [] : [fieldErr.invalid(field, v, PERCENT_MESSAGE)];
}

/** A percentage may not be above 100% (integers are not checked). */
export function notMoreThan100Percent(field: string, v: number | string | undefined | null): StatusCause[] {
  if (typeof v !== 'string' || !/^[0-9]+%$/.test(v)) return [];
  return Number(v.slice(0, -1)) > 100 ? [fieldErr.invalid(field, v, 'must not be greater than 100%')] : [];
}

/** The number an int-or-percent stands for as Kubernetes compares it with 0 (a percent's number; else the integer). */
export function intOrPercentValue(v: number | string | undefined | null): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  const s = /^[0-9]+%$/.test(v) ? v.slice(0, -1) : v;
  const n = Number.parseInt(s, 10);
  return Number.isFinite(n) && String(n) === s ? n : 0;
}

// ------------------------------------------------------------------ status

/** Counters of a status that may not be negative. */
export function nonNegativeCounters(status: Record<string, unknown>, fields: string[]): StatusCause[] {
  return fields.flatMap((f) => nonNegative(`status.${f}`, status[f]));
}

/** `cannot be greater than status.replicas` for each counter above the replica count. */
export function notAboveReplicas(status: Record<string, unknown>, fields: string[]): StatusCause[] {
  const replicas = num(status.replicas);
  return fields
    .filter((f) => num(status[f]) > replicas)
    .map((f) => fieldErr.invalid(`status.${f}`, status[f], 'cannot be greater than status.replicas'));
}

/** A status update may not lower `collisionCount` (nor unset it). */
export function collisionCountNotDecremented(
  status: Record<string, unknown>,
  old: Record<string, unknown>,
): StatusCause[] {
  if (old.collisionCount === undefined || old.collisionCount === null) return [];
  const now = status.collisionCount;
  if (now !== undefined && now !== null && num(now) >= num(old.collisionCount)) return [];
  return [fieldErr.invalid('status.collisionCount', now ?? 0, 'cannot be decremented')];
}

const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** Counters Go always writes (no `omitempty`): absent ones read as 0. */
export function zeroCounters(status: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  for (const f of fields) if (status[f] === undefined || status[f] === null) status[f] = 0;
  return status;
}

/**
 * The status update of a workload with counters: all but the status is kept from storage, the
 * status is normalized by the kind's schema and the counters Go always writes read 0 when unset.
 */
export function zeroingStatusUpdate(
  schema: Schema | undefined,
  kind: string,
  zeroes: string[],
): (o: KObject, old: KObject) => void {
  const update = schemaStatusUpdate(schema, kind);
  return (o, old) => {
    update(o, old);
    o.status = zeroCounters((o.status ?? {}) as Record<string, unknown>, zeroes);
  };
}

/**
 * The prepare hooks of a workload with no controller behind it: `prepare` fills the spec's
 * defaults (given the stored object on update); a new object starts with zeroed counters, an
 * update keeps the stored status, a status update is `zeroingStatusUpdate`'s.
 */
export function counterStatusHooks(
  prepare: (o: KObject, old?: KObject) => void,
  schema: Schema | undefined,
  kind: string,
  zeroes: string[],
): {
  prepareForCreate(o: KObject): void;
  prepareForUpdate(o: KObject, old: KObject): void;
  prepareForStatusUpdate(o: KObject, old: KObject): void;
} {
  return {
    prepareForCreate(o) {
      prepare(o);
      o.status = zeroCounters({}, zeroes);
    },
    prepareForUpdate(o, old) {
      prepare(o, old);
      keepStoredStatus(o, old);
    },
    prepareForStatusUpdate: zeroingStatusUpdate(schema, kind, zeroes),
  };
}

// ------------------------------------------------------------------ scale subresource

/**
 * The `scale` subresource of a kind with `spec.replicas` and `status.replicas`: the Scale's
 * selector is what `selector` prints for the object.
 */
export function replicasScale(selector: (o: KObject) => string): ScaleAccess {
  return {
    toScale(o) {
      const m = o.metadata;
      const replicas = ((o.spec ?? {}) as { replicas?: number }).replicas ?? 0;
      const status: Record<string, unknown> = {
        replicas: ((o.status ?? {}) as { replicas?: number }).replicas ?? 0,
      };
      const sel = selector(o);
      if (sel) status.selector = sel;
      return {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: {
          name: m.name,
          namespace: m.namespace,
          uid: m.uid,
          resourceVersion: m.resourceVersion,
          creationTimestamp: m.creationTimestamp,
        },
        spec: replicas ? { replicas } : {},
        status,
      };
    },
    setReplicas(o, replicas) {
      o.spec = { ...(o.spec as object), replicas };
    },
    patchTypes: [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ],
  };
}

/** The Scale selector of an apps/v1 kind: its label selector in the query syntax. */
export const labelSelectorOfSpec = (o: KObject): string =>
  formatLabelSelector(((o.spec ?? {}) as { selector?: LabelSelectorObj }).selector);

// ------------------------------------------------------------------ table cells

/**
 * The Containers and Images cells (each container's name or image, joined by commas) of a kind
 * with a pod template, and its Selector cell when given.
 */
export function templateCells(
  template: (o: KObject) => PodTemplate | undefined,
  selector?: (o: KObject) => string,
): Record<string, Cell> {
  const each = (f: 'name' | 'image') => (o: KObject) =>
    (template(o)?.spec?.containers ?? []).map((c) => c[f] ?? '').join(',');
  return { Containers: each('name'), Images: each('image'), ...(selector && { Selector: selector }) };
}

/** `metav1.FormatLabelSelector`: the selector in the query syntax, `<none>` when it selects everything. */
export function printSelector(sel: LabelSelectorObj | undefined | null): string {
  return formatLabelSelector(sel ?? undefined) || '<none>';
}
