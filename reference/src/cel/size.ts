// Size bounds of schema nodes for static cost estimation, as Kubernetes 1.28 derives them: the
// declared maxLength / maxItems / maxProperties, else what the largest request (3 MiB) can hold
// given the shortest JSON text of one element.
import type { ValueSchema } from '../schema/validate.ts';

/** The largest request body the server accepts, in bytes (Kubernetes' 3 MiB). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

const MAX_DURATION_SIZE_JSON = 32;
const DATE_SIZE_JSON = 10;
const MAX_DATETIME_SIZE_JSON = 32;

/** Shortest JSON text of a value of this node (`""`, `0`, `true`, `{}`, `[]`). */
export function minSerializedSize(s: ValueSchema | undefined): number {
  if (!s || s['x-orch-int-or-string']) return 1;
  switch (s.type) {
    case 'string':
      if (s.format === 'duration') return 4;
      if (s.format === 'date') return DATE_SIZE_JSON + 2;
      if (s.format === 'date-time' || s.format === 'datetime') return 22;
      return 2 + (s.minLength ?? 0);
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return 4;
    default:
      return 2;
  }
}

/**
 * Upper bound of a node's size: string length (`kind` string), list items or map entries, from the
 * declared bound or from the request size limit. `elemMin`: shortest JSON text of one element.
 */
export function maxElements(
  s: ValueSchema | undefined,
  kind: 'string' | 'array' | 'object',
  elemMin = 1,
): number {
  if (kind === 'string') {
    if (s?.maxLength !== undefined) return Math.max(0, s.maxLength);
    if (!s || s['x-orch-int-or-string']) return MAX_REQUEST_SIZE_BYTES - 2;
    if (s.format === 'duration') return MAX_DURATION_SIZE_JSON;
    if (s.format === 'date') return DATE_SIZE_JSON;
    if (s.format === 'date-time' || s.format === 'datetime') return MAX_DATETIME_SIZE_JSON;
    return MAX_REQUEST_SIZE_BYTES - 2;
  }
  if (kind === 'array') {
    if (s?.maxItems !== undefined) return Math.max(0, s.maxItems);
    return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elemMin + 1));
  }
  if (s?.maxProperties !== undefined) return Math.max(0, s.maxProperties);
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elemMin + 6));
}
