// The benchmarks' HTTP helpers: one request with the admin token, set-up objects, and the bare
// server's routes (the bytes the reference answered, served again).
import { Agent, Pool, request } from 'undici';
import type { ServerProc } from './process.ts';
import type { BareRoute } from './server.ts';

export const agent = new Agent({ connections: 64, connect: { rejectUnauthorized: false } });

export interface Reply {
  status: number;
  contentType: string;
  body: Buffer;
  json: any;
}

export async function call(
  s: { url: string; token: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const r = await request(s.url + path, {
    method: method as 'GET',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    dispatcher: agent,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const buf = Buffer.from(await r.body.arrayBuffer());
  let json: any;
  try {
    json = JSON.parse(buf.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, contentType: String(r.headers['content-type'] ?? ''), body: buf, json };
}

export async function must(r: Promise<Reply>, ...ok: number[]): Promise<Reply> {
  const x = await r;
  if (!ok.includes(x.status))
    throw new Error(`unexpected ${x.status}: ${x.body.toString('utf8').slice(0, 300)}`);
  return x;
}

export async function ensureNamespace(s: ServerProc, name: string): Promise<void> {
  await must(
    call(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
    201,
    409,
  );
}

export const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** A small, realistic ConfigMap. */
export function configMapBody(name: string, i = 0): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labels":{"app":"bench","shard":"s${i % 8}"}},"data":{"config.yaml":"replicas: 3\\nimage: registry.example/app:1.${i}\\n","mode":"fast"}}`;
}

/** Creates `count` ConfigMaps `<prefix>-<i>` with `concurrency` requests in flight. */
export async function createMany(
  s: ServerProc,
  ns: string,
  prefix: string,
  count: number,
  concurrency = 32,
): Promise<void> {
  const pool = new Pool(s.url, { connections: concurrency });
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const r = await pool.request({
        method: 'POST',
        path: cmPath(ns),
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        body: configMapBody(`${prefix}-${i}`, i),
      });
      const text = await r.body.text();
      if (r.statusCode !== 201)
        throw new Error(`create ${prefix}-${i}: ${r.statusCode} ${text.slice(0, 200)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await pool.close();
  }
}

export function bareRoute(key: string, r: Reply, status = r.status): BareRoute {
  return { key, status, headers: { 'Content-Type': r.contentType }, body: r.body.toString('base64') };
}

export async function setRoutes(bare: ServerProc, routes: BareRoute[]): Promise<void> {
  for (const b of bare.members ?? [bare]) await b.rpc({ cmd: 'routes', routes });
}
