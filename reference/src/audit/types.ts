// The audit stage's contract: one event per request (`audit.orch.io/v1` Event shape, level
// Metadata), written by the HTTP layer when the response is complete; any stage may add
// annotations (`authorization.orch.io/decision`, `authorization.orch.io/reason`, ...).
import type { UserInfo } from '../registry/types.ts';

export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

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
  level: 'Metadata';
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: UserInfo;
  impersonatedUser?: UserInfo;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus?: { metadata: Record<string, never>; code: number; status?: string; reason?: string; message?: string };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Where events go (a file, memory for tests, a webhook later). */
export interface AuditSink {
  write(e: AuditEvent): void;
  close?(): Promise<void>;
}
