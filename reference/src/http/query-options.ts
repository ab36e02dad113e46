// The query options of a request: checked as Kubernetes' parameter decoding checks them (Go
// integers, resource versions, the options of a write), and the options of a write as
// admission sees them.
import { errors, type StatusCause } from '../errors/status.ts';
import { goDurationError } from '../util/duration.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** The options kind of each write verb (`CreateOptions`, ...). */
const OPTIONS_KIND: Record<string, string> = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
  delete: 'DeleteOptions',
  deletecollection: 'DeleteOptions',
};
const FIELD_MANAGER_MAX = 128;
const PATCH_TYPES = new Set([
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
]);
const APPLY_TYPE = 'application/apply-patch+yaml';

/**
 * `timeout` bounds a request that is not long-running (a watch, a connection to a pod or a
 * proxy is): one that is not a Go duration is refused before anything else, authentication
 * included, as Kubernetes' deadline filter (outside its authentication filter) refuses it.
 */
export function checkTimeout(q: URLSearchParams, longRunning: boolean): void {
  const timeout = q.get('timeout');
  if (longRunning || !timeout) return;
  const bad = goDurationError(timeout);
  if (bad) throw errors.badRequest(`invalid timeout specified in the request URL - ${bad}`);
}

/** Whether a verb writes (it has an options kind, and admission sees it). */
export function isWriteVerb(verb: string): boolean {
  return OPTIONS_KIND[verb] !== undefined;
}

/** An integer query parameter (Go int64): anything else is a 400, as Kubernetes' parameter decoding. */
function intParam(q: URLSearchParams, name: string, nonNegative = false): void {
  const v = q.get(name);
  if (v === null || v === '') return;
  if (!/^[-+]?\d+$/.test(v))
    throw errors.badRequest(
      `invalid value for ${name}: ${JSON.stringify(v)}: strconv.ParseInt: invalid syntax`,
    );
  const n = BigInt(v);
  if (n < INT64_MIN || n > INT64_MAX)
    throw errors.badRequest(
      `invalid value for ${name}: ${JSON.stringify(v)}: strconv.ParseInt: value out of range`,
    );
  if (nonNegative && n < 0n)
    throw errors.badRequest(`invalid value for ${name}: ${JSON.stringify(v)}: must be non-negative`);
}

/** Go's `%#v` of a []string, as Kubernetes prints a bad list value. */
function goStrings(vs: string[]): string {
  return `[]string{${vs.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/**
 * The query options of a request, checked before its handler runs: a value that does not parse
 * is a 400 (Kubernetes' parameter decoding), a parsed value the verb refuses a 422 naming the
 * options kind (`CreateOptions.meta.orch.io "" is invalid: ...`). Returns whether it is a dry run.
 */
export function checkQueryOptions(
  verb: string,
  q: URLSearchParams,
  contentType: string | undefined,
): boolean {
  if (verb === 'get' || verb === 'list' || verb === 'watch' || verb === 'deletecollection') {
    const rv = q.get('resourceVersion');
    if (rv !== null && rv !== '' && (!/^\d+$/.test(rv) || BigInt(rv) > UINT64_MAX))
      throw errors.badRequest(`invalid resource version: ${JSON.stringify(rv)}`);
  }
  if (verb === 'list' || verb === 'watch' || verb === 'deletecollection') {
    intParam(q, 'limit');
    intParam(q, 'timeoutSeconds', true);
  }
  const kind = OPTIONS_KIND[verb];
  if (!kind) return false;
  // a write without a query has nothing to get wrong (a patch's type and manager still may)
  if (q.size === 0 && verb !== 'patch') return false;
  const causes: StatusCause[] = [];
  const dryRun = q.getAll('dryRun');
  const badDryRun = dryRun.filter((v) => v !== '' && v !== 'All');
  if (badDryRun.length)
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'dryRun',
      message: `Unsupported value: ${goStrings(dryRun)}: supported values: "All"`,
    });
  if (verb === 'delete' || verb === 'deletecollection') deleteOptionCauses(q, causes);
  else writeOptionCauses(verb, q, contentType, causes);
  if (causes.length) throw errors.invalidOptions(kind, causes);
  return dryRun.length > 0;
}

/** What a delete's options get wrong (a grace period that is no integer is a 400 at once). */
function deleteOptionCauses(q: URLSearchParams, causes: StatusCause[]): void {
  intParam(q, 'gracePeriodSeconds');
  const pp = q.get('propagationPolicy');
  if (pp !== null && pp !== '' && !['Foreground', 'Background', 'Orphan'].includes(pp))
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'propagationPolicy',
      message: `Unsupported value: ${JSON.stringify(pp)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    });
}

/** What the options of a create, update or patch get wrong. */
function writeOptionCauses(
  verb: string,
  q: URLSearchParams,
  contentType: string | undefined,
  causes: StatusCause[],
): void {
  const fm = q.get('fieldManager') ?? '';
  if (Buffer.byteLength(fm) > FIELD_MANAGER_MAX)
    causes.push({
      reason: 'FieldValueTooLong',
      field: 'fieldManager',
      message: `Too long: must have at most ${FIELD_MANAGER_MAX} bytes`,
    });
  let pos = 0;
  for (const ch of fm) {
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
      const cp = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'fieldManager',
        message: `Invalid value: ${JSON.stringify(fm)}: invalid character U+${cp} (at position ${pos})`,
      });
    }
    pos += Buffer.byteLength(ch);
  }
  const fv = q.get('fieldValidation');
  if (fv !== null && !['', 'Ignore', 'Warn', 'Strict'].includes(fv))
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'fieldValidation',
      message: `Unsupported value: ${JSON.stringify(fv)}: supported values: "", "Ignore", "Strict", "Warn"`,
    });
  if (verb === 'patch') {
    const pt = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (PATCH_TYPES.has(pt) && q.has('force'))
      causes.push({
        reason: 'FieldValueForbidden',
        field: 'force',
        message: 'Forbidden: may not be specified for non-apply patch',
      });
    if (pt === APPLY_TYPE && !q.get('fieldManager'))
      causes.push({
        reason: 'FieldValueRequired',
        field: 'fieldManager',
        message: 'Required value: is required for apply patch',
      });
  }
}

/** The options of a write as admission sees them (the query's, in the options kind's shape). */
export function writeOptions(verb: string, q: URLSearchParams): Record<string, unknown> | undefined {
  const kind = OPTIONS_KIND[verb];
  if (!kind) return undefined;
  const o: Record<string, unknown> = { kind, apiVersion: 'meta.orch.io/v1' };
  if (q.size === 0) return o;
  const dryRun = q.getAll('dryRun').filter((v) => v !== '');
  if (dryRun.length) o.dryRun = dryRun;
  for (const k of ['fieldManager', 'fieldValidation', 'propagationPolicy']) {
    const v = q.get(k);
    if (v) o[k] = v;
  }
  if (q.has('force')) o.force = q.get('force') !== 'false';
  return o;
}
