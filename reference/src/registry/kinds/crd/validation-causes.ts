// The causes CRD validation reports, in Kubernetes' wording, and the name and value
// checks its parts share.
import type { StatusCause } from '../../../errors/status.ts';
import { goValue } from '../../../schema/validate.ts';

export type JSP = Record<string, unknown>;

export const isObj = (v: unknown): v is JSP => typeof v === 'object' && v !== null && !Array.isArray(v);

const cause = (reason: string, field: string, message: string): StatusCause => ({ reason, field, message });
export const required = (field: string, detail = '') =>
  cause('FieldValueRequired', field, detail ? `Required value: ${detail}` : 'Required value');
export const invalid = (field: string, value: unknown, detail: string) =>
  cause('FieldValueInvalid', field, `Invalid value: ${goValue(value)}: ${detail}`);
export const invalidRaw = (field: string, shown: string, detail: string) =>
  cause('FieldValueInvalid', field, `Invalid value: ${shown}: ${detail}`);
export const forbidden = (field: string, detail: string) =>
  cause('FieldValueForbidden', field, `Forbidden: ${detail}`);
export const notSupported = (field: string, value: unknown, supported: string[]) =>
  cause(
    'FieldValueNotSupported',
    field,
    `Unsupported value: ${goValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  );

/** CRD validation's causes, in order, with the causes above added by name (`causes.invalid(...)`). */
export class CrdCauses extends Array<StatusCause> {
  required(field: string, detail?: string): void {
    this.push(required(field, detail));
  }
  invalid(field: string, value: unknown, detail: string): void {
    this.push(invalid(field, value, detail));
  }
  invalidRaw(field: string, shown: string, detail: string): void {
    this.push(invalidRaw(field, shown, detail));
  }
  forbidden(field: string, detail: string): void {
    this.push(forbidden(field, detail));
  }
  notSupported(field: string, value: unknown, supported: string[]): void {
    this.push(notSupported(field, value, supported));
  }
}

const DNS1035_FORMAT =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** Every problem of a DNS-1035 label (length and format), as Kubernetes lists them. */
export function dns1035(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v)) out.push(DNS1035_FORMAT);
  return out;
}

export function goListOfStrings(v: string[]): string {
  return `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
}
