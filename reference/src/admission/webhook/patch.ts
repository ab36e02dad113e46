// A mutating webhook's JSON Patch (doc3 "Webhook contract": `patchType: JSONPatch`, base64 of
// a JSON Patch array) applied to the object in the webhook's form, with the patch engine of
// the API's own JSON Patch requests. A patch that does not decode or apply is a PatchError,
// which the mutating dispatcher hands to the failure policy.
import { StatusError } from '../../errors/status.ts';
import { applyJsonPatch as applyOps } from '../../patch/json-patch.ts';
import type { KObject } from '../../storage/types.ts';

export class PatchError extends Error {}

/** The patch's operations; throws PatchError when the bytes are not JSON. */
export function decodePatch(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new PatchError(`the patch is not JSON: ${(e as Error).message}`);
  }
}

/** The patched copy; throws PatchError when the patch is not an operation list or does not apply. */
export function applyPatch(o: KObject, ops: unknown): KObject {
  let out: unknown;
  try {
    out = applyOps(o, ops);
  } catch (e) {
    if (e instanceof StatusError) throw new PatchError(e.message);
    throw new PatchError((e as Error).message.split('\n')[0]!);
  }
  if (!out || typeof out !== 'object' || Array.isArray(out))
    throw new PatchError('the patched object is not an object');
  const p = out as KObject;
  if (p.apiVersion !== o.apiVersion || p.kind !== o.kind)
    throw new PatchError(
      `the patch may not change apiVersion or kind (to ${String(p.apiVersion)} ${String(p.kind)})`,
    );
  if (!p.metadata || typeof p.metadata !== 'object' || Array.isArray(p.metadata))
    throw new PatchError('the patched object has no metadata');
  return p;
}
