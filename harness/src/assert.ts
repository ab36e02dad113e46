// Assertions that say what the spec requires, what was expected and what came back, in
// words a person implementing the server can act on.
import { missingControllerHint } from './controllers.ts';
import type { Response } from './client.ts';
import { describePlace, type SpecPlace } from './spec.ts';

export class ConformanceError extends Error {
  /** When it was made (performance.now()): a reproducer's failing step was sent before it. */
  readonly at = performance.now();

  constructor(
    readonly requirement: string,
    readonly expected: string,
    readonly actual: string,
    readonly hint?: string,
  ) {
    super(`${requirement}\n  Expected: ${expected}\n  Actual:   ${actual}${hint ? `\n  ${hint}` : ''}`);
    this.name = 'ConformanceError';
  }
}

let currentPlace: SpecPlace | undefined;
export function setCurrentPlace(p: SpecPlace | undefined): void {
  currentPlace = p;
}

function requirement(why?: string): string {
  const place = currentPlace ? describePlace(currentPlace) : 'spec';
  return why ? `${place}: ${why}` : place;
}

/** Fails with Expected/Actual unless `ok`. */
export function check(ok: boolean, expected: string, actual: string, why?: string): asserts ok {
  if (!ok) throw new ConformanceError(requirement(why), expected, actual);
}

export function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 400 ? `${s.slice(0, 400)}…` : s;
}

export function checkEqual<T>(actual: T, expected: T, why?: string): void {
  check(deepEqual(actual, expected), show(expected), show(actual), why);
}

/** The answer has this status code (and, when given, this Status reason). */
export function checkStatus(res: Response, code: number | number[], reason?: string, why?: string): void {
  const codes = Array.isArray(code) ? code : [code];
  const want = `${codes.join(' or ')}${reason ? ` with reason ${reason}` : ''}`;
  const actual = () => res.describe() + missingControllerHint(res.statusObj?.message);
  check(codes.includes(res.status), want, actual(), why);
  if (reason) check(res.statusObj?.reason === reason, want, actual(), why);
}

/** Among the answer's Status causes is one with this field (and reason, and a message containing `message`, when given). */
export function checkCause(
  res: Response,
  want: { field: string; reason?: string; message?: string },
  why?: string,
): void {
  const causes = res.statusObj?.details?.causes ?? [];
  const hit = causes.some(
    (c) =>
      c.field === want.field &&
      (!want.reason || c.reason === want.reason) &&
      (want.message === undefined || (typeof c.message === 'string' && c.message.includes(want.message))),
  );
  check(
    hit,
    `among the causes, one with field ${show(want.field)}${want.reason ? `, reason ${want.reason}` : ''}${want.message !== undefined ? ` and a message containing ${show(want.message)}` : ''}`,
    `${res.describe()} — causes: ${show(causes)}`,
    why,
  );
}

/** A 4xx/5xx answer carries a Status object with the fields Kubernetes sends. */
export function checkStatusObject(res: Response, why = 'every error is a Status object'): void {
  const s = res.statusObj;
  check(!!s, 'a Status object body', res.describe(), why);
  check(s!.apiVersion === 'v1', 'Status.apiVersion "v1"', show(s!.apiVersion), why);
  check(s!.status === 'Failure', 'Status.status "Failure"', show(s!.status), why);
  check(s!.code === res.status, `Status.code ${res.status}`, show(s!.code), why);
  check(
    typeof s!.message === 'string' && s!.message.length > 0,
    'a non-empty Status.message',
    show(s!.message),
    why,
  );
  check(typeof s!.reason === 'string', 'a Status.reason', show(s!.reason), why);
}

export function checkOk(res: Response, why?: string): void {
  check(res.status >= 200 && res.status < 300, '2xx', res.describe(), why);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ak = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bk = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    ak.length === bk.length &&
    ak.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

// ------------------------------------------------------------------------------- formats

/**
 * RFC 3339 § 5.6 date-time, by its grammar: full-date "T" full-time, with
 * date-fullyear "-" date-month "-" date-mday, time-hour ":" time-minute ":" time-second,
 * an optional "." 1*DIGIT fraction, and time-offset "Z" or ("+"/"-") time-hour ":" time-minute;
 * "T" and "Z" may be lower case. Ranges per § 5.6/5.7: month 01-12, mday within the month
 * (29 February in leap years only), hour 00-23, minute 00-59, second 00-60 (leap second).
 * Date.parse is no check: it takes "Nov 1 2020", "2020-11-01" and more.
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** The instant an RFC 3339 date-time names (ms since the epoch), or undefined when `s` is not one. */
export function parseRfc3339(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const days = [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mo < 1 || mo > 12 || d < 1 || d > days[mo - 1]!) return undefined;
  if (h > 23 || mi > 59 || sec > 60) return undefined;
  let offsetMin = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, Math.min(sec, 59), 0);
  const frac = m[7] ? Number(`0${m[7]}`) * 1000 : 0;
  return t.getTime() + frac - offsetMin * 60_000;
}

export function isRfc3339(s: unknown): s is string {
  return parseRfc3339(s) !== undefined;
}

/** Fails unless `v` is an RFC 3339 date-time (the grammar, not whatever Date.parse accepts). */
export function checkRfc3339(v: unknown, what: string, why?: string): asserts v is string {
  check(
    isRfc3339(v),
    `${what}: an RFC 3339 date-time (YYYY-MM-DDThh:mm:ss[.frac] with Z or ±hh:mm)`,
    show(v),
    why,
  );
}

/** RFC 1123 DNS subdomain as Kubernetes names objects: dot-separated lowercase alphanumeric labels with inner '-', at most 253 characters. */
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isDnsSubdomain(s: unknown): s is string {
  return typeof s === 'string' && s.length <= 253 && SUBDOMAIN.test(s);
}

/** Fails unless `v` is a valid object name (a DNS subdomain). */
export function checkDnsSubdomain(v: unknown, what: string, why?: string): asserts v is string {
  check(
    isDnsSubdomain(v),
    `${what}: a DNS subdomain (lowercase alphanumerics, '-' and '.', at most 253 characters)`,
    show(v),
    why,
  );
}
