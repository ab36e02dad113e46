// Errors outside a handled request: a request node's parser refused or a CONNECT tunnel
// (answered on the raw socket, whose remaining input is drained), and a reply that could not
// be written (a bare 500, or a reset connection).

import type { IncomingMessage } from 'node:http';
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errors, StatusError } from '../errors/status.ts';

/** An 'error' listener (or rejection handler) that drops what it gets. */
export const ignore = () => {};

/**
 * After a refused request the client may still be sending (a large body behind a bad request
 * line): the rest is read and discarded, up to these bounds, before the connection is closed.
 */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 30_000;
/** Sockets already answered by clientErrorHandler: bytes discarded since. */
const draining = new WeakMap<Duplex, { bytes: number }>();

/**
 * A request the HTTP parser refused (malformed request line or headers, headers past the
 * size limit): answered with a Status on the raw socket, then the connection is closed.
 *
 * Node's parser stays in its error state and reports the error again for every later chunk
 * of the connection. Those later reports are the rest of the request arriving (typically its
 * body): they are ignored, so the bytes are read and dropped while the reply, ended with
 * `Connection: close` and a half-close, reaches the client. Destroying the socket there
 * would reset the connection with unread data, and the client (always over TLS, whose reply
 * is still being written at that point) would lose the reply.
 */
export function clientErrorHandler(
  err: Error & { code?: string; reason?: string; rawPacket?: Buffer },
  socket: Duplex,
): void {
  const drain = draining.get(socket);
  if (drain) {
    drain.bytes += err.rawPacket?.length ?? 0;
    if (err.code === 'ECONNRESET' || drain.bytes > DRAIN_MAX_BYTES) socket.destroy();
    return;
  }
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  let se: StatusError;
  if (err.code === 'HPE_HEADER_OVERFLOW') se = errors.headersTooLarge();
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    se = new StatusError(408, 'Timeout', 'the request was not received in time');
  else se = errors.badRequest(`malformed HTTP request: ${err.reason ?? err.code ?? 'parse error'}`);
  draining.set(socket, { bytes: 0 });
  answerOnSocket(socket, se);
}

/**
 * A CONNECT request: Node hands it over as a tunnel, outside the request handler, and closes
 * the connection unanswered when nobody takes it. No route of the API serves CONNECT (the
 * connect subresources take GET and POST): 405 with a Status, as Kubernetes' router answers a
 * method it does not serve; what the client sends after it is read and dropped.
 */
export function connectMethodHandler(_req: IncomingMessage, socket: Duplex): void {
  socket.on('data', ignore);
  answerOnSocket(socket, errors.methodNotAllowed());
}

/** A Status written on the raw socket, the connection half-closed (cut off in the end). */
function answerOnSocket(socket: Duplex, se: StatusError): void {
  const body = JSON.stringify(se.toStatus());
  socket.on('error', ignore);
  // a client that neither stops sending nor closes is cut off in the end
  const timer = setTimeout(() => socket.destroy(), DRAIN_MAX_MS);
  timer.unref?.();
  socket.once('close', () => clearTimeout(timer));
  socket.end(
    `HTTP/1.1 ${se.code} ${STATUS_CODES[se.code] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Last resort when writing the error reply itself failed: a bare 500, or a reset connection. */
export function lastResort(res: ServerResponse, e: unknown): void {
  console.error('internal error while answering a request:', e);
  try {
    if (res.headersSent || res.writableEnded) {
      res.destroy();
      return;
    }
    const body = JSON.stringify(errors.internal('the reply could not be written').toStatus());
    res.writeHead(500, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  } catch {
    res.destroy();
  }
}
