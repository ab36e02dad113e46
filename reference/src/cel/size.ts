// Size bounds of schema nodes for static cost estimation, as Kubernetes 1.28 derives them
// (k8s.io/apiserver/pkg/cel/common/schemas.go): the declared maxLength (times 4 for a plain
// string: a code point may take 4 bytes), maxItems or maxProperties, else what the largest
// request (3 MiB) can hold given the shortest JSON text of one element; dates, date-times and
// durations by their longest text, whatever their maxLength.
import type { ValueSchema } from '../schema/validate.ts';

/** The largest request body the server accepts, in bytes (Kubernetes' 3 MiB). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

const MAX_DURATION_SIZE_JSON = 32;
const MIN_DURATION_SIZE_JSON = 3;
const MAX_DATETIME_SIZE_JSON = 32;
const MIN_DATETIME_SIZE_JSON = 21;
const JSON_DATE_SIZE = 12;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;

const nonNegative = (n: number) => Math.max(0, n);

const isDateTime = (s: ValueSchema) => s.format === 'date-time' || s.format === 'datetime';

/** Shortest JSON text of a scalar or list/map value of this node (`""`, `0`, `true`, `[]`, `{}`). */
export function minSerializedSize(s: ValueSchema | undefined): number {
  if (!s || s['x-orch-int-or-string']) return 1;
  switch (s.type) {
    case 'string':
      if (s.format === 'duration') return MIN_DURATION_SIZE_JSON;
      if (s.format === 'date') return JSON_DATE_SIZE;
      if (isDateTime(s)) return MIN_DATETIME_SIZE_JSON;
      return MIN_STRING_SIZE;
    case 'integer':
    case 'number':
      return MIN_NUMBER_SIZE;
    case 'boolean':
      return MIN_BOOL_SIZE;
    default:
      return 2;
  }
}

/** Longest text of a string node without a usable maxLength (and of an int-or-string). */
function maxTextLength(s: ValueSchema | undefined): number {
  if (!s || s['x-orch-int-or-string']) return MAX_REQUEST_SIZE_BYTES - 2;
  if (s.format === 'duration') return MAX_DURATION_SIZE_JSON;
  if (s.format === 'date') return JSON_DATE_SIZE;
  if (isDateTime(s)) return MAX_DATETIME_SIZE_JSON;
  return MAX_REQUEST_SIZE_BYTES - 2;
}

/** Upper bound of a string node's size: bytes, characters of text, or a date/time/duration's text. */
export function maxStringSize(
  s: ValueSchema | undefined,
  kind: 'string' | 'bytes' | 'timestamp' | 'duration',
): number {
  if (kind === 'timestamp' || kind === 'duration') return maxTextLength(s);
  if (s?.maxLength !== undefined && !s['x-orch-int-or-string'])
    return kind === 'string' ? nonNegative(s.maxLength) * 4 : nonNegative(s.maxLength);
  return maxTextLength(s);
}

/** Upper bound of a list's items: maxItems, else as many of its shortest items as a request holds. */
export function maxItems(s: ValueSchema, itemMin: number): number {
  if (s.maxItems !== undefined) return nonNegative(s.maxItems);
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (itemMin + 1));
}

/** Upper bound of a map's entries: maxProperties, else as many shortest entries as a request holds. */
export function maxProperties(s: ValueSchema, valueMin: number): number {
  if (s.maxProperties !== undefined) return nonNegative(s.maxProperties);
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (valueMin + 6));
}

/**
 * How often a value of this shortest JSON text can occur in one request: the times a rule on an
 * unbounded list or map may run (Kubernetes' maxCardinality).
 */
export function maxCardinality(minSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSize + 1));
}
