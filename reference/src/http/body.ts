// A request's body: read up to the size limit, and decoded as its audit event holds it.
import type { IncomingMessage } from 'node:http';
import { errors, type StatusError } from '../errors/status.ts';
import { yaml } from '../util/yaml.ts';

/** The whole body of a request, refused (413) past `limit` bytes, declared or sent. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? -1);
    if (declared > limit) {
      req.resume();
      reject(errors.tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (e: StatusError) => {
      if (settled) return;
      settled = true;
      reject(e);
    };
    req.on('data', (c: Buffer) => {
      if (settled) return;
      size += c.length;
      if (size > limit) {
        chunks.length = 0;
        fail(errors.tooLarge(limit));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', (e) => fail(errors.badRequest(`error reading request body: ${e.message}`)));
    // a client that goes away mid-body: the handler must not wait for an 'end' that never comes
    req.on('close', () => {
      if (!req.complete)
        fail(errors.badRequest('the client closed the connection before sending the whole body'));
    });
  });
}

/** A request's body as its audit event holds it: JSON and YAML decoded, other encodings left out. */
export function auditedBody(b: Buffer, contentType: string | undefined): unknown {
  if (!b.length) return undefined;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  try {
    // (no duplicate-key check: it is quadratic in the keys, and the request's decoder made it already)
    if (type.endsWith('yaml')) return yaml().parse(b.toString('utf8'), { uniqueKeys: false });
    if (type === '' || type.endsWith('json')) return JSON.parse(b.toString('utf8'));
  } catch {
    // a body that does not decode is refused by the handler; the event has no object
  }
  return undefined;
}
