// The request log of `serve -v 3` and up: a line for each request when its reply ends, as
// kube-apiserver's httplog writes it at that verbosity (klog's header, then
// `"HTTP" verb=... URI=... latency=... userAgent=... audit-ID=... srcIP=... resp=...`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatGoDuration } from '../util/duration.ts';

/** The verbosity from which each request is logged (kube-apiserver's httplog logs at V(3)). */
export const REQUEST_LOG_VERBOSITY = 3;

/** Starts a request's record; its line is written when the reply ends (`verb` is read then). */
export type RequestLog = (req: IncomingMessage, res: ServerResponse, verb: () => string) => void;

const two = (n: number) => String(n).padStart(2, '0');

/** klog's header: severity, month and day, time to the microsecond, process id, source. */
function klogHeader(now: Date, micros: number): string {
  const time = `${two(now.getHours())}:${two(now.getMinutes())}:${two(now.getSeconds())}.${String(micros).padStart(6, '0')}`;
  return `I${two(now.getMonth() + 1)}${two(now.getDate())} ${time} ${String(process.pid).padStart(7)} request-log.ts]`;
}

/** A value as klog's structured logging quotes it (strings quoted with Go's escapes, numbers bare). */
const quoted = (v: string) => JSON.stringify(v);

export function requestLog(write: (line: string) => void): RequestLog {
  return (req, res, verb) => {
    const started = process.hrtime.bigint();
    const userAgent = String(req.headers['user-agent'] ?? '');
    const srcIP = `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}`;
    res.once('close', () => {
      const latency = formatGoDuration(process.hrtime.bigint() - started);
      // the wall clock to the microsecond, as klog prints it
      const t = performance.timeOrigin + performance.now();
      const now = new Date(Math.floor(t));
      const auditID = String(res.getHeader('Audit-Id') ?? '');
      write(
        `${klogHeader(now, Math.floor((t % 1000) * 1000))} "HTTP" verb=${quoted(verb())} URI=${quoted(req.url ?? '')} latency=${quoted(latency)} userAgent=${quoted(userAgent)} audit-ID=${quoted(auditID)} srcIP=${quoted(srcIP)} resp=${res.statusCode}\n`,
      );
    });
  };
}
