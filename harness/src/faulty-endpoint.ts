// A faulty API endpoint: a real TCP server on 127.0.0.1 (TLS optional) that misbehaves in one
// chosen way, so the harness can be shown to end every operation within its timeout with a
// message saying what the endpoint did. Each connection reads one request head, then:
//   stalled          answers nothing (the connection stays open)
//   stalled-headers  sends a status line and some headers, never the blank line ending them
//   reset            sends the head and part of the body, then resets the connection (RST)
//   garbage          answers bytes that are not HTTP, then closes
//   half-closed      sends the head and part of the body, then ends its side (FIN)
//   closed           ends its side as soon as the request head arrives, before any byte
//   slow             trickles a valid answer, head included, one byte every `slowByteMs` (a
//                    watch gets its head at once, then a valid event stream trickled the same way)
//   watch-stall      answers a watch with a valid chunked stream holding one event, then
//                    nothing (other requests get a valid JSON list)
//   bad-json         answers 200 application/json whose body is not JSON; a watch gets a
//                    chunked stream whose event document is cut in the middle
import { randomBytes } from 'node:crypto';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';

export const FAULT_MODES = [
  'stalled',
  'stalled-headers',
  'reset',
  'garbage',
  'half-closed',
  'closed',
  'slow',
  'watch-stall',
  'bad-json',
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

export interface FaultyEndpointOptions {
  /** PEM key and certificate: serve HTTPS instead of HTTP. */
  tls?: { key: string; cert: string };
  /** `slow`: milliseconds between two bytes (default 300). */
  slowByteMs?: number;
}

export interface FaultyEndpoint {
  url: string;
  mode: FaultMode;
  /** Connections accepted so far. */
  connections(): number;
  /** Request heads received so far. */
  requests(): number;
  close(): Promise<void>;
}

const CRLF = '\r\n';

function head(status: string, headers: Record<string, string>): string {
  return `HTTP/1.1 ${status}${CRLF}${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}${CRLF}`)
    .join('')}${CRLF}`;
}

function chunk(s: string): string {
  return `${Buffer.byteLength(s).toString(16)}${CRLF}${s}${CRLF}`;
}

const LIST = JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] });
const EVENT = `${JSON.stringify({
  type: 'ADDED',
  object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'faulty-endpoint', namespace: 'default', resourceVersion: '1' }, data: {} },
})}\n`;

/** A complete, valid answer to a request (a watch gets a chunked stream that stays open). */
function validAnswer(watch: boolean): { head: string; body: string } {
  if (watch)
    return {
      head: head('200 OK', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
      body: chunk(EVENT),
    };
  return {
    head: head('200 OK', { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(LIST)), connection: 'close' }),
    body: LIST,
  };
}

export async function startFaultyEndpoint(mode: FaultMode, o: FaultyEndpointOptions = {}): Promise<FaultyEndpoint> {
  if (!FAULT_MODES.includes(mode)) throw new Error(`unknown fault mode "${mode}" (${FAULT_MODES.join(', ')})`);
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let connections = 0;
  let requests = 0;
  const slowByteMs = o.slowByteMs ?? 300;

  const trickle = (socket: Socket, data: string) => {
    let i = 0;
    const t = setInterval(() => {
      if (socket.destroyed || i >= data.length) {
        clearInterval(t);
        timers.delete(t);
        return;
      }
      socket.write(data[i++]!);
    }, slowByteMs);
    timers.add(t);
  };

  const answer = (socket: Socket, requestHead: string) => {
    requests++;
    const watch = /[?&]watch=(1|true)(&|\s|$)/.test(requestHead.split(CRLF)[0] ?? '');
    switch (mode) {
      case 'stalled':
        return;
      case 'stalled-headers':
        socket.write(`HTTP/1.1 200 OK${CRLF}content-type: application/json${CRLF}`);
        return;
      case 'reset': {
        socket.write(head('200 OK', { 'content-type': 'application/json', 'content-length': '1000' }));
        socket.write('{"kind":"ConfigMapList","items":[');
        // let the bytes leave before the RST
        const t = setTimeout(() => socket.resetAndDestroy(), 50);
        timers.add(t);
        return;
      }
      case 'garbage':
        socket.end(Buffer.concat([Buffer.from('\x00\x01\x02 this is not HTTP ~~ '), randomBytes(64), Buffer.from(CRLF + CRLF)]));
        return;
      case 'half-closed':
        socket.end(head('200 OK', { 'content-type': 'application/json', 'content-length': '1000' }) + '{"kind":"ConfigMapList","items":[');
        return;
      case 'closed':
        socket.end();
        return;
      case 'slow': {
        const a = validAnswer(watch);
        // a watch gets its head at once, so the trickle is in the stream itself
        if (watch) {
          socket.write(a.head);
          trickle(socket, a.body);
        } else trickle(socket, a.head + a.body);
        return;
      }
      case 'watch-stall': {
        const a = validAnswer(watch);
        if (watch) socket.write(a.head + a.body);
        else socket.end(a.head + a.body);
        return;
      }
      case 'bad-json':
        if (watch) {
          const cut = EVENT.slice(0, Math.floor(EVENT.length / 2));
          socket.write(head('200 OK', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }) + chunk(cut));
          socket.end(`0${CRLF}${CRLF}`);
        } else {
          const body = '{"kind": "ConfigMapList", "items": [ not json';
          socket.end(head('200 OK', { 'content-type': 'application/json', 'content-length': String(body.length), connection: 'close' }) + body);
        }
        return;
    }
  };

  const onConnection = (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {
      // the client gave up (timeouts abort their requests): nothing to do
    });
    let buf = '';
    let answered = false;
    socket.on('data', (d: Buffer) => {
      if (answered) return; // a stalled endpoint reads and ignores what follows
      buf += d.toString('latin1');
      const end = buf.indexOf(CRLF + CRLF);
      if (end < 0) return;
      answered = true;
      answer(socket, buf.slice(0, end));
    });
  };

  const server: Server = o.tls
    ? createTlsServer({ key: o.tls.key, cert: o.tls.cert }, onConnection)
    : createNetServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `${o.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    mode,
    connections: () => connections,
    requests: () => requests,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
