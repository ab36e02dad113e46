// A namespace a suite made is deleted when its cases are done, unless the run declares its
// targets disposable (ORCH_DISPOSABLE=1: the embedded run, a control plane the run started,
// `run --disposable`): checked against a real HTTP server that records what it is sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '../src/client.ts';
import { dropNamespace } from '../src/fixtures.ts';
import { DISPOSABLE_ENV } from '../src/targets.ts';

describe('dropNamespace', () => {
  let server: Server;
  let url = '';
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url?.endsWith('/broken')) return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"x"}}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  afterEach(() => {
    vi.unstubAllEnvs();
    seen.length = 0;
  });

  it('deletes the namespace on a target that outlives the run', async () => {
    vi.stubEnv(DISPOSABLE_ENV, '');
    await dropNamespace(new Client({ url, dialect: 'orch' }), 'conf-1');
    expect(seen).toEqual(['DELETE /api/v1/namespaces/conf-1']);
  });

  it('sends nothing on a disposable target', async () => {
    vi.stubEnv(DISPOSABLE_ENV, '1');
    await dropNamespace(new Client({ url, dialect: 'orch' }), 'conf-2');
    expect(seen).toEqual([]);
  });

  it('is best effort: a connection the target drops does not fail the case', async () => {
    vi.stubEnv(DISPOSABLE_ENV, '');
    await expect(dropNamespace(new Client({ url, dialect: 'orch' }), 'broken')).resolves.toBeUndefined();
    expect(seen).toEqual(['DELETE /api/v1/namespaces/broken']);
  });
});
