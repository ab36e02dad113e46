// Streams a request to a backend and its answer back, as Kubernetes' proxy handler does for the
// connect subresources (`services/proxy`, `pods/proxy`, `nodes/proxy`, and the node agent's
// log/exec/attach/portforward endpoints): the method, the headers (less the hop-by-hop ones
// and the credentials the server already used) and the body go to the backend at the
// location's host with the location's path; the backend's status, headers and body come
// back unchanged. A backend that cannot be reached is a 503 ServiceUnavailable.
import {
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request as httpRequest,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { errors } from '../errors/status.ts';
import { writeError } from './respond.ts';

/** Headers that belong to one connection (RFC 9110 7.6.1), never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Request headers the server consumed itself: the client's credentials are for the server, not the backend. */
const CONSUMED = new Set(['authorization', 'host']);

function passOn(headers: IncomingMessage['headers'], drop: Set<string>): OutgoingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || drop.has(k) || named.has(k)) continue;
    if (k.startsWith('impersonate-')) continue;
    out[k] = v;
  }
  return out;
}

/** Go's wording of a failed dial, which Kubernetes' message carries. */
function dialError(e: NodeJS.ErrnoException, host: string): string {
  if (e.code === 'ECONNREFUSED') return `dial tcp ${host}: connect: connection refused`;
  if (e.code === 'ETIMEDOUT') return `dial tcp ${host}: i/o timeout`;
  if (e.code === 'EHOSTUNREACH') return `dial tcp ${host}: connect: no route to host`;
  return e.message;
}

/**
 * Sends the request to `location` (scheme, host, path; the request's own query is kept) and
 * pipes the answer back. Resolves once the answer is complete or has failed.
 */
export function forward(
  req: IncomingMessage,
  res: ServerResponse,
  location: URL,
  query: string,
): Promise<void> {
  return new Promise((resolve) => {
    const https = location.protocol === 'https:';
    const send = https ? httpsRequest : httpRequest;
    const headers = passOn(req.headers, CONSUMED);
    headers.host = location.host;
    const out = send(
      {
        protocol: location.protocol,
        hostname: location.hostname.replace(/^\[|\]$/g, ''),
        port: location.port || (https ? 443 : 80),
        method: req.method,
        path: `${location.pathname || '/'}${query ? `?${query}` : ''}`,
        headers,
        // the backends are the cluster's own: Kubernetes' proxy transport does not verify them either
        rejectUnauthorized: false,
      },
      (back) => {
        res.writeHead(back.statusCode ?? 502, back.statusMessage, passOn(back.headers, new Set()));
        back.pipe(res);
        back.on('end', () => resolve());
        back.on('error', () => {
          res.destroy();
          resolve();
        });
      },
    );
    out.on('error', (e: NodeJS.ErrnoException) => {
      if (res.headersSent) res.destroy();
      else
        writeError(
          req,
          res,
          errors.unavailable(`error trying to reach service: ${dialError(e, location.host)}`),
          undefined,
          [],
        );
      resolve();
    });
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
}
