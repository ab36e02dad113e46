// The watch stream: a watch's chunked reply on node's response, as the handlers' EventStream.
import type { ServerResponse } from 'node:http';
import type { AuditRecord } from '../audit/recorder.ts';
import type { EventStream } from '../handlers/scope.ts';
import { warningHeaders } from './respond.ts';

/** A watch's chunked reply on node's response (a HEAD's ends after the handler: see server.ts). */
export function eventStream(
  res: ServerResponse,
  contentType: string,
  audit: AuditRecord | undefined,
  warnings: string[] = [],
): EventStream {
  let started = false;
  const stream: EventStream = {
    start() {
      if (started) return;
      started = true;
      res.writeHead(200, {
        'Content-Type': contentType,
        'Transfer-Encoding': 'chunked',
        'Cache-Control': 'no-cache, private',
        // a watch of a deprecated version warns as any other request does
        ...(warnings.length ? { Warning: warningHeaders(warnings) } : {}),
      });
      res.flushHeaders();
      // a long-running reply's headers are out: its ResponseStarted event
      audit?.stage('ResponseStarted', 200);
    },
    write(chunk) {
      if (!stream.closed) res.write(chunk);
    },
    end() {
      stream.start();
      if (!res.writableEnded) res.end();
    },
    destroy() {
      res.destroy();
    },
    get buffered() {
      return res.writableLength;
    },
    get closed() {
      return res.writableEnded || res.destroyed;
    },
    onClose(f) {
      if (res.writableEnded || res.destroyed) queueMicrotask(f);
      else res.once('close', f);
    },
  };
  return stream;
}
