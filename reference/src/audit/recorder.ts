// The audit record of one request: stages fill in who, what and the outcome and add
// annotations; the HTTP layer writes an event at each stage the request's audit config does
// not omit (RequestReceived when it arrives, ResponseStarted when a long-running reply sends
// its headers, then ResponseComplete or Panic, once). A later event carries every annotation
// added before it. Nothing is written at level None.
import { randomUUID } from 'node:crypto';
import type { UserInfo } from '../registry/types.ts';
import { beforeExposure } from '../storage/exposure.ts';
import { DEFAULT_AUDIT_CONFIG, type RequestAuditConfig } from './policy.ts';
import type { AuditEvent, AuditLevel, AuditObjectRef, AuditSink, AuditStage } from './types.ts';

/** RFC 3339 with microseconds, as audit events carry them. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const LEVEL_RANK: Record<AuditLevel, number> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 };

/** An object without `metadata.managedFields` (a list's items too), copied only where needed. */
export function withoutManagedFields(o: unknown): unknown {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return o;
  let out = o as Record<string, unknown>;
  const meta = out.metadata as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object' && 'managedFields' in meta) {
    const { managedFields: _m, ...rest } = meta;
    out = { ...out, metadata: rest };
  }
  if (Array.isArray(out.items)) {
    const items = out.items.map(withoutManagedFields);
    if (items.some((x, i) => x !== (out.items as unknown[])[i])) out = { ...out, items };
  }
  return out;
}

export class AuditRecord {
  readonly auditID: string;
  readonly received: number;
  user: UserInfo = { username: '', groups: [] };
  impersonatedUser?: UserInfo;
  verb = '';
  objectRef?: AuditObjectRef;
  /** The Status of a failed request (its reason and message). */
  failure?: { reason?: string; message?: string };
  /** An internal error ended the request: its last event is at stage Panic. */
  panicked = false;
  /** The level, the omitted stages and managedFields: the policy's answer (all requests at Metadata without one). */
  config: RequestAuditConfig = DEFAULT_AUDIT_CONFIG;
  private requestObject?: unknown;
  private responseObject?: unknown;
  private readonly annotations: Record<string, string> = {};
  private annotated = false;
  private done = false;

  constructor(
    private readonly sinks: readonly AuditSink[],
    readonly requestURI: string,
    readonly sourceIP: string,
    readonly userAgent: string | undefined,
    auditID?: string,
    now = Date.now(),
  ) {
    this.auditID = auditID && /^[\w.-]{1,64}$/.test(auditID) ? auditID : randomUUID();
    this.received = now;
  }

  annotate(key: string, value: string): void {
    if (!(key in this.annotations)) {
      this.annotations[key] = value;
      this.annotated = true;
    }
  }

  /** Whether the request is audited at `level` or above (Request: its object is recorded). */
  atLeast(level: AuditLevel): boolean {
    return LEVEL_RANK[this.config.level] >= LEVEL_RANK[level];
  }

  /** The request's object (kept at level Request and above). */
  setRequestObject(obj: unknown): void {
    if (this.atLeast('Request')) this.requestObject = obj;
  }

  /** The response's object (kept at level RequestResponse). */
  setResponseObject(obj: unknown): void {
    if (this.atLeast('RequestResponse')) this.responseObject = obj;
  }

  /** Writes the event of an intermediate stage (RequestReceived, ResponseStarted). */
  stage(stage: 'RequestReceived' | 'ResponseStarted', code?: number): void {
    if (this.done) return;
    this.emit(stage, code);
  }

  /** Writes the last event (once): the response's code and, for failures, its Status reason and message. */
  complete(
    code: number,
    status?: { reason?: string; message?: string },
    stage: 'ResponseComplete' | 'Panic' = 'ResponseComplete',
  ): void {
    if (this.done) return;
    this.done = true;
    this.emit(stage, code, status);
  }

  private emit(stage: AuditStage, code?: number, status?: { reason?: string; message?: string }): void {
    const level = this.config.level;
    if (level === 'None' || this.sinks.length === 0 || this.config.omitStages.has(stage)) return;
    const e: AuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.orch.io/v1',
      level,
      auditID: this.auditID,
      stage,
      requestURI: this.requestURI,
      verb: this.verb,
      user: this.user,
      sourceIPs: this.sourceIP ? [this.sourceIP] : [],
      requestReceivedTimestamp: microTime(this.received),
      stageTimestamp: microTime(Date.now()),
    };
    if (code !== undefined)
      e.responseStatus = { metadata: {}, code, ...(code >= 400 ? { status: 'Failure', ...status } : {}) };
    if (this.impersonatedUser) e.impersonatedUser = this.impersonatedUser;
    if (this.userAgent) e.userAgent = this.userAgent;
    if (this.objectRef) e.objectRef = this.objectRef;
    if (stage !== 'RequestReceived') {
      const strip = this.config.omitManagedFields;
      if (this.requestObject !== undefined)
        e.requestObject = strip ? withoutManagedFields(this.requestObject) : this.requestObject;
      if (this.responseObject !== undefined && stage !== 'ResponseStarted')
        e.responseObject = strip ? withoutManagedFields(this.responseObject) : this.responseObject;
    }
    if (this.annotated) e.annotations = { ...this.annotations };
    // the event may hold a stored object: its change is in the log first (storage/exposure.ts)
    beforeExposure();
    for (const s of this.sinks) {
      try {
        s.write(e);
      } catch (err) {
        console.error('audit sink failed:', err);
      }
    }
  }
}
