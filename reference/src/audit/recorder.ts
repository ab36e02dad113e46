// The audit record of one request: stages fill in who, what and the outcome and add
// annotations; the HTTP layer emits it once, at ResponseComplete (or Panic).
import { randomUUID } from 'node:crypto';
import type { UserInfo } from '../registry/types.ts';
import type { AuditEvent, AuditObjectRef, AuditSink, AuditStage } from './types.ts';

/** RFC 3339 with microseconds, as audit events carry them. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
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
  private readonly annotations: Record<string, string> = {};
  private emitted = false;

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
    if (!(key in this.annotations)) this.annotations[key] = value;
  }

  /** Emits the event (once): the response's code and, for failures, its Status reason and message. */
  complete(code: number, status?: { reason?: string; message?: string }, stage: AuditStage = 'ResponseComplete'): void {
    if (this.emitted || this.sinks.length === 0) return;
    this.emitted = true;
    const e: AuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.orch.io/v1',
      level: 'Metadata',
      auditID: this.auditID,
      stage,
      requestURI: this.requestURI,
      verb: this.verb,
      user: this.user,
      sourceIPs: this.sourceIP ? [this.sourceIP] : [],
      requestReceivedTimestamp: microTime(this.received),
      stageTimestamp: microTime(Date.now()),
      responseStatus: { metadata: {}, code, ...(code >= 400 ? { status: 'Failure', ...status } : {}) },
    };
    if (this.impersonatedUser) e.impersonatedUser = this.impersonatedUser;
    if (this.userAgent) e.userAgent = this.userAgent;
    if (this.objectRef) e.objectRef = this.objectRef;
    if (Object.keys(this.annotations).length) e.annotations = { ...this.annotations };
    for (const s of this.sinks) {
      try {
        s.write(e);
      } catch (err) {
        console.error('audit sink failed:', err);
      }
    }
  }
}
