// Resource lists (`map[name]quantity`) as the kinds holding them validate them: names of
// standard resources or domain-qualified ones, values not negative.
import type { StatusCause } from '../../errors/status.ts';
import { nanosOf } from '../../schema/quantity-math.ts';
import { validLabelKey } from '../../selectors/labels.ts';
import { fieldErr } from './common.ts';

const STANDARD_CONTAINER = new Set(['cpu', 'memory', 'ephemeral-storage', 'storage']);

/** Whether a name is one of the resources containers and claims ask for (or a huge page size). */
export function isStandardContainerResource(name: string): boolean {
  return STANDARD_CONTAINER.has(name) || name.startsWith('hugepages-');
}

/** Whether a resource may be overcommitted (requests below limits): cpu, memory, storage kinds, yes; huge pages and extended resources, no. */
export function isOvercommitAllowed(name: string): boolean {
  return isStandardContainerResource(name) && !name.startsWith('hugepages-');
}

/** A resource name: a qualified name; without a `/` it must be a standard one. */
export function resourceName(
  field: string,
  name: string,
  standard: (n: string) => boolean,
  what: string,
): StatusCause[] {
  const p = validLabelKey(name);
  if (p) return [fieldErr.invalid(field, name, p)];
  if (!name.includes('/') && !standard(name)) return [fieldErr.invalid(field, name, what)];
  return [];
}

/** A quantity that may not be negative. */
export function nonNegativeQuantity(field: string, v: unknown): StatusCause[] {
  const n = nanosOf(v);
  return n !== undefined && n < 0n ? [fieldErr.invalid(field, v, 'must be greater than or equal to 0')] : [];
}

/** A quantity that must be above zero. */
export function positiveQuantity(field: string, v: unknown): StatusCause[] {
  const n = nanosOf(v);
  return n !== undefined && n <= 0n ? [fieldErr.invalid(field, v, 'must be greater than zero')] : [];
}
