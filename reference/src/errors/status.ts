// The error catalogue: every error leaves the server as a `Status` object, shaped as
// Kubernetes sends it (kind, apiVersion, metadata, status, message, reason, details, code).

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** Stable reason codes (the `reason` field of a Status). */
export type Reason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'Timeout'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'RequestHeaderFieldsTooLarge'
  | 'Expired'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable';

/** The group of the API's own option and list types (`ListOptions`, `DeleteOptions`, `Table`). */
export const META_GROUP = 'meta.orch.io';

export interface GroupKind {
  group: string;
  kind: string;
}

export class StatusError extends Error {
  readonly code: number;
  readonly reason: Reason;
  readonly details?: StatusDetails;
  readonly headers?: Record<string, string>;
  constructor(
    code: number,
    reason: Reason,
    message: string,
    details?: StatusDetails,
    headers?: Record<string, string>,
  ) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.headers = headers;
  }

  toStatus(): Status {
    const s: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) s.details = this.details;
    return s;
  }
}

/** `configmaps` in the core group, `deployments.apps` otherwise: how Kubernetes names a resource in messages. */
export function qualifiedResource(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** `ConfigMap` in the core group, `ListOptions.meta.orch.io` otherwise: how Kubernetes names a kind in messages. */
export function qualifiedKind(kind: GroupKind): string {
  return kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
}

/**
 * Kubernetes' router answers a path it does not serve (404) or a method a path does not take
 * (405) with a generic Status whose single cause carries the router's own text.
 */
function routerError(code: 404 | 405, reason: Reason, message: string, routerText: string): StatusError {
  return new StatusError(code, reason, message, {
    causes: [{ reason: 'UnexpectedServerResponse', message: routerText }],
  });
}

export const errors = {
  badRequest(message: string, causes?: StatusCause[]): StatusError {
    return new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined);
  },
  unauthorized(message = 'Unauthorized'): StatusError {
    return new StatusError(401, 'Unauthorized', message);
  },
  forbidden(message: string, details?: StatusDetails): StatusError {
    return new StatusError(403, 'Forbidden', message, details);
  },
  notFound(group: string, resource: string, name: string): StatusError {
    return new StatusError(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, {
      name,
      group: group || undefined,
      kind: resource,
    });
  },
  /** No such path (unknown group, version, resource or subresource; a path of the wrong shape). */
  pathNotFound(_path?: string): StatusError {
    return routerError(
      404,
      'NotFound',
      'the server could not find the requested resource',
      '404: Page Not Found',
    );
  },
  alreadyExists(group: string, resource: string, name: string): StatusError {
    return new StatusError(
      409,
      'AlreadyExists',
      `${qualifiedResource(group, resource)} "${name}" already exists`,
      {
        name,
        group: group || undefined,
        kind: resource,
      },
    );
  },
  conflict(group: string, resource: string, name: string, why: string): StatusError {
    return new StatusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(group, resource)} "${name}": ${why}`,
      { name, group: group || undefined, kind: resource },
    );
  },
  staleUpdate(group: string, resource: string, name: string): StatusError {
    return errors.conflict(
      group,
      resource,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  },
  /** Server-side apply changing fields other managers own (Kubernetes' NewApplyConflict): details carry only the causes. */
  applyConflict(causes: StatusCause[], message: string): StatusError {
    return new StatusError(409, 'Conflict', message, { causes });
  },
  gone(message: string): StatusError {
    return new StatusError(410, 'Expired', message);
  },
  /** 422 Invalid, as Kubernetes' NewInvalid: `<Kind>[.<group>] "<name>" is invalid: <causes>`. */
  invalid(kind: GroupKind, name: string, causes: StatusCause[]): StatusError {
    const list = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : (c.message ?? ''))).join(', ');
    const head = `${qualifiedKind(kind)} ${JSON.stringify(name)} is invalid`;
    const msg = causes.length === 0 ? head : causes.length === 1 ? `${head}: ${list}` : `${head}: [${list}]`;
    return new StatusError(422, 'Invalid', msg, {
      name: name || undefined,
      group: kind.group || undefined,
      kind: kind.kind,
      causes,
    });
  },
  /** Query options of a request that fail validation (`CreateOptions`, `DeleteOptions`, ...): 422. */
  invalidOptions(kind: string, causes: StatusCause[]): StatusError {
    return errors.invalid({ group: META_GROUP, kind }, '', causes);
  },
  methodNotAllowed(message = 'the server does not allow this method on the requested resource'): StatusError {
    return routerError(405, 'MethodNotAllowed', message, '405: Method Not Allowed');
  },
  notAcceptable(accepted: string[]): StatusError {
    return new StatusError(
      406,
      'NotAcceptable',
      `only the following media types are accepted: ${accepted.join(', ')}`,
    );
  },
  unsupportedMediaType(type: string, accepted: string[]): StatusError {
    return new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      type ? { causes: [{ reason: 'UnsupportedMediaType', message: type }] } : undefined,
    );
  },
  /** The request line and headers exceed what the server reads. */
  headersTooLarge(): StatusError {
    return new StatusError(
      431,
      'RequestHeaderFieldsTooLarge',
      'request header fields too large (the request URL or headers are too long)',
    );
  },
  tooLarge(limit: number): StatusError {
    return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
  },
  tooLargeResourceVersion(requested: string, current: string): StatusError {
    return new StatusError(
      504,
      'Timeout',
      `Too large resource version: ${requested}, current: ${current}`,
      {
        causes: [
          {
            reason: 'ResourceVersionTooLarge',
            message: `Too large resource version: ${requested}, current: ${current}`,
          },
        ],
        retryAfterSeconds: 1,
      },
      { 'Retry-After': '1' },
    );
  },
  internal(message: string): StatusError {
    return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`);
  },
  unavailable(message: string): StatusError {
    return new StatusError(503, 'ServiceUnavailable', message);
  },
};

export function successStatus(details?: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 } as Status;
}

/**
 * A write of an object another writer may have made first (start-up objects, controllers on
 * several servers over one store): AlreadyExists means it is there, which is all that was asked.
 */
export async function unlessExists(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
  }
}

/**
 * Runs `fn` again while it fails with a 409 (another writer came first, and the store has since
 * caught up with it), up to `attempts` times: for writes that look before they write.
 */
export async function againOnConflict<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 409) || attempt >= attempts) throw e;
    }
  }
}
