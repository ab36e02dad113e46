// Helpers shared by kind strategies.
import type { TableColumn } from '../types.ts';
import type { KObject } from '../../storage/types.ts';
import type { StatusCause } from '../../errors/status.ts';
import { errors as statusErrors } from '../../errors/status.ts';
import type { Schema } from '../../schema/types.ts';
import { validLabelKey, validLabelValue } from '../../selectors/labels.ts';
import { nameProblem } from '../validation.ts';

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

export const NAME_COLUMN: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  cell: (o) => o.metadata.name ?? '',
};

export const AGE_COLUMN: TableColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (o) => age(o),
};

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
  invalid: (field: string, value: unknown, detail: string): StatusCause => ({
    reason: 'FieldValueInvalid',
    field,
    message: `Invalid value: ${goValue(value)}: ${detail}`,
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

/** `field is immutable` when the value changed (deep comparison of JSON values). */
export function immutable(field: string, now: unknown, before: unknown): StatusCause[] {
  return JSON.stringify(canonical(now)) === JSON.stringify(canonical(before))
    ? []
    : [fieldErr.invalid(field, now, 'field is immutable')];
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = canonical(x);
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
export function ianaSvcName(field: string, v: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (v.length > 15) out.push(fieldErr.invalid(field, v, 'must be no more than 15 characters'));
  if (!/^[-a-z0-9]+$/.test(v))
    out.push(
      fieldErr.invalid(field, v, 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'),
    );
  if (v.includes('--')) out.push(fieldErr.invalid(field, v, 'must not contain consecutive hyphens'));
  if (/^-|-$/.test(v)) out.push(fieldErr.invalid(field, v, 'must not begin or end with a hyphen'));
  if (!/[a-z]/.test(v)) out.push(fieldErr.invalid(field, v, 'must contain at least one letter (a-z)'));
  return out;
}

/** A label key (qualified name) such as `orch.io/hostname`. */
export function qualifiedName(field: string, v: string): StatusCause[] {
  const p = validLabelKey(v);
  return p ? [fieldErr.invalid(field, v, p)] : [];
}

/** Keys and values of a label map (selectors, node selectors, template labels). */
export function labelMap(field: string, m: unknown): StatusCause[] {
  const out: StatusCause[] = [];
  for (const [k, v] of Object.entries((m as Record<string, unknown>) ?? {})) {
    const kp = validLabelKey(k);
    if (kp) out.push(fieldErr.invalid(field, k, kp));
    const vp = typeof v === 'string' ? validLabelValue(v) : 'must be a string';
    if (vp) out.push(fieldErr.invalid(`${field}[${k}]`, v, vp));
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

export function validateLabelSelector(field: string, sel: LabelSelectorObj | undefined): StatusCause[] {
  if (!sel) return [];
  const out = labelMap(`${field}.matchLabels`, sel.matchLabels);
  (sel.matchExpressions ?? []).forEach((e, i) => {
    const p = `${field}.matchExpressions[${i}]`;
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          out.push(fieldErr.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          out.push(
            fieldErr.forbidden(
              `${p}.values`,
              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
          );
        break;
      default:
        out.push(fieldErr.invalid(`${p}.operator`, e.operator ?? '', 'not a valid selector operator'));
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

// ------------------------------------------------------------------ quantities

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const QUANTITY_RE_TEXT = "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const BIN: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DEC: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

interface ParsedQuantity {
  /** Value in units of 10^-9, rounded up. */
  nanos: bigint;
  format: 'BinarySI' | 'DecimalSI' | 'DecimalExponent';
}

export function parseQuantity(input: string): ParsedQuantity | undefined {
  const m = QUANTITY.exec(input.trim());
  if (!m) return undefined;
  const neg = m[1] === '-';
  const [intPart, fracPart = ''] = m[2]!.split('.');
  const suffix = m[3] ?? '';
  // value = (int.frac) * multiplier; work in units of 10^-(9+frac digits) then rescale
  const digits = BigInt((intPart || '0') + fracPart);
  let num = digits; // value * 10^fracLen
  let den = 10n ** BigInt(fracPart.length);
  let format: ParsedQuantity['format'] = 'DecimalSI';
  if (suffix in BIN) {
    format = 'BinarySI';
    num *= 1024n ** BigInt(BIN[suffix]!);
  } else if (/^[eE]/.test(suffix)) {
    format = 'DecimalExponent';
    const e = Number(suffix.slice(1));
    if (Math.abs(e) > 100) return undefined;
    if (e >= 0) num *= 10n ** BigInt(e);
    else den *= 10n ** BigInt(-e);
  } else {
    const e = DEC[suffix]!;
    if (e >= 0) num *= 10n ** BigInt(e);
    else den *= 10n ** BigInt(-e);
  }
  num *= 1_000_000_000n;
  let nanos = num / den;
  if (nanos * den !== num) nanos += 1n; // round up, as Kubernetes does below 1n
  return { nanos: neg ? -nanos : nanos, format };
}

/** The canonical string form of a quantity (Kubernetes' `Quantity.String()`). */
export function canonicalQuantity(q: ParsedQuantity): string {
  const { nanos } = q;
  if (nanos === 0n) return '0';
  const neg = nanos < 0n;
  const abs = neg ? -nanos : nanos;
  const sign = neg ? '-' : '';
  const ONE = 1_000_000_000n;
  if (q.format === 'BinarySI' && abs >= 1024n * ONE && abs % ONE === 0n) {
    let v = abs / ONE;
    let i = 0;
    const sfx = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
    while (i < 6 && v % 1024n === 0n) {
      v /= 1024n;
      i++;
    }
    return `${sign}${v}${sfx[i]}`;
  }
  // decimal: the largest power of 1000 that divides the value exactly
  let exp = -9;
  let v = abs;
  while (exp < 18 && v % 1000n === 0n) {
    v /= 1000n;
    exp += 3;
  }
  if (q.format === 'DecimalExponent') return `${sign}${v}${exp === 0 ? '' : `e${exp}`}`;
  const sfx: Record<number, string> = {
    [-9]: 'n',
    [-6]: 'u',
    [-3]: 'm',
    0: '',
    3: 'k',
    6: 'M',
    9: 'G',
    12: 'T',
    15: 'P',
    18: 'E',
  };
  return `${sign}${v}${sfx[exp]}`;
}

/** A quantity value from JSON (string or number) in canonical form; throws a 400 as decoding does. */
export function normalizeQuantity(v: unknown, kind: string): string {
  const text = typeof v === 'number' ? numberText(v) : String(v);
  const q = typeof v === 'string' || typeof v === 'number' ? parseQuantity(text) : undefined;
  if (!q)
    throw statusErrors.badRequest(
      `${kind} in version "v1" cannot be handled as a ${kind}: quantities must match the regular expression ${QUANTITY_RE_TEXT}`,
    );
  return canonicalQuantity(q);
}

function numberText(n: number): string {
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(9).replace(/\.?0+$/, '') : s;
}

/** Quantity value as a number (for comparisons). */
export function quantityValue(v: unknown): number {
  const q =
    typeof v === 'string'
      ? parseQuantity(v)
      : typeof v === 'number'
        ? parseQuantity(numberText(v))
        : undefined;
  return q ? Number(q.nanos) / 1e9 : 0;
}

/** Normalizes every value of a quantity map in place. */
export function normalizeQuantityMap(m: unknown, kind: string): void {
  if (!m || typeof m !== 'object') return;
  const r = m as Record<string, unknown>;
  for (const k of Object.keys(r))
    if (r[k] !== null && r[k] !== undefined) r[k] = normalizeQuantity(r[k], kind);
}

/** A quantity in a schema: a string or a number (OpenAPI one-of string, number; format `quantity`). */
export const quantity = (): Schema => ({ format: 'quantity' });

// ------------------------------------------------------------------ times

const MICRO = new WeakSet<Schema>();
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A `MicroTime` field (RFC 3339 with six fractional digits). */
export function microTime(): Schema {
  const s: Schema = { type: 'string', format: 'date-time' };
  MICRO.add(s);
  return s;
}

function parseTime(v: string): { ms: number; frac: string } | undefined {
  const m = RFC3339.exec(v);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (
    !Number.isFinite(ms) ||
    Number(mo) > 12 ||
    Number(d) > 31 ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 60
  )
    return undefined;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return { ms, frac: frac.slice(1) };
}

function timeError(kind: string, v: string, layout: string): never {
  throw statusErrors.badRequest(
    `${kind} in version "v1" cannot be handled as a ${kind}: parsing time ${JSON.stringify(v)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(v)} as ${JSON.stringify(layout)}`,
  );
}

/** `metav1.Time`: RFC 3339 in UTC, whole seconds. */
export function normalizeTime(v: string, kind: string): string {
  const t = parseTime(v);
  if (!t) timeError(kind, v, '2006-01-02T15:04:05Z07:00');
  return new Date(t.ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `metav1.MicroTime`: RFC 3339 in UTC with six fractional digits. */
export function normalizeMicroTime(v: string, kind: string): string {
  const t = parseTime(v);
  if (!t) timeError(kind, v, '2006-01-02T15:04:05.000000Z07:00');
  const base = new Date(t.ms).toISOString().replace(/\.\d{3}Z$/, '');
  return `${base}.${(t.frac + '000000').slice(0, 6)}Z`;
}

/**
 * Walks an object along its schema: drops null fields (Go decodes them as unset), normalizes
 * times and quantities. Skips `metadata` at the top level (server-owned parts live there).
 */
export function normalizeBySchema(v: unknown, s: Schema | undefined, kind: string, top = true): unknown {
  if (v === null || v === undefined || !s) return v;
  if (s.format === 'quantity') return normalizeQuantity(v, kind);
  if (typeof v === 'string') {
    if (s.format === 'date-time') return MICRO.has(s) ? normalizeMicroTime(v, kind) : normalizeTime(v, kind);
    return v;
  }
  if (Array.isArray(v)) {
    if (!s.items) return v;
    for (let i = 0; i < v.length; i++) v[i] = normalizeBySchema(v[i], s.items, kind, false);
    return v;
  }
  if (typeof v !== 'object') return v;
  if (s['x-orch-preserve-unknown-fields'] && !s.properties) return v;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (top && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) continue;
    const child =
      s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    if (o[k] === null) {
      if (s.properties?.[k]) delete o[k];
      continue;
    }
    o[k] = normalizeBySchema(o[k], child, kind, false);
  }
  return v;
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
