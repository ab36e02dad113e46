// Regression tests for two connection-level defects of the HTTP layer, measured on raw sockets
// against a real listener on 127.0.0.1:
//
// 1. A HEAD with watch=1 answered 200 and then held the response open (a watch whose body
//    HEAD never sends): the keep-alive connection was pinned and the next request on it got
//    no answer. A HEAD reply is its headers; the connection serves the next request.
// 2. A request whose path holds raw non-ASCII bytes (refused by Node's parser) and a large
//    body was reset instead of answered 400: the clientError handler destroyed the socket at
//    the parser's next report, while the client was still sending and, over TLS, before the
//    reply had gone out. The reply must always arrive, whatever the client does meanwhile.
import { connect as netConnect, type Socket } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMap, startServer, type TestServer } from './helpers.ts';

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * A keep-alive HTTP/1.1 connection that writes bytes as given and reads the replies in order
 * (`head` tells a HEAD reply, which has no body whatever its headers say).
 */
class RawConnection {
  private buf = Buffer.alloc(0);
  private waiter: (() => void) | undefined;
  closed = false;
  errors: string[] = [];

  constructor(readonly sock: Socket) {
    sock.on('data', (c: Buffer) => {
      this.buf = Buffer.concat([this.buf, c]);
      this.waiter?.();
    });
    sock.on('error', (e: NodeJS.ErrnoException) => this.errors.push(e.code ?? e.message));
    sock.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const s = netConnect({ host: '127.0.0.1', port });
      s.once('connect', () => resolve(new RawConnection(s)));
      s.once('error', reject);
    });
  }

  write(s: string): void {
    this.sock.write(s);
  }

  /** The next complete reply, or an error naming what arrived after `timeoutMs`. */
  async reply(head: boolean, timeoutMs = 5000): Promise<Parsed> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = this.take(head);
      if (r) return r;
      if (this.closed)
        throw new Error(`connection closed; unread: ${JSON.stringify(this.buf.toString('latin1'))}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no reply within ${timeoutMs} ms; unread: ${JSON.stringify(this.buf.toString('latin1'))}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.waiter = undefined;
    }
  }

  private take(head: boolean): Parsed | undefined {
    const r = parseReply(this.buf, head);
    if (!r) return undefined;
    this.buf = this.buf.subarray(r.length);
    return r.reply;
  }

  close(): void {
    this.sock.destroy();
  }
}

/** One reply at the start of `buf` if complete (Content-Length, chunked or no body), with its length. */
function parseReply(buf: Buffer, head: boolean): { reply: Parsed; length: number } | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const start = end + 4;
  if (head || status === 204 || status === 304)
    return { reply: { status, headers, body: Buffer.alloc(0) }, length: start };
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let i = start;
    for (;;) {
      const nl = buf.indexOf('\r\n', i);
      if (nl < 0) return undefined;
      const n = Number.parseInt(buf.subarray(i, nl).toString('latin1'), 16);
      if (buf.length < nl + 2 + n + 2) return undefined;
      if (n === 0) return { reply: { status, headers, body: Buffer.concat(parts) }, length: nl + 4 };
      parts.push(buf.subarray(nl + 2, nl + 2 + n));
      i = nl + 2 + n + 2;
    }
  }
  const n = Number(headers['content-length'] ?? 0);
  if (buf.length < start + n) return undefined;
  return { reply: { status, headers, body: buf.subarray(start, start + n) }, length: start + n };
}

/** Listeners the store holds for watches (to show a HEAD leaves none behind). */
function watcherCount(t: TestServer): number {
  const buckets = (t.server.storage as any).buckets as Map<string, any>;
  let n = 0;
  for (const b of buckets.values()) {
    n += b.watchers.size;
    for (const s of b.byPrefix.values()) n += s.size;
    for (const s of b.byKey.values()) n += s.size;
  }
  return n;
}

describe('HEAD on a watch: headers only, and the connection carries on', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ tls: false });
    const r = await t.req('POST', '/api/v1/namespaces/default/configmaps', configMap('existing', { a: 'b' }));
    expect(r.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  const request = (method: string, target: string) =>
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.token}\r\n\r\n`;

  const watchTargets = [
    '/api/v1/namespaces/default/configmaps?watch=1',
    '/api/v1/namespaces/default/configmaps/existing?watch=1',
    '/api/v1/configmaps?watch=true',
    '/api/v1/watch/namespaces/default/configmaps',
    '/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&labelSelector=a%3Db&resourceVersion=0',
  ];

  for (const target of watchTargets) {
    it(`HEAD ${target}: 200 with the watch's headers, then a GET on the same connection`, async () => {
      const before = watcherCount(t);
      const c = await RawConnection.open(Number(new URL(t.url).port));
      try {
        c.write(request('HEAD', target));
        const h = await c.reply(true);
        // the headers a watch has (GET answers 200 and streams), and no body
        expect(h.status).toBe(200);
        expect(h.headers['content-type']).toMatch(/^application\/json/);
        expect(h.headers.connection).toBe('keep-alive');

        c.write(request('GET', '/api/v1/namespaces/default/configmaps/existing'));
        const g = await c.reply(false);
        expect(g.status).toBe(200);
        expect(JSON.parse(g.body.toString('utf8')).data).toEqual({ a: 'b' });
        expect(c.errors).toEqual([]);
      } finally {
        c.close();
      }
      // the watch the HEAD started is stopped, not left running
      await new Promise((r) => setTimeout(r, 50));
      expect(watcherCount(t)).toBe(before);
    });
  }

  it('HEAD watch and GET pipelined in one write: both answered in order', async () => {
    const c = await RawConnection.open(Number(new URL(t.url).port));
    try {
      c.write(
        request('HEAD', '/api/v1/namespaces/default/configmaps?watch=1') +
          request('GET', '/api/v1/namespaces/default/configmaps/existing'),
      );
      expect((await c.reply(true)).status).toBe(200);
      const g = await c.reply(false);
      expect(g.status).toBe(200);
      expect(JSON.parse(g.body.toString('utf8')).metadata.name).toBe('existing');
    } finally {
      c.close();
    }
  });

  it('a HEAD watch the GET would refuse gets the same status, and the connection carries on', async () => {
    const c = await RawConnection.open(Number(new URL(t.url).port));
    try {
      c.write(request('HEAD', '/api/v1/namespaces/default/configmaps?watch=1&labelSelector=a%20in%20('));
      const h = await c.reply(true);
      expect(h.status).toBe(400);
      c.write(request('GET', '/readyz'));
      expect((await c.reply(false)).status).toBe(200);
    } finally {
      c.close();
    }
  });

  it('the GET watch still streams (a HEAD-only change)', async () => {
    const c = await RawConnection.open(Number(new URL(t.url).port));
    try {
      c.write(request('GET', '/api/v1/namespaces/default/configmaps?watch=1'));
      // the reply stays open: its headers and the first event arrive, never the last chunk
      await expect(c.reply(false, 500)).rejects.toThrow(/no reply within/);
      expect(c.closed).toBe(false);
    } finally {
      c.close();
    }
  });
});

// ------------------------------------------------------------------------------------------

const BODY_BYTES = 5 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

interface UploadResult {
  reply?: Parsed;
  errors: string[];
  sent: number;
}

/**
 * Writes `head`, then a `BODY_BYTES` body in chunks (with back-pressure), reading meanwhile.
 * `halfOpen`: the client keeps sending the whole body after the server's FIN, as a client that
 * writes its request before reading; otherwise it stops once the server has ended.
 */
function upload(t: TestServer, tls: boolean, head: Buffer, halfOpen: boolean): Promise<UploadResult> {
  const port = Number(new URL(t.url).port);
  return new Promise((resolve) => {
    const sock: Socket = tls
      ? // tls.connect hands allowHalfOpen to the TLSSocket (absent from its typings)
        tlsConnect({
          host: '127.0.0.1',
          port,
          rejectUnauthorized: false,
          allowHalfOpen: halfOpen,
        } as ConnectionOptions)
      : netConnect({ host: '127.0.0.1', port, allowHalfOpen: halfOpen });
    let buf = Buffer.alloc(0);
    const result: UploadResult = { errors: [], sent: 0 };
    let bodyDone = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(result);
    };
    const check = () => {
      result.reply ??= parseReply(buf, false)?.reply;
      // a reply that keeps the connection open is done once the body is sent
      if (result.reply && bodyDone && result.reply.headers.connection !== 'close') finish();
    };
    const timer = setTimeout(finish, 20_000);
    sock.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      check();
    });
    sock.on('error', (e: NodeJS.ErrnoException) => {
      result.errors.push(e.code ?? e.message);
      finish();
    });
    sock.on('close', finish);
    sock.on('end', () => {
      check();
      if (!halfOpen) finish();
    });
    sock.once(tls ? 'secureConnect' : 'connect', async () => {
      sock.write(head);
      while (result.sent < BODY_BYTES && !done) {
        const ok = sock.write(CHUNK);
        result.sent += CHUNK.length;
        if (!ok)
          await new Promise<void>((r) => {
            const go = () => {
              sock.off('drain', go);
              sock.off('close', go);
              r();
            };
            sock.on('drain', go);
            sock.on('close', go);
          });
      }
      bodyDone = true;
      check();
      if (!done && halfOpen) sock.end();
    });
  });
}

function putHead(t: TestServer, pathBytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from('PUT /api/v1/namespaces/default/configmaps/', 'latin1'),
    pathBytes,
    Buffer.from(
      ` HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`,
      'latin1',
    ),
  ]);
}

function expectStatusReply(r: UploadResult, codes: number[], label: string): void {
  expect(r.errors, label).toEqual([]);
  expect(r.reply, `${label}: no reply`).toBeDefined();
  const { status, headers, body } = r.reply!;
  expect(codes, `${label}: ${status} ${body.toString('utf8')}`).toContain(status);
  expect(headers['content-type'], label).toMatch(/^application\/json/);
  expect(JSON.parse(body.toString('utf8')), label).toMatchObject({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: status,
  });
}

// raw bytes Node's parser refuses in a request target: UTF-8 é, and bytes that are no UTF-8
const RAW_NAMES = [
  Buffer.from('caf\xc3\xa9', 'latin1'),
  Buffer.from('caf\xff', 'latin1'),
  Buffer.from('\x80x', 'latin1'),
  Buffer.from('x\xc3', 'latin1'),
];
const ROUNDS = 24;

for (const tls of [false, true]) {
  describe(`PUT with raw non-ASCII bytes in the path and a 5 MB body (${tls ? 'HTTPS' : 'HTTP'})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startServer({ tls });
    });
    afterAll(async () => {
      await t?.close();
    });

    for (const halfOpen of [false, true]) {
      const mode = halfOpen ? 'the client sends the whole body' : 'the client stops when the server ends';
      it(`always a 400 Status, never a reset (${ROUNDS} rounds; ${mode})`, async () => {
        const outcomes: string[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          const name = RAW_NAMES[i % RAW_NAMES.length]!;
          const r = await upload(t, tls, putHead(t, name), halfOpen);
          outcomes.push(r.reply ? String(r.reply.status) : `no reply (${r.errors.join(',') || 'closed'})`);
          expectStatusReply(r, [400], `round ${i} (${name.toString('hex')}): ${outcomes.join(' ')}`);
          expect(r.reply!.headers.connection).toBe('close');
          expect(JSON.parse(r.reply!.body.toString('utf8')).reason).toBe('BadRequest');
        }
        // the server carries on
        expect((await t.req('GET', '/readyz')).status).toBe(200);
      });
    }

    it('the same bytes percent-encoded: a Status (400 or 413), never a reset', async () => {
      for (const target of ['caf%C3%A9', 'caf%FF', '%80x']) {
        for (let i = 0; i < 4; i++) {
          const r = await upload(t, tls, putHead(t, Buffer.from(target, 'latin1')), false);
          expectStatusReply(r, [400, 413], `${target} round ${i}`);
        }
      }
    });
  });
}
