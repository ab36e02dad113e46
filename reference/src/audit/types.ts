// The audit stage's contract: events in the `audit.orch.io/v1` Event shape, at the level the
// policy gives a request, one at each stage it does not omit (RequestReceived, ResponseStarted
// for long-running requests, ResponseComplete, or Panic), written by the HTTP layer; any stage
// may add annotations (`authorization.orch.io/decision`, `authorization.orch.io/reason`, ...),
// which every later event carries.
import type { UserInfo } from '../registry/types.ts';

export const AUDIT_STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type AuditStage = (typeof AUDIT_STAGES)[number];

/** Levels, least first: Request adds the request's object, RequestResponse the response's too. */
export const AUDIT_LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];

export interface AuditObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.orch.io/v1';
  level: Exclude<AuditLevel, 'None'>;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: UserInfo;
  impersonatedUser?: UserInfo;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus?: {
    metadata: Record<string, never>;
    code: number;
    status?: string;
    reason?: string;
    message?: string;
  };
  /** The request's object (level Request and above; writes with a body). */
  requestObject?: unknown;
  /** The response's object (level RequestResponse; not for watches). */
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Where events go (a file, memory for tests, a webhook later). */
export interface AuditSink {
  write(e: AuditEvent): void;
  close?(): Promise<void>;
}
