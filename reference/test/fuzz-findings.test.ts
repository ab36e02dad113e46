// Defects the reliability fuzzer (scripts/reliability/fuzz.ts) found, kept as named cases:
// 1. A CONNECT request got no answer: Node hands CONNECT to a 'connect' listener and closes the
//    connection when there is none. No route serves CONNECT: 405 with a Status, as Kubernetes'
//    router answers a method it does not serve.
// 2. `/readyz/<no such check>` (and /livez, /healthz) answered a plain-text "404 page not found";
//    Kubernetes 1.28's not-found handler answers a 404 Status, as for any unknown path.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startServer();
});

afterAll(async () => {
  await t?.close();
});

/** Sends `text` on a fresh connection; resolves with everything read until the server closes. */
function exchange(text: string): Promise<string> {
  const u = new URL(t.url);
  return new Promise((resolve, reject) => {
    const s = connect({ host: u.hostname, port: Number(u.port) });
    let out = '';
    const timer = setTimeout(() => {
      s.destroy();
      resolve(out);
    }, 5000);
    s.on('data', (c: Buffer) => (out += c.toString('latin1')));
    s.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    s.on('error', (e) => (out ? undefined : reject(e)));
    s.on('connect', () => s.write(text));
  });
}

const statusOf = (reply: string) => JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));

describe('fuzz findings', () => {
  it('CONNECT: 405 MethodNotAllowed with a Status, then the connection closes', async () => {
    for (const target of [
      '/api/v1/namespaces/default/pods/x/exec',
      '/apis/events.orch.io/v1/events',
      '127.0.0.1:443',
    ]) {
      const reply = await exchange(
        `CONNECT ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.token}\r\n\r\n`,
      );
      expect(reply, target).toMatch(/^HTTP\/1\.1 405 /);
      expect(statusOf(reply)).toMatchObject({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'MethodNotAllowed',
        code: 405,
      });
    }
    // the server goes on
    expect((await t.req('GET', '/readyz')).status).toBe(200);
  });

  it('a health check that does not exist: 404 NotFound with a Status', async () => {
    for (const path of ['/readyz/nope', '/livez/ping/x', '/healthz/namespaces/default/pods']) {
      const r = await t.req('GET', path);
      expect(r.status, path).toBe(404);
      expect(r.json, path).toMatchObject({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'NotFound',
        code: 404,
      });
    }
    // the checks that exist still answer
    expect((await t.req('GET', '/readyz/ping')).status).toBe(200);
    expect((await t.req('GET', '/livez/ping')).status).toBe(200);
  });
});
