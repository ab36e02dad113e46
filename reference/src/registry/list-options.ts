// The read paths' parameters: continue tokens, resource versions and ListOptions
// validation, with the errors Kubernetes answers for each.
import { errors, type Status, type StatusCause, StatusError } from '../errors/status.ts';
import type { ListParams } from './store-types.ts';

// ---------------------------------------------------------------- continue tokens

/**
 * What a continue token remembers: the revision of the snapshot (-1: the latest, handed
 * out with a 410 for an expired token, as Kubernetes does), the last key returned relative
 * to the list's key prefix, and when the token was issued (its lifetime runs from there).
 */
export interface Continue {
  rv: number;
  start: string;
  ts: number;
}

/** A watch that asked for bookmarks gets one this long before its end (kube-apiserver 1.28: 2 s). */
const CONTINUE_VERSION = 'meta.orch.io/v1';

export function encodeContinue(c: Continue): string {
  return Buffer.from(JSON.stringify({ v: CONTINUE_VERSION, rv: c.rv, start: c.start, ts: c.ts })).toString(
    'base64url',
  );
}

/** Decodes a continue token; a malformed one is a 400 with Kubernetes' wording. */
export function decodeContinue(token: string): Continue {
  const invalid = (why: string) =>
    errors.badRequest(`invalid continue token: continue key is not valid${why}`);
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(token)) throw invalid(': illegal base64 data');
  let j: unknown;
  try {
    j = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid(': not a JSON document');
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j)) throw invalid(': not a JSON object');
  const o = j as Record<string, unknown>;
  if (o.v !== CONTINUE_VERSION)
    throw invalid(`: server does not recognize this encoded version ${typeof o.v === 'string' ? o.v : ''}`);
  if (typeof o.rv !== 'number' || !Number.isSafeInteger(o.rv) || o.rv === 0 || o.rv < -1)
    throw invalid(`: incorrect encoded start resourceVersion (version ${CONTINUE_VERSION})`);
  if (typeof o.start !== 'string' || o.start === '')
    throw invalid(`: encoded start key empty (version ${CONTINUE_VERSION})`);
  if (o.start.split('/').some((seg) => seg === '.' || seg === '..')) throw invalid(`: ${o.start}`);
  if (typeof o.ts !== 'number' || !Number.isFinite(o.ts))
    throw invalid(`: issue time missing (version ${CONTINUE_VERSION})`);
  return { rv: o.rv, start: o.start, ts: o.ts };
}

const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter, or use the continue token in this response to retrieve the remainder of the ' +
  'results. Continuing with the provided token results in an inconsistent list - objects that were created, ' +
  'modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** 410 for an expired continue token; its `metadata.continue` goes on from the same key at the latest version. */
export class ContinueExpiredError extends StatusError {
  constructor(readonly inconsistentContinue: string) {
    super(410, 'Expired', CONTINUE_EXPIRED);
  }
  override toStatus(): Status {
    const s = super.toStatus();
    s.metadata = { continue: this.inconsistentContinue };
    return s;
  }
}

// ---------------------------------------------------------------- errors of the read paths

export function parseRv(rv: string): number {
  if (!/^\d+$/.test(rv)) throw errors.badRequest(`invalid resource version: "${rv}"`);
  return Number(rv);
}

/** Kubernetes' storage.NewTooLargeResourceVersionError: 504 Timeout, retry after 1 s. */
export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError(
    504,
    'Timeout',
    `Timeout: Too large resource version: ${requested}, current: ${current}`,
    {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    },
    { 'Retry-After': '1' },
  );
}

export const LIST_TOO_OLD = 'The resourceVersion for the provided list is too old.';

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

function notSupported(field: string, value: string, supported: string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
  };
}

/** What Kubernetes answers for invalid ListOptions: 422 Invalid on `ListOptions.meta.orch.io ""`. */
export function listOptionsInvalid(causes: StatusCause[]): StatusError {
  const msgs = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const list = msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
  return new StatusError(422, 'Invalid', `ListOptions.meta.orch.io "" is invalid: ${list}`, {
    group: 'meta.orch.io',
    kind: 'ListOptions',
    causes,
  });
}

/**
 * Kubernetes' ValidateListOptions (1.28): the resourceVersionMatch combinations the list
 * table marks invalid, and the watch-list (sendInitialEvents) rules of a watch.
 */
export function validateListOptions(p: ListParams, watch: boolean, watchListGate: boolean): StatusCause[] {
  const errs: StatusCause[] = [];
  const match = p.resourceVersionMatch ?? '';
  if (watch) {
    if (p.sendInitialEvents !== undefined) {
      if (match !== 'NotOlderThan')
        errs.push(
          forbidden(
            'resourceVersionMatch',
            'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
          ),
        );
      if (!watchListGate)
        errs.push(
          forbidden(
            'sendInitialEvents',
            'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
          ),
        );
    }
    if (match) {
      if (p.sendInitialEvents === undefined)
        errs.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          ),
        );
      if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (p.continue)
        errs.push(
          forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
        );
    }
    return errs;
  }
  if (match) {
    if (!p.resourceVersion)
      errs.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        ),
      );
    if (p.continue)
      errs.push(
        forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
      );
    if (match !== 'Exact' && match !== 'NotOlderThan')
      errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && p.resourceVersion === '0')
      errs.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
      );
  }
  if (p.sendInitialEvents !== undefined)
    errs.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}
