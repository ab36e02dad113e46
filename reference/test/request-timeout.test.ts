// The `timeout` query parameter: a request that is not long-running (a resource's or a path's
// like /version) with one that is not a Go duration is refused with 400 before anything else,
// authentication included (Kubernetes 1.28's deadline filter, its message; its e2e "Server
// request timeout" asks /version), a valid one is served, and a watch is not held to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.ts';

let ts: TestServer;
beforeAll(async () => {
  ts = await startServer();
});
afterAll(() => ts?.close());

describe('timeout', () => {
  it.each([
    ['abc', 'invalid timeout specified in the request URL - time: invalid duration "abc"'],
    ['1x', 'invalid timeout specified in the request URL - time: unknown unit "x" in duration "1x"'],
    ['30', 'invalid timeout specified in the request URL - time: missing unit in duration "30"'],
  ])('refuses timeout=%s with 400 BadRequest', async (timeout, message) => {
    for (const [method, path, body] of [
      ['GET', '/version'],
      ['GET', '/api/v1/namespaces'],
      [
        'POST',
        '/api/v1/namespaces/default/configmaps',
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 't-' } },
      ],
    ] as const) {
      const r = await ts.req(method, `${path}?timeout=${timeout}`, body);
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message });
    }
  });

  it('refuses it before authentication, as the deadline filter comes first', async () => {
    const r = await fetch(`${ts.url}/api/v1/namespaces?timeout=invalid`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toContain(
      'invalid timeout specified in the request URL',
    );
  });

  it('serves a request whose timeout is a duration, and a watch whatever its timeout', async () => {
    expect((await ts.req('GET', '/api/v1/namespaces?timeout=10s')).status).toBe(200);
    const w = await ts.req('GET', '/api/v1/namespaces?watch=true&timeoutSeconds=1&timeout=abc');
    expect(w.status).toBe(200);
  });
});
