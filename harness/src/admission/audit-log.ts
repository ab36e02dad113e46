// A target's audit log as the suites read it (doc3 § Events): a file of JSON-lines audit
// events the target writes at level Metadata or higher and the suites can read, declared with
// ORCH_AUDIT_LOG. A case notes where the log ends before its request, then waits for the
// events written after it that hold what it looks for (a target writes an event once the
// response is complete, so it may come a little after the answer).
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Dialect } from '../dialect.ts';

/** Where the log ends now (bytes). */
export function auditOffset(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function readFrom(path: string, offset: number): string {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size <= offset) return '';
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The events written after `offset` (spec words), complete lines only. */
export function auditEventsAfter(path: string, offset: number, d?: Dialect): any[] {
  const text = readFrom(path, offset);
  const out: any[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line);
      out.push(d ? d.in(e) : e);
    } catch {
      // a line being written
    }
  }
  return out;
}

/** Waits (up to `timeoutMs`) for an event after `offset` that `match` accepts. */
export async function waitAuditEvent(
  path: string,
  offset: number,
  match: (e: any) => boolean,
  o: { dialect?: Dialect; timeoutMs?: number } = {},
): Promise<any | undefined> {
  const deadline = Date.now() + (o.timeoutMs ?? 5000);
  for (;;) {
    const hit = auditEventsAfter(path, offset, o.dialect).find(match);
    if (hit || Date.now() > deadline) return hit;
    await new Promise((r) => setTimeout(r, 100));
  }
}
