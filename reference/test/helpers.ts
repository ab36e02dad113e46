// Test support for the reference server's own tests: an in-process server on a real
// socket (plain HTTP on loopback unless asked), and a small undici client that never throws
// on a non-2xx answer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, expect, onTestFinished } from 'vitest';
import type { ServerOptions } from '../src/config.ts';
import { build, type OrchServer } from '../src/index.ts';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: Buffer;
  json: any;
}

export interface TestServer {
  server: OrchServer;
  url: string;
  token: string;
  req(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string | string[]>,
  ): Promise<Reply>;
  close(): Promise<void>;
}

const insecure = new Agent({ connect: { rejectUnauthorized: false } });

/**
 * The controllers a test server runs unless the test names its own: the namespace controller
 * (deleted namespaces go) and the service-account controller (pods need each namespace's
 * `default` account). The others (root-CA publisher, garbage collector, workload controllers)
 * put objects into namespaces and write status, so the tests of one server feature would see
 * them; each controller has tests of its own.
 */
export const TEST_CONTROLLERS = ['namespace', 'serviceaccount'];

export async function startServer(opts: Partial<ServerOptions> = {}): Promise<TestServer> {
  const server = await build({
    inMemory: true,
    tls: false,
    futureRvWaitMs: 200,
    controllers: TEST_CONTROLLERS,
    ...opts,
  });
  const { url } = await server.listen();
  const token = server.adminToken;
  const req = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string | string[]> = {},
  ): Promise<Reply> => {
    const h: Record<string, string | string[]> = { authorization: `Bearer ${token}`, ...headers };
    let payload: string | Buffer | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const r = await request(url + path, {
      method: method as 'GET',
      headers: h,
      body: payload,
      dispatcher: insecure,
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
    });
    const buf = Buffer.from(await r.body.arrayBuffer());
    const text = buf.toString('utf8');
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: r.statusCode, headers: r.headers, text, body: buf, json };
  };
  return { server, url, token, req, close: () => server.close() };
}

let counter = 0;
/** A fresh namespace name for a test. */
export function uniqueName(prefix = 't'): string {
  counter++;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 7)}`;
}

/** Makes a namespace named `prefix` plus a unique suffix on the test server; its name. */
export async function makeNamespace(srv: TestServer, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  const r = await srv.req('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
  expect(r.status, `create namespace ${name}: ${r.text}`).toBe(201);
  return name;
}

export function configMap(
  name: string,
  data: Record<string, string> = {},
  extra: Record<string, unknown> = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...((extra.metadata as object) ?? {}) },
    data,
    ...omit(extra, 'metadata'),
  };
}

function omit(o: Record<string, unknown>, k: string): Record<string, unknown> {
  const { [k]: _x, ...rest } = o;
  return rest;
}

/**
 * A new directory under the system's temporary one, removed when the test that made it
 * finishes, or, made outside a test (at the top of a file or describe block, or in its
 * beforeAll), when that file or block is done. (A hook `afterAll` registered from inside a
 * running test is never called, which left directories behind.)
 */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    afterAll(remove); // onTestFinished throws when no test is running
  }
  return dir;
}
