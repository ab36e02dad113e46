// Writing replies: the negotiated encoding (JSON, YAML, Protobuf, Table), gzip for get and
// list when asked, and `Warning` headers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { jsonBytes } from '../content/json.ts';
import { type Negotiated, negotiate, PROTOBUF_TYPE } from '../content/negotiate.ts';
import { encodeProtobuf, hasProtobuf } from '../content/protobuf.ts';
import { StatusError } from '../errors/status.ts';
import { yaml } from '../util/yaml.ts';

/**
 * `Warning: 299 - "<text>"` values. The text is client-influenced (unknown field names): it is
 * quoted with JSON escapes (control characters included, DEL too) and sent as UTF-8 bytes, as
 * Go writes it; Node would throw on characters outside Latin-1.
 */
export function warningHeaders(warnings: string[]): string[] {
  return warnings.map((w) =>
    Buffer.from(`299 - ${JSON.stringify(w).replace(/\x7f/g, '\\u007f')}`, 'utf8').toString('latin1'),
  );
}

export interface WriteOptions {
  gzip?: boolean;
  warnings?: string[];
  headers?: Readonly<Record<string, string>>;
  compression?: boolean;
  /** Told the body's length once it is written (the response-size metric). */
  sized?: { bytes: number | undefined };
}

export function writeEncoded(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  obj: unknown,
  out: Negotiated,
  o: WriteOptions = {},
): void {
  let body: Buffer;
  let contentType = out.contentType;
  const o2 = obj as { apiVersion?: string; kind?: string };
  if (out.format === 'protobuf' && o2 && hasProtobuf(o2.apiVersion ?? '', o2.kind ?? '')) {
    body = encodeProtobuf(obj as Record<string, unknown>);
    contentType = PROTOBUF_TYPE;
  } else if (out.format === 'yaml') {
    body = Buffer.from(yaml().stringify(obj));
  } else {
    body = jsonBytes(obj);
    if (out.format !== 'json' && out.format !== 'table') contentType = 'application/json';
    if (out.format === 'table' && o2?.kind !== 'Table') contentType = 'application/json';
  }
  const headers: Record<string, string | string[] | number> = {
    'Content-Type': contentType,
    ...(o.headers ?? {}),
  };
  if (o.warnings?.length) headers.Warning = warningHeaders(o.warnings);
  if (o.gzip && o.compression !== false && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    body = gzipSync(body, { level: 1 });
    headers['Content-Encoding'] = 'gzip';
    headers.Vary = 'Accept-Encoding';
  }
  headers['Content-Length'] = body.length;
  if (o.sized) o.sized.bytes = body.length;
  res.writeHead(status, headers);
  res.end(body);
}

/** Headers set on a reply ahead of its head (a reply whose writer is not ours: a route's, a stream's). */
export function setHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const k in headers) res.setHeader(k, headers[k]!);
}

export function writeError(
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  out: Negotiated | undefined,
  warnings: string[] = [],
  sized?: { bytes: number | undefined },
  headers?: Readonly<Record<string, string>>,
): void {
  const se = err instanceof StatusError ? err : undefined;
  const status = se
    ? se.toStatus()
    : new StatusError(
        500,
        'InternalError',
        `Internal error occurred: ${String((err as Error)?.message ?? err)}`,
      ).toStatus();
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const fmt: Negotiated = out && out.format !== 'table' ? out : statusFormat(req, status.code);
  const all = headers && se?.headers ? { ...headers, ...se.headers } : (se?.headers ?? headers);
  writeEncoded(req, res, status.code, status, fmt, { warnings, headers: all, sized });
}

/**
 * The encoding of a Status for an error raised before (or by) the request's own negotiation:
 * Status has a Protobuf form, so a client asking for Protobuf gets it, except for a 406 (its
 * Protobuf was refused: Kubernetes then answers in JSON).
 */
function statusFormat(req: IncomingMessage, code: number): Negotiated {
  if (code !== 406) {
    try {
      const n = negotiate(req.headers.accept, { protobuf: true, table: false });
      if (n.format === 'protobuf') return n;
    } catch {
      // nothing acceptable: JSON
    }
  }
  return { format: 'json', contentType: 'application/json' };
}
