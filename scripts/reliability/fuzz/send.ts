// A raw HTTP/1.1 exchange on a plain socket: the request line, headers and body exactly as
// generated (no URL normalisation, no header validation, odd methods), one connection per
// request. The connection is not marked `Connection: close`: a server that answers before
// reading the whole body (a refusal) then reads and drops the rest, where closing would reset
// the connection under its answer; the exchange ends when the answer is complete (its length,
// its last chunk) or the server closes. A streamed answer (chunked: a watch, a followed log) is read
// for a short while after its headers, then hung up on; any other answer must end within
// `timeoutMs` or the exchange is reported as a hang.
import { connect } from 'node:net';
import type { FuzzRequest } from './fuzz-request.ts';

export interface Answer {
  /** 0 when no status line came back. */
  status: number;
  headers: Record<string, string>;
  /** The body, de-chunked (possibly cut short for a stream). */
  body: Buffer;
  /** The connection ended (or was hung up on) before a complete answer. */
  incomplete: boolean;
  /** Hung up on after a short read of a stream. */
  streamCut: boolean;
  /** No complete answer within the time allowed. */
  timedOut: boolean;
  /** A socket error before anything came back. */
  error?: string;
  ms: number;
}

export interface SendOptions {
  timeoutMs?: number;
  /** How long a stream is read after its headers. */
  streamMs?: number;
}

export function requestHead(url: URL, r: FuzzRequest): Buffer {
  const h: [string, string][] = [['Host', url.host], ...r.headers];
  const chunked = r.headers.some(([k, v]) => /^transfer-encoding$/i.test(k) && /chunked/i.test(v));
  if (r.body !== undefined) h.push(['Content-Length', String(r.body.length)]);
  const text = `${r.method} ${r.target} HTTP/1.1\r\n${h.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
  // chunked and no body: the last chunk, so the server does not wait for more
  return Buffer.concat([
    Buffer.from(text, 'latin1'),
    chunked && r.body === undefined ? Buffer.from('0\r\n\r\n') : Buffer.alloc(0),
  ]);
}

const HEAD_END = Buffer.from('\r\n\r\n');

export function send(base: string, r: FuzzRequest, opts: SendOptions = {}): Promise<Answer> {
  const url = new URL(base);
  const started = Date.now();
  return new Promise((resolve) => {
    const sock = connect({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let streamTimer: NodeJS.Timeout | undefined;
    let streamCut = false;
    let timedOut = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(streamTimer);
      sock.destroy();
      const a = parseAnswer(Buffer.concat(chunks));
      resolve({
        ...a,
        streamCut,
        timedOut: timedOut && !streamCut,
        error: size === 0 ? error : undefined,
        ms: Date.now() - started,
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      finish('no answer in time');
    }, opts.timeoutMs ?? 20_000);
    // how the answer ends, known once its final head is in: the data events then cost only
    // their own bytes (a list of megabytes objects comes in thousands of pieces)
    let framing: Framing | undefined;
    let tail = Buffer.alloc(0);
    sock.on('data', (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (done) return;
      if (!framing) {
        framing = framingOf(Buffer.concat(chunks), r.method);
        if (!framing) return;
        if (framing.kind === 'chunked')
          streamTimer = setTimeout(() => {
            streamCut = true;
            finish();
          }, opts.streamMs ?? 1500);
      }
      if (framing.kind === 'bodiless') finish();
      else if (framing.kind === 'length' && size >= framing.end) finish();
      else if (framing.kind === 'chunked') {
        tail = Buffer.concat([tail, c]).subarray(-8);
        // the last chunk seen at the end of what came: confirmed on the whole (rarely done)
        if (tail.toString('latin1').endsWith('0\r\n\r\n') && !parseAnswer(Buffer.concat(chunks)).incomplete)
          finish();
      }
    });
    sock.on('end', () => finish());
    sock.on('close', () => finish());
    sock.on('error', (e) => finish(e.message));
    // the body goes in pieces and stops once an answer comes: a server refusing a large body
    // answers early and closes, and writing on would reset the connection under the answer
    const body = r.body ?? Buffer.alloc(0);
    let off = 0;
    const pump = () => {
      while (size === 0 && off < body.length && !done) {
        const piece = body.subarray(off, off + 65_536);
        off += piece.length;
        if (!sock.write(piece)) {
          sock.once('drain', pump);
          return;
        }
      }
    };
    sock.on('connect', () => {
      sock.write(requestHead(url, r));
      pump();
    });
  });
}

/** Status, headers and de-chunked body of the final answer (interim 1xx answers skipped). */
export function parseAnswer(buf: Buffer): Pick<Answer, 'status' | 'headers' | 'body' | 'incomplete'> {
  let rest = buf;
  for (;;) {
    const end = rest.indexOf(HEAD_END);
    if (end < 0) return { status: 0, headers: {}, body: Buffer.alloc(0), incomplete: true };
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
    if (status >= 100 && status < 200 && status !== 101) {
      rest = rest.subarray(end + 4);
      continue;
    }
    const headers: Record<string, string> = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      if (i > 0) {
        const k = l.slice(0, i).trim().toLowerCase();
        const v = l.slice(i + 1).trim();
        headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
      }
    }
    let body = rest.subarray(end + 4);
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
        if (nl + 2 + n > body.length) {
          out.push(body.subarray(nl + 2));
          incomplete = true;
          break;
        }
        out.push(body.subarray(nl + 2, nl + 2 + n));
        i = nl + 2 + n + 2;
      }
      body = Buffer.concat(out);
    } else if (headers['content-length'] !== undefined) {
      const n = Number(headers['content-length']);
      if (body.length < n) incomplete = true;
      body = body.subarray(0, n);
    }
    return { status, headers, body, incomplete };
  }
}

type Framing =
  | { kind: 'bodiless' }
  | { kind: 'length'; end: number }
  | { kind: 'chunked' }
  | { kind: 'close' };

/** How the final answer in `buf` ends, or undefined while its head is not all there. */
function framingOf(buf: Buffer, method: string): Framing | undefined {
  let off = 0;
  for (;;) {
    const end = buf.indexOf(HEAD_END, off);
    if (end < 0) return undefined;
    const head = buf.toString('latin1', off, end);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
    if (status >= 100 && status < 200 && status !== 101) {
      off = end + 4;
      continue;
    }
    if (/^HEAD$/i.test(method) || status === 204 || status === 304) return { kind: 'bodiless' };
    if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) return { kind: 'chunked' };
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
    if (length !== undefined) return { kind: 'length', end: end + 4 + Number(length) };
    return { kind: 'close' };
  }
}
