// The client's `retryUnavailable`: a 503 carrying Retry-After is sent again (what Kubernetes'
// clients do, and what a 1.28 API server asks for while it replaces a definition's storage); a
// 503 without it, or a request that did not ask, gets the 503; the retries stop after
// RETRIES_UNAVAILABLE; `retryUnavailableUnder(prefix)` gives the option to every later request
// under the prefix (a suite's own custom resource group) and to nothing else. A real HTTP server
// on loopback answers as told.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, RETRIES_UNAVAILABLE } from '../src/client.ts';

describe('Client: retryUnavailable', () => {
  let server: Server;
  let client: Client;
  /** Per path: how many 503s to answer before a 201, and whether they carry Retry-After. */
  const plan = new Map<string, { unavailable: number; retryAfter: boolean; seen: number }>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const p = plan.get(req.url ?? '')!;
      p.seen++;
      req.resume();
      if (p.seen <= p.unavailable) {
        res.writeHead(503, {
          'content-type': 'application/json',
          ...(p.retryAfter ? { 'retry-after': '0' } : {}),
        });
        res.end('{"kind":"Status","status":"Failure","reason":"ServiceUnavailable","code":503}');
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"kind":"ConfigMap"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    client = new Client({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token: 'x',
      dialect: 'orch',
    });
  });
  afterAll(async () => {
    await client.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const post = async (
    path: string,
    unavailable: number,
    retryAfter: boolean,
    retryUnavailable: boolean | undefined,
  ) => {
    plan.set(path, { unavailable, retryAfter, seen: 0 });
    const r = await client.post(path, {}, { retryUnavailable });
    return { status: r.status, sent: plan.get(path)!.seen };
  };

  it('a 503 with Retry-After is sent again until answered', async () => {
    expect(await post('/a', 2, true, true)).toEqual({ status: 201, sent: 3 });
  });
  it('not without the option, and not without Retry-After', async () => {
    expect(await post('/b', 1, true, false)).toEqual({ status: 503, sent: 1 });
    expect(await post('/c', 1, false, true)).toEqual({ status: 503, sent: 1 });
  });
  it(`at most ${RETRIES_UNAVAILABLE} times`, async () => {
    expect(await post('/d', 100, true, true)).toEqual({ status: 503, sent: RETRIES_UNAVAILABLE + 1 });
  });
  it('retryUnavailableUnder: every request under the prefix, unless it says otherwise; nothing else', async () => {
    expect(await post('/apis/g.example.com/v1/widgets', 1, true, undefined)).toEqual({
      status: 503,
      sent: 1,
    });
    client.retryUnavailableUnder('/apis/g.example.com/');
    expect(await post('/apis/g.example.com/v1/namespaces/n/widgets', 2, true, undefined)).toEqual({
      status: 201,
      sent: 3,
    });
    expect(await post('/apis/g.example.com/v1/namespaces/n/widgets/x', 1, true, false)).toEqual({
      status: 503,
      sent: 1,
    });
    expect(await post('/apis/h.example.com/v1/widgets', 1, true, undefined)).toEqual({
      status: 503,
      sent: 1,
    });
  });
});
