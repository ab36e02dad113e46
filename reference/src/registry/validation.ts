// Name and metadata validation shared by all kinds.
import type { StatusCause } from '../errors/status.ts';
import { validLabelKey, validLabelValue } from '../selectors/labels.ts';
import type { KObject, ObjectMeta } from '../storage/types.ts';

export type NameRule = 'subdomain' | 'label' | 'label1035' | 'path';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export function nameProblem(name: string, rule: NameRule): string | undefined {
  switch (rule) {
    case 'subdomain':
      if (name.length > 253) return 'must be no more than 253 characters';
      if (!SUBDOMAIN.test(name))
        return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
      return undefined;
    case 'label':
      if (name.length > 63) return 'must be no more than 63 characters';
      if (!LABEL.test(name))
        return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
      return undefined;
    case 'label1035':
      if (name.length > 63) return 'must be no more than 63 characters';
      if (!LABEL1035.test(name))
        return "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
      return undefined;
    case 'path':
      if (name === '.' || name === '..') return `may not be '${name}'`;
      if (name.includes('/') || name.includes('%')) return "may not contain '/' or '%'";
      return undefined;
  }
}

/** A map-typed field as it may arrive from a client (schema checks come first, but never rely on them here). */
function asMap(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function validateMeta(obj: KObject, rule: NameRule, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const m = obj.metadata;
  validateName(m, rule, causes);
  if (namespaced && !m.namespace)
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.namespace' });
  if (!namespaced && m.namespace)
    causes.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: not allowed on this type',
      field: 'metadata.namespace',
    });
  validateLabelsAndAnnotations(m, causes);
  validateOwnersAndFinalizers(m, causes);
  return causes;
}

/** metadata.name: a string, present, and of the kind's rule. */
function validateName(m: ObjectMeta, rule: NameRule, causes: StatusCause[]): void {
  if (m.name !== undefined && m.name !== null && typeof m.name !== 'string') {
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: must be a string',
      field: 'metadata.name',
    });
  } else if (!m.name) {
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value: name or generateName is required',
      field: 'metadata.name',
    });
  } else {
    const p = nameProblem(m.name, rule);
    if (p)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${m.name}": ${p}`,
        field: 'metadata.name',
      });
  }
}

/** Label keys and values, annotation keys and the annotations' total size. */
function validateLabelsAndAnnotations(m: ObjectMeta, causes: StatusCause[]): void {
  for (const [k, v] of Object.entries(asMap(m.labels))) {
    const kp = validLabelKey(k);
    if (kp)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${k}": ${kp}`,
        field: 'metadata.labels',
      });
    const vp = typeof v === 'string' ? validLabelValue(v) : 'must be a string';
    if (vp)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${v}": ${vp}`,
        field: `metadata.labels`,
      });
  }
  for (const k of Object.keys(asMap(m.annotations))) {
    const kp = validLabelKey(k);
    if (kp)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${k}": ${kp}`,
        field: 'metadata.annotations',
      });
  }
  const annSize = Object.entries(asMap(m.annotations)).reduce(
    (n, [k, v]) => n + k.length + String(v).length,
    0,
  );
  if (annSize > 256 * 1024)
    causes.push({
      reason: 'FieldValueTooLong',
      message: 'Too long: must have at most 262144 bytes',
      field: 'metadata.annotations',
    });
}

/** Null owner references, and finalizers with a prefix that is no label key. */
function validateOwnersAndFinalizers(m: ObjectMeta, causes: StatusCause[]): void {
  // a null owner reference decodes in Go as an empty one: each of its required fields is missing
  const refs: unknown[] = Array.isArray(m.ownerReferences) ? m.ownerReferences : [];
  refs.forEach((r, i) => {
    if (r === null)
      for (const f of ['apiVersion', 'kind', 'name', 'uid'])
        causes.push({
          reason: 'FieldValueRequired',
          message: 'Required value',
          field: `metadata.ownerReferences[${i}].${f}`,
        });
  });
  const fins: unknown[] = Array.isArray(m.finalizers) ? m.finalizers : [];
  for (const f of fins) {
    if (typeof f !== 'string' || !f) continue;
    const slash = f.indexOf('/');
    const prefixed = slash >= 0 ? validLabelKey(f) : undefined;
    if (prefixed)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${f}": ${prefixed}`,
        field: 'metadata.finalizers',
      });
  }
}
