// Helpers shared by kind strategies.
import type { StatusCause } from '../../errors/status.ts';
import { normalizeBySchema } from '../../schema/normalize.ts';
import type { Schema } from '../../schema/types.ts';
import { validLabelKey, validLabelValue } from '../../selectors/labels.ts';
import type { KObject } from '../../storage/types.ts';
import { nameProblem } from '../validation.ts';

export {
  canonicalQuantity,
  microTime,
  normalizeBySchema,
  normalizeMicroTime,
  normalizeQuantity,
  normalizeQuantityMap,
  normalizeTime,
  parseQuantity,
  quantity,
  quantityValue,
} from '../../schema/normalize.ts';

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
export const CLUSTER_VERBS = ALL_VERBS;

/** Human age as kubectl prints it (`5s`, `3m`, `2h`, `4d`). */
export function age(o: KObject, now = Date.now()): string {
  return since(o.metadata.creationTimestamp, now);
}

/** Time elapsed since a timestamp, as kubectl prints ages; `<unknown>` when unset. */
export function since(ts: string | undefined, now = Date.now()): string {
  const t = Date.parse(ts ?? '');
  if (!Number.isFinite(t)) return '<unknown>';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60 * 3) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

export type Rec = Record<string, unknown>;
export const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export function get(o: unknown, path: string): unknown {
  let cur = o;
  for (const k of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

export function str(v: unknown): string | undefined {
  return v === undefined || v === null ? undefined : String(v);
}

// ------------------------------------------------------------------ field errors
// Causes shaped as Kubernetes' field errors print them (`Invalid value: "x": detail`).

/** A value as Go's field errors print it: strings quoted, numbers bare, lists and maps in Go syntax. */
export function goValue(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string'))
    return `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
  if (typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string')) {
    const keys = Object.keys(v).sort();
    return `map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify((v as Record<string, string>)[k])}`).join(', ')}}`;
  }
  return JSON.stringify(v);
}

export const fieldErr = {
  required: (field: string, detail = ''): StatusCause => ({
    reason: 'FieldValueRequired',
    field,
    message: detail ? `Required value: ${detail}` : 'Required value',
  }),
  invalid: (field: string, value: unknown, detail: string): StatusCause =>
    fieldErr.invalidShown(field, goValue(value), detail),
  /** An invalid value that the caller has already printed (as Go would print its type). */
  invalidShown: (field: string, shown: string, detail: string): StatusCause => ({
    reason: 'FieldValueInvalid',
    field,
    message: `Invalid value: ${shown}: ${detail}`,
  }),
  duplicate: (field: string, value: unknown): StatusCause => ({
    reason: 'FieldValueDuplicate',
    field,
    message: `Duplicate value: ${goValue(value)}`,
  }),
  notSupported: (field: string, value: unknown, supported: string[]): StatusCause => ({
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${goValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  }),
  forbidden: (field: string, detail: string): StatusCause => ({
    reason: 'FieldValueForbidden',
    field,
    message: `Forbidden: ${detail}`,
  }),
  notFound: (field: string, value: unknown): StatusCause => ({
    reason: 'FieldValueNotFound',
    field,
    message: `Not found: ${goValue(value)}`,
  }),
  tooLong: (field: string, max: number): StatusCause => ({
    reason: 'FieldValueTooLong',
    field,
    message: `Too long: may not be longer than ${max}`,
  }),
};

/**
 * A validator's causes, in order, with the field errors added by name:
 * `causes.invalid(field, value, detail)` is `causes.push(fieldErr.invalid(field, value, detail))`.
 */
export class Causes extends Array<StatusCause> {
  required(field: string, detail?: string): void {
    this.push(fieldErr.required(field, detail));
  }
  invalid(field: string, value: unknown, detail: string): void {
    this.push(fieldErr.invalid(field, value, detail));
  }
  invalidShown(field: string, shown: string, detail: string): void {
    this.push(fieldErr.invalidShown(field, shown, detail));
  }
  duplicate(field: string, value: unknown): void {
    this.push(fieldErr.duplicate(field, value));
  }
  notSupported(field: string, value: unknown, supported: string[]): void {
    this.push(fieldErr.notSupported(field, value, supported));
  }
  /** `Unsupported value` unless the value is one of `supported`. */
  oneOf(field: string, value: unknown, supported: string[]): void {
    if (!supported.includes(value as string)) this.notSupported(field, value, supported);
  }
  forbidden(field: string, detail: string): void {
    this.push(fieldErr.forbidden(field, detail));
  }
  notFound(field: string, value: unknown): void {
    this.push(fieldErr.notFound(field, value));
  }
  tooLong(field: string, max: number): void {
    this.push(fieldErr.tooLong(field, max));
  }
}

/** A validator's causes that start with those of `lists`, in order. */
export function causesOf(...lists: StatusCause[][]): Causes {
  const causes = new Causes();
  for (const l of lists) causes.push(...l);
  return causes;
}

/** A value that must be set and be one of `allowed`: `Required value`, else `Unsupported value`. */
export function requiredOneOf(field: string, value: string | undefined, allowed: string[]): StatusCause[] {
  if (value === undefined) return [fieldErr.required(field)];
  return allowed.includes(value) ? [] : [fieldErr.notSupported(field, value, allowed)];
}

/** `field is immutable` when the value changed (deep comparison of JSON values). */
export function immutable(field: string, now: unknown, before: unknown): StatusCause[] {
  return JSON.stringify(canonical(now)) === JSON.stringify(canonical(before))
    ? []
    : [fieldErr.invalid(field, now, 'field is immutable')];
}

/** A JSON value with its maps' keys sorted and the members `dropped` says to leave out. */
export function canonical(v: unknown, dropped = (x: unknown): boolean => x === undefined): unknown {
  if (Array.isArray(v)) return v.map((x) => canonical(x, dropped));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (!dropped(x)) out[k] = canonical(x, dropped);
    }
    return out;
  }
  return v;
}

export function dnsLabel(field: string, v: string): StatusCause[] {
  const p = nameProblem(v, 'label');
  return p ? [fieldErr.invalid(field, v, p)] : [];
}

export function dnsSubdomain(field: string, v: string): StatusCause[] {
  const p = nameProblem(v, 'subdomain');
  return p ? [fieldErr.invalid(field, v, p)] : [];
}

/** IANA service name (a port name): at most 15 characters, lower case, digits and '-', one letter at least. */
export function ianaSvcName(field: string, v: string): Causes {
  const out = new Causes();
  if (v.length > 15) out.invalid(field, v, 'must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(v))
    out.invalid(field, v, 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (v.includes('--')) out.invalid(field, v, 'must not contain consecutive hyphens');
  if (/^-|-$/.test(v)) out.invalid(field, v, 'must not begin or end with a hyphen');
  if (!/[a-z]/.test(v)) out.invalid(field, v, 'must contain at least one letter (a-z)');
  return out;
}

/** A label key (qualified name) such as `orch.io/hostname`. */
export function qualifiedName(field: string, v: string): StatusCause[] {
  const p = validLabelKey(v);
  return p ? [fieldErr.invalid(field, v, p)] : [];
}

/** Keys and values of a label map (selectors, node selectors, template labels). */
export function labelMap(field: string, m: unknown): Causes {
  const out = new Causes();
  for (const [k, v] of Object.entries((m as Record<string, unknown>) ?? {})) {
    const kp = validLabelKey(k);
    if (kp) out.invalid(field, k, kp);
    const vp = typeof v === 'string' ? validLabelValue(v) : 'must be a string';
    if (vp) out.invalid(`${field}[${k}]`, v, vp);
  }
  return out;
}

export function portNumber(field: string, v: unknown): StatusCause[] {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535)
    return [fieldErr.invalid(field, v, 'must be between 1 and 65535, inclusive')];
  return [];
}

export function nonNegative(field: string, v: unknown): StatusCause[] {
  return typeof v === 'number' && v < 0
    ? [fieldErr.invalid(field, v, 'must be greater than or equal to 0')]
    : [];
}

// ------------------------------------------------------------------ label selectors (metav1.LabelSelector)

export interface LabelSelectorObj {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key?: string; operator?: string; values?: string[] }[];
}

export function validateLabelSelector(field: string, sel: LabelSelectorObj | undefined): Causes {
  if (!sel) return new Causes();
  const out = labelMap(`${field}.matchLabels`, sel.matchLabels);
  (sel.matchExpressions ?? []).forEach((e, i) => {
    const p = `${field}.matchExpressions[${i}]`;
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          out.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'");
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          out.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
        break;
      default:
        out.invalid(`${p}.operator`, e.operator ?? '', 'not a valid selector operator');
    }
    out.push(...qualifiedName(`${p}.key`, e.key ?? ''));
  });
  return out;
}

export function selectorMatches(
  sel: LabelSelectorObj | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (!sel) return false;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = e.key !== undefined && Object.hasOwn(l, e.key);
    const val = has ? l[e.key!] : undefined;
    switch (e.operator) {
      case 'In':
        if (!has || !(e.values ?? []).includes(val!)) return false;
        break;
      case 'NotIn':
        if (has && (e.values ?? []).includes(val!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

export function selectorIsEmpty(sel: LabelSelectorObj | undefined): boolean {
  return (
    !sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0)
  );
}

/** A label selector in the query syntax (`a=b,c in (x,y),!d`), requirements sorted by key as Kubernetes prints them. */
export function formatLabelSelector(sel: LabelSelectorObj | undefined): string {
  if (!sel) return '';
  const reqs: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, text: `${k}=${v}` });
  for (const e of sel.matchExpressions ?? []) {
    const k = e.key ?? '';
    const vals = [...(e.values ?? [])].sort().join(',');
    const text =
      e.operator === 'In'
        ? `${k} in (${vals})`
        : e.operator === 'NotIn'
          ? `${k} notin (${vals})`
          : e.operator === 'Exists'
            ? k
            : `!${k}`;
    reqs.push({ key: k, text });
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(',');
}

/** A label map as `k=v,k2=v2` (sorted), or `<none>`. */
export function formatLabels(m: Record<string, string> | undefined): string {
  const keys = Object.keys(m ?? {}).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${m![k]}`).join(',');
}

/** What an update of the main resource may not change: the status stays as stored (or absent). */
export function keepStoredStatus(o: KObject, old: KObject): void {
  if (old.status === undefined) delete o.status;
  else o.status = old.status;
}

/**
 * The prepare hooks of a kind whose status is the status subresource's: `prepare` (if any) on
 * create and update, a new object's status `fresh()` (none when undefined), an update's status as stored.
 */
export function specStatusHooks(
  prepare: ((o: KObject) => void) | undefined,
  fresh: () => Record<string, unknown> | undefined = () => ({}),
): { prepareForCreate(o: KObject): void; prepareForUpdate(o: KObject, old: KObject): void } {
  return {
    prepareForCreate(o) {
      prepare?.(o);
      const status = fresh();
      if (status === undefined) delete o.status;
      else o.status = status;
    },
    prepareForUpdate(o, old) {
      prepare?.(o);
      keepStoredStatus(o, old);
    },
  };
}

/** What the status subresource may change: status only (the rest, metadata included, stays as stored). */
export function keepAllButStatus(o: KObject, old: KObject): void {
  const status = o.status;
  const rv = o.metadata.resourceVersion;
  for (const k of Object.keys(o)) delete o[k];
  for (const [k, v] of Object.entries(old)) if (k !== 'status') o[k] = v;
  o.metadata = { ...old.metadata, resourceVersion: rv };
  if (status !== undefined) o.status = status;
}

/**
 * The status update of a kind whose status is written by clients as it is: all but the status
 * stays as stored, and the object is normalized by the kind's schema.
 */
export function schemaStatusUpdate(
  schema: Schema | undefined,
  kind: string,
): (o: KObject, old: KObject) => void {
  return (o, old) => {
    keepAllButStatus(o, old);
    normalizeBySchema(o, schema, kind);
  };
}

/** The object reference schema (`ObjectReference`). */
export const objectReferenceFields = {
  kind: { type: 'string' },
  namespace: { type: 'string' },
  name: { type: 'string' },
  uid: { type: 'string' },
  apiVersion: { type: 'string' },
  resourceVersion: { type: 'string' },
  fieldPath: { type: 'string' },
} satisfies Record<string, Schema>;

/** An object reference as its schema above describes it. */
export type ObjectReference = { [K in keyof typeof objectReferenceFields]?: string };
