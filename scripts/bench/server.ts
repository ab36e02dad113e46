// A server under test, as its own process (the load generator runs elsewhere), started from a
// bundle of its sources as `orch-conformance serve` is (process.ts; tsx would add its own
// per-function cost to every request measured):
//   node [--expose-gc] scripts/bundle.mjs run scripts/bench/server.ts '{"mode":"orch","options":{...}}'
//   node scripts/bundle.mjs run scripts/bench/server.ts '{"mode":"bare"}'
// `orch` is the reference server (plain HTTP on 127.0.0.1); `bare` is a plain Node HTTP
// server that reads the request body and answers bytes it was given over IPC, so that both
// do the same socket work; `floor` answers every request as the least durable create would
// (floor.ts). Prints `{"url":...,"token":...}` on one line once it listens.
// IPC: {cmd:'routes', routes} (bare), {cmd:'mem'} -> memoryUsage after a full GC,
// {cmd:'cpu'} -> cpuUsage and event loop utilization.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { floorHandler } from './floor.ts';

export interface BareRoute {
  /** `METHOD /path?query` (exact) or `METHOD /path` (any query). */
  key: string;
  status: number;
  headers: Record<string, string>;
  /** base64 */
  body: string;
}

interface Config {
  mode: 'orch' | 'bare' | 'floor';
  options?: Record<string, unknown>;
}

const cfg = JSON.parse(process.argv[2] ?? '{"mode":"orch"}') as Config;
const routes = new Map<string, { status: number; headers: Record<string, string | number>; body: Buffer }>();

function bare(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const r =
    routes.get(`${req.method} ${url}`) ?? routes.get(`${req.method} ${q < 0 ? url : url.slice(0, q)}`);
  req.on('data', () => {});
  req.on('end', () => {
    if (!r) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('no route\n');
      return;
    }
    res.writeHead(r.status, r.headers);
    res.end(r.body);
  });
}

let url: string;
let token = '';
let close: () => Promise<void>;
if (cfg.mode === 'bare' || cfg.mode === 'floor') {
  const srv = createServer(cfg.mode === 'bare' ? bare : floorHandler(String(cfg.options?.dataDir)));
  srv.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  close = () => new Promise((r) => srv.close(() => r()));
} else {
  const { build } = await import('../../reference/src/index.ts');
  const server = await build({ tls: false, host: '127.0.0.1', port: 0, ...(cfg.options ?? {}) });
  ({ url } = await server.listen());
  token = server.adminToken;
  close = () => server.close();
}

process.on('message', (m: { cmd: string; id?: number; routes?: BareRoute[] }) => {
  if (m.cmd === 'routes') {
    for (const r of m.routes ?? []) {
      const body = Buffer.from(r.body, 'base64');
      routes.set(r.key, { status: r.status, headers: { ...r.headers, 'Content-Length': body.length }, body });
    }
    process.send?.({ id: m.id, ok: true });
  } else if (m.cmd === 'mem') {
    const gc = (globalThis as { gc?: () => void }).gc;
    for (let i = 0; i < 3; i++) gc?.();
    process.send?.({ id: m.id, mem: process.memoryUsage(), gc: !!gc });
  } else if (m.cmd === 'cpu') {
    process.send?.({ id: m.id, cpu: process.cpuUsage(), elu: performance.eventLoopUtilization() });
  } else if (m.cmd === 'close') {
    void close().then(() => process.send?.({ id: m.id, ok: true }));
  }
});
const stop = () => void close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// the benchmark went away: do not linger
process.on('disconnect', stop);
process.stdout.write(`${JSON.stringify({ url, token, pid: process.pid })}\n`);
