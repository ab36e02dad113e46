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
  readonly events: AuditEvent[] = [];
  constructor(private readonly max = 10_000) {}
  write(e: AuditEvent): void {
    this.events.push(e);
    if (this.events.length > this.max) this.events.splice(0, this.events.length - this.max);
  }
}
