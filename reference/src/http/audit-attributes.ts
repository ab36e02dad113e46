// Audit attributes: the record a request opens, what it learns of the request (who, which verb,
// which object), the attributes the audit policy judges, and what it records of a failure.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PolicyAttributes, PolicyEvaluator } from '../audit/policy.ts';
import { AuditRecord } from '../audit/recorder.ts';
import type { AuditSink } from '../audit/types.ts';
import { errors, type StatusError } from '../errors/status.ts';
import type { UserInfo } from '../registry/types.ts';
import { type RequestInfo, requestInfo, watchRequested } from './request-info.ts';
import { requestTarget } from './routing.ts';

/**
 * The audit record of a request, its ID in the `Audit-Id` header, completed when the reply
 * closes. No sink, no audit work at all (one request's record costs a uuid and a header).
 */
export function openAudit(
  sinks: readonly AuditSink[],
  req: IncomingMessage,
  res: ServerResponse,
): AuditRecord | undefined {
  if (!sinks.length) return undefined;
  const auditId = req.headers['audit-id'];
  const record = new AuditRecord(
    sinks,
    req.url ?? '/',
    req.socket.remoteAddress ?? '',
    req.headers['user-agent'],
    typeof auditId === 'string' ? auditId : undefined,
  );
  res.setHeader('Audit-Id', record.auditID);
  res.once('close', () =>
    record.complete(
      record.panicked ? 500 : res.statusCode,
      record.failure,
      record.panicked ? 'Panic' : 'ResponseComplete',
    ),
  );
  return record;
}

/**
 * What the record learns once the request is authenticated and resolved: the user (and whom
 * it impersonates), the verb, the object; then the policy judges it (the authenticated user's
 * request, as Kubernetes' audit filter does, before impersonation).
 */
export function auditRequest(
  audit: AuditRecord,
  policy: PolicyEvaluator | undefined,
  info: RequestInfo,
  authenticated: UserInfo,
  user: UserInfo,
): void {
  audit.user = authenticated;
  if (user !== authenticated) audit.impersonatedUser = user;
  audit.verb = info.verb;
  if (info.resourceRequest)
    audit.objectRef = {
      resource: info.resource || undefined,
      namespace: info.namespace || undefined,
      name: info.name || undefined,
      apiGroup: info.group || undefined,
      apiVersion: info.version || undefined,
      subresource: info.subresource || undefined,
    };
  if (policy) audit.config = policy.evaluate(policyAttributes(info, authenticated));
}

/**
 * What the record keeps of a request that failed: the policy's judgement when the request was
 * refused before it (`evaluated` false), the failure, and the Status replied at RequestResponse.
 */
export function auditFailure(
  audit: AuditRecord,
  policy: PolicyEvaluator | undefined,
  evaluated: boolean,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  e: unknown,
  se: StatusError | undefined,
): void {
  if (!evaluated && policy) audit.config = policy.evaluate(refusedAttributes(req, method, audit));
  audit.failure = se
    ? { reason: se.reason, message: se.message }
    : { reason: 'InternalError', message: String(e) };
  if (!se) audit.panicked = true;
  if (audit.atLeast('RequestResponse') && !res.headersSent)
    audit.setResponseObject(
      se ? se.toStatus() : errors.internal(String((e as Error)?.message ?? e)).toStatus(),
    );
}

/** What the audit policy sees of a request: the authenticated user and the request's attributes. */
function policyAttributes(info: RequestInfo, user: PolicyAttributes['user']): PolicyAttributes {
  return {
    user,
    verb: info.verb,
    resourceRequest: info.resourceRequest,
    apiGroup: info.group,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    path: info.path,
  };
}

/** A request refused before the policy judged it (authentication failed, a malformed path): what is known of it. */
function refusedAttributes(req: IncomingMessage, method: string, audit: AuditRecord): PolicyAttributes {
  let info: RequestInfo;
  try {
    const { path, query } = requestTarget(req.url ?? '/');
    info = requestInfo(method, path, watchRequested(query));
  } catch {
    info = {
      ...requestInfo(method, '/', false),
      resourceRequest: false,
      path: (req.url ?? '/').split('?')[0]!,
    };
  }
  return policyAttributes(info, audit.user.username ? audit.user : undefined);
}
