// Values printed the way Go's `%#v` prints them, as Kubernetes' field errors show a struct or
// list that changed (`Invalid value: storage.CSINodeDriver{Name:"a", ...}: field is immutable`).
// Pointers print as their type and an address; the address is a fixed stand-in here.

const ADDRESS = '0xc000000000';

/** A Go string literal. */
export const goStr = (s: string | undefined): string => JSON.stringify(s ?? '');

/** A slice of a string type: `[]T{"a", "b"}`, or `[]T(nil)` when unset. */
export function goSlice(type: string, v: string[] | undefined | null): string {
  if (v === undefined || v === null) return `[]${type}(nil)`;
  return `[]${type}{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
}

/** A map of strings: `map[string]string{"a":"b"}` (keys sorted), or `map[string]string(nil)`. */
export function goStringMap(v: Record<string, string> | undefined | null): string {
  if (v === undefined || v === null) return 'map[string]string(nil)';
  const keys = Object.keys(v).sort();
  return `map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(v[k])}`).join(', ')}}`;
}

/** A pointer: `(*T)(nil)` when unset, else `(*T)(0x...)`. */
export function goPtr(type: string, v: unknown): string {
  return `(*${type})(${v === undefined || v === null ? 'nil' : ADDRESS})`;
}

/** A struct: `T{Field:value, ...}` from its fields already printed, in declaration order. */
export function goStruct(type: string, fields: [string, string][]): string {
  return `${type}{${fields.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}
