// JSON Patch (RFC 6902) with `test`, from fast-json-patch. As in Kubernetes, a document
// that is not a list of operation objects is a 400; an operation that cannot be applied
// (a failed `test`, a missing path, an unknown op) is a 422 and changes nothing. The
// package is loaded at the first JSON patch.
import type * as Fjp from 'fast-json-patch';
import { errors, StatusError } from '../errors/status.ts';
import { lazyPackage } from '../util/lazy-package.ts';

const fjp = lazyPackage<typeof Fjp>('fast-json-patch');

export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops))
    throw errors.badRequest(`json: cannot unmarshal ${kind(ops)} into Go value of type jsonpatch.Patch`);
  for (const op of ops) {
    if (typeof op !== 'object' || op === null || Array.isArray(op))
      throw errors.badRequest(`json: cannot unmarshal ${kind(op)} into Go value of type jsonpatch.Operation`);
  }
  try {
    return fjp().applyPatch(structuredClone(target), ops as Fjp.Operation[], true, true).newDocument;
  } catch (e) {
    throw unprocessable(describe(e));
  }
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** The message of an operation that could not be applied, in the words Kubernetes uses. */
function describe(e: unknown): string {
  const err = e as {
    name?: string;
    message?: string;
    operation?: { op?: unknown; path?: unknown; from?: unknown };
  };
  const op = err.operation ?? {};
  const path = typeof op.path === 'string' ? op.path : '';
  switch (err.name) {
    case 'TEST_OPERATION_FAILED':
      return `testing value ${path} failed: test failed`;
    case 'OPERATION_OP_INVALID':
      return `Unexpected kind: ${String(op.op)}`;
    case 'OPERATION_PATH_INVALID':
      return `invalid operation ${JSON.stringify(op)}: path must be a JSON pointer starting with "/"`;
    case 'OPERATION_VALUE_REQUIRED':
      return `invalid operation ${JSON.stringify(op)}: missing value`;
    case 'OPERATION_FROM_REQUIRED':
      return `invalid operation ${JSON.stringify(op)}: missing from`;
    case 'OPERATION_PATH_UNRESOLVABLE':
      return `${String(op.op)} operation does not apply: doc is missing path: "${path}": missing value`;
    case 'OPERATION_FROM_UNRESOLVABLE':
      return `${String(op.op)} operation does not apply: doc is missing from path: "${String(op.from)}": missing value`;
    case 'OPERATION_PATH_CANNOT_ADD':
      return `add operation does not apply: doc is missing path: "${path}": missing value`;
    case 'OPERATION_VALUE_OUT_OF_BOUNDS':
      return `${String(op.op)} operation does not apply: index out of bounds at "${path}"`;
    default:
      return (err.message ?? String(e)).split('\n')[0]!;
  }
}

function unprocessable(msg: string): StatusError {
  return new StatusError(
    422,
    'Invalid',
    `the server rejected our request due to an error in our request: ${msg}`,
    {
      causes: [{ reason: 'UnexpectedServerResponse', message: msg }],
    },
  );
}
