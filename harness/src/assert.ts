// Assertions that say what the spec requires, what was expected and what came back, in
// words a person implementing the server can act on.
import { missingControllerHint } from './controllers.ts';
import type { Response } from './client.ts';
import { describePlace, type SpecPlace } from './spec.ts';

export class ConformanceError extends Error {
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

/** A 4xx/5xx answer carries a Status object with the fields Kubernetes sends. */
export function checkStatusObject(res: Response, why = 'every error is a Status object'): void {
  const s = res.statusObj;
  check(!!s, 'a Status object body', res.describe(), why);
  check(s!.apiVersion === 'v1', 'Status.apiVersion "v1"', show(s!.apiVersion), why);
  check(s!.status === 'Failure', 'Status.status "Failure"', show(s!.status), why);
  check(s!.code === res.status, `Status.code ${res.status}`, show(s!.code), why);
  check(typeof s!.message === 'string' && s!.message.length > 0, 'a non-empty Status.message', show(s!.message), why);
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
  return ak.length === bk.length && ak.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
