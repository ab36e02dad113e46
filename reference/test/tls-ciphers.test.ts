// The TLS 1.3 suite the server picks: its own order, AES-128-GCM first, as kube-apiserver 1.28
// (Go's crypto/tls on hardware with AES) picks it. Seen on the real kube-apiserver v1.28.0
// from ../shared/kubernetes-1.28/bin: a Node client, which offers AES-256-GCM first, gets
// TLS_AES_128_GCM_SHA256 there.
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ tls: true });
});
afterAll(() => srv.close());

function negotiated(opts: { ciphers?: string; maxVersion?: 'TLSv1.2' | 'TLSv1.3' } = {}): Promise<string> {
  const u = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const s = connect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false, ...opts }, () => {
      resolve(`${s.getProtocol()} ${s.getCipher().name}`);
      s.end();
    });
    s.on('error', reject);
  });
}

describe('TLS suites (beyond the text: kube-apiserver 1.28 picks AES-128-GCM)', () => {
  it('answers a client that prefers AES-256-GCM with AES-128-GCM, in the server order', async () => {
    expect(await negotiated()).toBe('TLSv1.3 TLS_AES_128_GCM_SHA256');
  });

  it('still serves a client that offers only AES-256-GCM, and TLS 1.2 clients', async () => {
    expect(await negotiated({ ciphers: 'TLS_AES_256_GCM_SHA384' })).toBe('TLSv1.3 TLS_AES_256_GCM_SHA384');
    expect(await negotiated({ maxVersion: 'TLSv1.2' })).toMatch(/^TLSv1\.2 ECDHE-/);
  });
});
