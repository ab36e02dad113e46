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
//   bad-json         answers 200 application/json whose body is not JSON; a watch gets a
//                    chunked stream whose event document is cut in the middle
// and three modes whose fault is in watches only, so a case gets as far as its watch: other
// requests get a plausible answer (a create echoes the object with a name, uid and
// resourceVersion; a read a list or the object; a delete a Success Status):
//   watch-stall      a valid chunked watch stream that falls silent (no event, no end)
//   slow-watch       a watch stream of valid events trickled one byte every `slowByteMs`
//   bad-watch        a watch stream whose event document is cut in the middle, then ended
import { randomBytes } from 'node:crypto';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

export const FAULT_MODES = [
  'stalled',
  'stalled-headers',
  'reset',
  'garbage',
  'half-closed',
  'closed',
  'slow',
  'bad-json',
  'watch-stall',
  'slow-watch',
  'bad-watch',
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

const LIST = JSON.stringify({
  kind: 'ConfigMapList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '1' },
  items: [],
});
const EVENT = `${JSON.stringify({
  type: 'ADDED',
  object: {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'faulty-endpoint', namespace: 'default', resourceVersion: '1' },
    data: {},
  },
})}\n`;

/** A complete, valid answer to a request (a watch gets a chunked stream that stays open). */
function validAnswer(watch: boolean): { head: string; body: string } {
  if (watch)
    return {
      head: head('200 OK', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
      body: chunk(EVENT),
    };
  return {
    head: head('200 OK', {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(LIST)),
      connection: 'close',
    }),
    body: LIST,
  };
}

/** A plausible answer to a request that is not a watch (the watch-only modes). */
function plausible(requestHead: string, body: string, rv: () => number): string {
  const [method = 'GET', target = '/'] = (requestHead.split(CRLF)[0] ?? '').split(' ');
  const path = target.split('?')[0] ?? '/';
  const namespace = /\/namespaces\/([^/]+)\//.exec(path)?.[1];
  let status = '200 OK';
  let out: unknown;
  let sent: any;
  try {
    sent = body ? JSON.parse(body) : undefined;
  } catch {
    sent = undefined;
  }
  if (method === 'POST' || method === 'PUT') {
    const meta = sent?.metadata ?? {};
    const name = meta.name ?? `${meta.generateName ?? 'obj-'}${randomBytes(3).toString('hex')}`;
    out = {
      ...sent,
      metadata: {
        ...meta,
        name,
        ...(namespace ? { namespace } : {}),
        uid: `${randomBytes(4).toString('hex')}-faulty`,
        resourceVersion: String(rv()),
        creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    };
    if (method === 'POST') status = '201 Created';
  } else if (method === 'DELETE') {
    out = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  } else {
    out = { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(rv()) }, items: [] };
  }
  const text = JSON.stringify(out);
  return (
    head(status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      connection: 'close',
    }) + text
  );
}

export async function startFaultyEndpoint(
  mode: FaultMode,
  o: FaultyEndpointOptions = {},
): Promise<FaultyEndpoint> {
  if (!FAULT_MODES.includes(mode))
    throw new Error(`unknown fault mode "${mode}" (${FAULT_MODES.join(', ')})`);
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

  let version = 100;
  const rv = () => ++version;

  /** `socket` speaks HTTP (a TLSSocket over TLS); `raw` is the TCP connection under it. */
  const answer = (socket: Socket, raw: Socket, requestHead: string, body: string) => {
    requests++;
    const watch = /[?&]watch=(1|true)(&|\s|$)/.test(requestHead.split(CRLF)[0] ?? '');
    if (!watch && (mode === 'watch-stall' || mode === 'slow-watch' || mode === 'bad-watch')) {
      socket.end(plausible(requestHead, body, rv));
      return;
    }
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
        const t = setTimeout(() => raw.resetAndDestroy(), 50);
        timers.add(t);
        return;
      }
      case 'garbage':
        socket.end(
          Buffer.concat([
            Buffer.from('\x00\x01\x02 this is not HTTP ~~ '),
            randomBytes(64),
            Buffer.from(CRLF + CRLF),
          ]),
        );
        return;
      case 'half-closed':
        socket.end(
          head('200 OK', { 'content-type': 'application/json', 'content-length': '1000' }) +
            '{"kind":"ConfigMapList","items":[',
        );
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
      case 'watch-stall':
        socket.write(validAnswer(true).head);
        return;
      case 'slow-watch': {
        const a = validAnswer(true);
        socket.write(a.head);
        trickle(socket, a.body);
        return;
      }
      case 'bad-watch':
      case 'bad-json':
        if (watch) {
          const cut = EVENT.slice(0, Math.floor(EVENT.length / 2));
          socket.write(
            head('200 OK', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }) +
              chunk(cut),
          );
          socket.end(`0${CRLF}${CRLF}`);
        } else {
          const body = '{"kind": "ConfigMapList", "items": [ not json';
          socket.end(
            head('200 OK', {
              'content-type': 'application/json',
              'content-length': String(body.length),
              connection: 'close',
            }) + body,
          );
        }
        return;
    }
  };

  const onConnection = (raw: Socket) => {
    connections++;
    sockets.add(raw);
    raw.on('close', () => sockets.delete(raw));
    raw.on('error', () => {
      // the client gave up (timeouts abort their requests): nothing to do
    });
    const socket = o.tls ? new TLSSocket(raw, { isServer: true, key: o.tls.key, cert: o.tls.cert }) : raw;
    if (socket !== raw) socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    let answered = false;
    socket.on('data', (d: Buffer) => {
      if (answered) return; // a stalled endpoint reads and ignores what follows
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf(CRLF + CRLF);
      if (end < 0) return;
      const requestHead = buf.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(requestHead)?.[1] ?? 0);
      if (buf.length < end + 4 + length) return; // the request body is not all here yet
      answered = true;
      answer(socket, raw, requestHead, buf.subarray(end + 4, end + 4 + length).toString('utf8'));
    });
  };

  const server: Server = createNetServer(onConnection);
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
