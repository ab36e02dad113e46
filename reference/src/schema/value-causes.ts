// Go-style values and the field errors of value validation (./validate.ts), worded as
// kube-openapi and apimachinery's field.Error print them.
import type { StatusCause } from '../errors/status.ts';

/** A value as Go's `%#v` prints the decoded JSON (`map[string]interface {}{...}`, `[]interface {}{...}`). */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return goNumber(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  return `map[string]interface {}{${keys.map((k) => `${JSON.stringify(k)}:${goSyntax(o[k])}`).join(', ')}}`;
}

export function goNumber(v: number | boolean): string {
  if (typeof v === 'boolean') return String(v);
  if (Number.isInteger(v) || !Number.isFinite(v)) return String(v);
  // Go's %v of a float64 uses the shortest representation, with an exponent past 1e21
  const s = String(v);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** A bad value as `field.Error` prints it: strings quoted, numbers and booleans plain, the rest in Go syntax. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return goNumber(v);
  return goSyntax(v);
}

/** The causes of the failures, as `field.Error` words them. */
export const invalid = (path: string, value: unknown, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field: path,
  message: `Invalid value: ${goValue(value)}: ${detail}`,
});
export const typeInvalid = (path: string, value: unknown, detail: string): StatusCause => ({
  reason: 'FieldValueTypeInvalid',
  field: path,
  message: `Invalid value: ${goValue(value)}: ${detail}`,
});
export const required = (path: string, detail = ''): StatusCause => ({
  reason: 'FieldValueRequired',
  field: path,
  message: detail ? `Required value: ${detail}` : 'Required value',
});
export const duplicate = (path: string, value: unknown): StatusCause => ({
  reason: 'FieldValueDuplicate',
  field: path,
  message: `Duplicate value: ${typeof value === 'object' && value !== null ? goSyntax(value) : goValue(value)}`,
});
export const body = (path: string) => `${path || 'body'} in body`;
