// Support for the bad-input, path, error and fuzz tests: a raw HTTP/1.1 client on a plain
// socket (paths, methods and headers exactly as written: no URL normalisation, no header
// validation), Status assertions, and a store fingerprint to show a rejected request
// changed nothing.
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { expect } from 'vitest';
import type { TestServer } from './helpers.ts';

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  json: any;
  /** The server closed the connection without a complete response. */
  incomplete: boolean;
}

/**
 * Sends `head` (request line and headers, CRLF-terminated) and `body` as is; reads until the
 * server closes. With `tls`, over TLS (the server's certificate not checked), presenting the
 * client certificate given.
 */
export function rawExchange(
  url: string,
  head: string | Buffer,
  body?: Buffer | string,
  opts: { timeoutMs?: number; destroyAfterWrite?: boolean; tls?: { cert?: string; key?: string } } = {},
): Promise<RawReply> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const port = Number(u.port);
    const sock = opts.tls
      ? tlsConnect({ host: u.hostname, port, rejectUnauthorized: false, ...opts.tls })
      : connect({ host: u.hostname, port });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(parseResponse(Buffer.concat(chunks)));
    };
    const timer = setTimeout(finish, opts.timeoutMs ?? 10_000);
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('end', finish);
    sock.on('close', finish);
    sock.on('error', (e) => {
      if (chunks.length) finish();
      else if (!done) {
        done = true;
        clearTimeout(timer);
        reject(e);
      }
    });
    sock.on(opts.tls ? 'secureConnect' : 'connect', () => {
      sock.write(head);
      if (body !== undefined) sock.write(body);
      if (opts.destroyAfterWrite) setTimeout(() => sock.destroy(), 20);
    });
  });
}

/** A response as read off the socket: status, headers, the body (de-chunked) and its JSON. */
export function parseResponse(buf: Buffer): RawReply {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0)
    return { status: 0, headers: {}, body: Buffer.alloc(0), text: '', json: undefined, incomplete: true };
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    if (i > 0) {
      const k = l.slice(0, i).trim().toLowerCase();
      headers[k] =
        headers[k] === undefined ? l.slice(i + 1).trim() : `${headers[k]}, ${l.slice(i + 1).trim()}`;
    }
  }
  let body = buf.subarray(end + 4);
  let incomplete = false;
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const out: Buffer[] = [];
    let i = 0;
    for (;;) {
      const nl = body.indexOf('\r\n', i);
      if (nl < 0) {
        incomplete = true;
        break;
      }
      const n = Number.parseInt(body.subarray(i, nl).toString('latin1'), 16);
      if (!Number.isFinite(n)) {
        incomplete = true;
        break;
      }
      if (n === 0) break;
      out.push(body.subarray(nl + 2, nl + 2 + n));
      i = nl + 2 + n + 2;
    }
    body = Buffer.concat(out);
  } else if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    if (body.length < n) incomplete = true;
    body = body.subarray(0, n);
  }
  const text = body.toString('utf8');
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, body, text, json, incomplete };
}

export interface RawOptions {
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Bearer token; `null` sends none. Default: the server's admin token. */
  token?: string | null;
  timeoutMs?: number;
}

/** One request on its own connection, the target written verbatim. */
export function raw(t: TestServer, method: string, target: string, o: RawOptions = {}): Promise<RawReply> {
  const h: Record<string, string> = { Host: '127.0.0.1', Connection: 'close', ...(o.headers ?? {}) };
  const token = o.token === undefined ? t.token : o.token;
  if (token !== null) h.Authorization = `Bearer ${token}`;
  if (o.body !== undefined) {
    h['Content-Length'] ??= String(Buffer.byteLength(o.body));
    h['Content-Type'] ??= 'application/json';
  }
  const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return rawExchange(t.url, head, o.body, { timeoutMs: o.timeoutMs });
}

/** A reply is a Kubernetes `Status` failure with this code and reason. */
export function expectStatus(
  r: { status: number; headers: Record<string, unknown>; json: any; text: string },
  code: number,
  reason: string,
): void {
  expect(r.status, r.text).toBe(code);
  expect(String(r.headers['content-type'] ?? '')).toMatch(/^application\/json/);
  expect(r.json, r.text).toMatchObject({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    reason,
  });
  expect(typeof r.json.message).toBe('string');
  expect(r.json.message.length).toBeGreaterThan(0);
}

/** Any client error: a 4xx Status. */
export function expectClientError(r: {
  status: number;
  headers: Record<string, unknown>;
  json: any;
  text: string;
}): void {
  expect(r.status, r.text).toBeGreaterThanOrEqual(400);
  expect(r.status, r.text).toBeLessThan(500);
  expect(r.json, r.text).toMatchObject({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: r.status,
  });
}

/** Everything the store holds, as `key -> resourceVersion`, plus the revision. */
export function fingerprint(t: TestServer): { revision: number; objects: Record<string, string> } {
  const storage = t.server.storage as unknown as {
    snapshot?: () => { objects: { key: string; rv: number }[] };
  };
  const objects: Record<string, string> = {};
  for (const o of storage.snapshot?.().objects ?? []) objects[o.key] = String(o.rv);
  return { revision: t.server.storage.revision(), objects };
}

/** Runs a request that must be refused and checks the store did not change. */
export async function refused<R>(t: TestServer, f: () => Promise<R>): Promise<R> {
  const before = fingerprint(t);
  const r = await f();
  expect(fingerprint(t)).toEqual(before);
  return r;
}
