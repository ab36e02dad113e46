// Audit sinks: a JSON-lines file (`--audit-log-path`) and a bounded in-memory buffer that tests
// and the embedded harness read.
import { type WriteStream, createWriteStream } from 'node:fs';
import type { AuditEvent, AuditSink } from './types.ts';

export class FileAuditSink implements AuditSink {
  private readonly out: WriteStream;
  constructor(path: string) {
    this.out = createWriteStream(path, { flags: 'a' });
    this.out.on('error', (e) => console.error(`audit log ${path}:`, e.message));
  }
  write(e: AuditEvent): void {
    this.out.write(`${JSON.stringify(e)}\n`);
  }
  close(): Promise<void> {
    return new Promise((r) => this.out.end(() => r()));
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
