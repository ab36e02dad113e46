// A copy of a server's audit log, each event passed through a rewrite as it is copied: how the
// fault meta test breaks the audit log a suite reads (no proxy sees a file). The copy holds the
// complete lines written after the tap starts; it is polled every 50 ms (the audit cases wait
// up to 5 s for an event).
import { appendFileSync, closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';

export interface AuditTap {
  close(): void;
}

/** Copies the events `src` gets from now on to `dest`, each through `rewrite` (dropped when it returns undefined). */
export function startAuditTap(src: string, dest: string, rewrite: (event: any) => any = (e) => e): AuditTap {
  writeFileSync(dest, '');
  let offset = sizeOf(src);
  let partial = '';
  const copy = () => {
    const size = sizeOf(src);
    if (size <= offset) return;
    const fd = openSync(src, 'r');
    const buf = Buffer.alloc(size - offset);
    try {
      readSync(fd, buf, 0, buf.length, offset);
    } finally {
      closeSync(fd);
    }
    offset = size;
    const text = partial + buf.toString('utf8');
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    const out: string[] = [];
    for (const line of lines) {
      if (!line.trim()) continue;
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        out.push(line); // not an event: copied as it is
        continue;
      }
      const kept = rewrite(event);
      if (kept !== undefined) out.push(JSON.stringify(kept));
    }
    if (out.length) appendFileSync(dest, `${out.join('\n')}\n`);
  };
  const timer = setInterval(copy, 50);
  return {
    close: () => {
      clearInterval(timer);
      copy();
    },
  };
}

function sizeOf(path: string): number {
  try {
    const fd = openSync(path, 'r');
    try {
      return fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  } catch {
    return 0;
  }
}
