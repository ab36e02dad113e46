// Schema-driven normalisation of decoded objects: quantities and times as Kubernetes
// re-encodes them, null fields dropped.
import { errors as statusErrors } from '../errors/status.ts';
import type { Schema } from './types.ts';

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
 * Walks an object along its schema: drops null fields (Go decodes them as unset), makes null
 * items of lists of structures empty structures (as Go decodes them), normalizes times and
 * quantities. Skips `metadata` at the top level (server-owned parts live there).
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
    // a null item of a list of structures decodes in Go as the zero structure
    const structs = s.items.type === 'object' || s.items.properties !== undefined;
    for (let i = 0; i < v.length; i++)
      v[i] = v[i] === null && structs ? {} : normalizeBySchema(v[i], s.items, kind, false);
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
