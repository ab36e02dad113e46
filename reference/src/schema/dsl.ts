// Small constructors for built-in kind schemas.
import type { Schema } from './types.ts';

export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const num = (extra: Schema = {}): Schema => ({ type: 'number', ...extra });
export const bool = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
export const intOrString = (extra: Schema = {}): Schema => ({ 'x-orch-int-or-string': true, ...extra });
export const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...extra,
});
export const mapOf = (values: Schema, extra: Schema = {}): Schema => ({
  type: 'object',
  additionalProperties: values,
  ...extra,
});
export const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
/** A list merged by key (Go `patchStrategy=merge`, `patchMergeKey=key`; `listType=map`). */
export const keyedList = (items: Schema, keys: string[], extra: Schema = {}): Schema => ({
  type: 'array',
  items,
  'x-orch-list-type': 'map',
  'x-orch-list-map-keys': keys,
  'x-orch-patch-strategy': 'merge',
  'x-orch-patch-merge-key': keys[0],
  ...extra,
});
export const setOf = (items: Schema, extra: Schema = {}): Schema => ({
  type: 'array',
  items,
  'x-orch-list-type': 'set',
  ...extra,
});
export const freeform = (extra: Schema = {}): Schema => ({
  type: 'object',
  'x-orch-preserve-unknown-fields': true,
  ...extra,
});
export const time = (extra: Schema = {}): Schema => ({ type: 'string', format: 'date-time', ...extra });
