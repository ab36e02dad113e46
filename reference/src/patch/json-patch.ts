// JSON Patch (RFC 6902) with `test`, from fast-json-patch.
import fjp from 'fast-json-patch';
import { errors, StatusError } from '../errors/status.ts';

export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw errors.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  for (const op of ops) {
    if (typeof op !== 'object' || op === null || typeof (op as { op?: unknown }).op !== 'string')
      throw errors.badRequest('invalid JSON Patch: each operation must be an object with an "op"');
    const e = safeValidate(op);
    if (e) throw errors.badRequest(`invalid JSON Patch: ${e}`);
  }
  try {
    return fjp.applyPatch(structuredClone(target), ops as fjp.Operation[], false, true).newDocument;
  } catch (e) {
    const err = e as { name?: string; message?: string; operation?: { path?: string } };
    const msg = err.name === 'TEST_OPERATION_FAILED' ? `testing value ${err.operation?.path ?? ''} failed` : (err.message ?? String(e)).split('\n')[0];
    throw new StatusError(422, 'Invalid', `the server rejected our request due to an error in our request: ${msg}`, {
      causes: [{ reason: 'FieldValueInvalid', message: msg }],
    });
  }
}

function safeValidate(op: unknown): string | undefined {
  try {
    const o = op as { op: string; path?: unknown; from?: unknown; value?: unknown };
    if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(o.op)) return `unknown op "${String(o.op)}"`;
    if (typeof o.path !== 'string') return 'missing path';
    if ((o.op === 'add' || o.op === 'replace' || o.op === 'test') && !('value' in o)) return `missing value for ${o.op}`;
    if ((o.op === 'move' || o.op === 'copy') && typeof o.from !== 'string') return `missing from for ${o.op}`;
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
