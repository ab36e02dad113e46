// Audit sinks: the log (`--audit-log-path`: a file with rotation, or `-` for standard output;
// `--audit-log-format` json or legacy) and a bounded in-memory buffer that tests and the
// embedded harness read.
import { ConfigurationError } from '../errors/config-error.ts';
import { legacyLine } from './format.ts';
import { RotatingFile, type RotationOptions } from './log-file.ts';
import type { AuditEvent, AuditSink } from './types.ts';

export type AuditLogFormat = 'json' | 'legacy';
export const AUDIT_LOG_FORMATS: readonly AuditLogFormat[] = ['json', 'legacy'];

export interface AuditLogOptions extends RotationOptions {
  format?: AuditLogFormat;
}

/** One line per event: the event as JSON, or Kubernetes' legacy one-line text. */
export class LogAuditSink implements AuditSink {
  private readonly file?: RotatingFile;
  private readonly line: (e: AuditEvent) => string;

  constructor(path: string, o: AuditLogOptions = {}) {
    if (path !== '-') {
      try {
        this.file = new RotatingFile(path, o);
      } catch (e) {
        throw new ConfigurationError(`--audit-log-path: cannot write ${path}: ${(e as Error).message}`);
      }
    }
    this.line = o.format === 'legacy' ? (e) => `${legacyLine(e)}\n` : (e) => `${JSON.stringify(e)}\n`;
  }

  write(e: AuditEvent): void {
    const line = this.line(e);
    if (this.file) this.file.write(line);
    else process.stdout.write(line);
  }

  /** Resolves once every event written so far is in the file. */
  flush(): Promise<void> {
    return this.file?.flush() ?? Promise.resolve();
  }

  close(): Promise<void> {
    return this.file?.close() ?? Promise.resolve();
  }
}

export class MemoryAuditSink implements AuditSink {
  private buf: AuditEvent[] = [];
  constructor(private readonly max = 10_000) {}
  write(e: AuditEvent): void {
    this.buf.push(e);
    // trimmed in batches: one copy per `max` events, not one per event
    if (this.buf.length >= 2 * this.max) this.buf = this.buf.slice(-this.max);
  }
  /** The last events, oldest first (at most `max`). */
  get events(): AuditEvent[] {
    return this.buf.length > this.max ? this.buf.slice(-this.max) : this.buf;
  }
}
