// Tests of the harness itself: dialect mapping, targets and kubeconfig, exec credential
// plugins (a real child process), expectations, and that the client and watch reader never
// hang against an endpoint that stalls, resets or sends garbage.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { withCause } from '../src/case.ts';
import { Client } from '../src/client.ts';
import { dialect } from '../src/dialect.ts';
import { ExecCredentialSource } from '../src/exec-credential.ts';
import { expectationFor, loadExpectations } from '../src/expectations.ts';
import { fromKubeconfig, resolveTarget } from '../src/target.ts';
import { WatchStream } from '../src/watch.ts';

const here = dirname(fileURLToPath(import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'harness-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('dialect', () => {
  it('maps orch words to Kubernetes words and back', () => {
    const k = dialect('kubernetes');
    expect(k.w('/apis/apiextensions.orch.io/v1/customresourcedefinitions')).toBe(
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    );
    expect(k.w('application/vnd.orch.protobuf')).toBe('application/vnd.kubernetes.protobuf');
    expect(k.w('x-orch-list-type')).toBe('x-kubernetes-list-type');
    expect(k.w('orch-system')).toBe('kube-system');
    expect(k.w('ORCH_EXEC_INFO')).toBe('KUBERNETES_EXEC_INFO');
    expect(k.back('meta.k8s.io')).toBe('meta.orch.io');
    const obj = {
      metadata: { annotations: { 'orch.io/initial-events-end': 'true' } },
      spec: { finalizers: ['orch'] },
    };
    const mapped = k.out(obj);
    expect(mapped).toEqual({
      metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } },
      spec: { finalizers: ['kubernetes'] },
    });
    expect(k.in(mapped)).toEqual(obj);
  });
  it('leaves everything alone in the orch dialect', () => {
    const o = dialect('orch');
    expect(o.w('meta.orch.io')).toBe('meta.orch.io');
  });
});

describe('targets', () => {
  it('reads URL and credentials from a kubeconfig, and flags win over it', () => {
    const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const path = join(tmp, 'kubeconfig');
    writeFileSync(
      path,
      `apiVersion: v1
kind: Config
current-context: a
contexts:
- name: a
  context: { cluster: c1, user: u1 }
- name: b
  context: { cluster: c2, user: u2 }
clusters:
- name: c1
  cluster: { server: "https://127.0.0.1:1111", certificate-authority-data: "${Buffer.from(ca).toString('base64')}" }
- name: c2
  cluster: { server: "https://127.0.0.1:2222", insecure-skip-tls-verify: true }
users:
- name: u1
  user: { token: "secret-one" }
- name: u2
  user: { token: "secret-two" }
`,
    );
    const a = fromKubeconfig(path);
    expect(a.url).toBe('https://127.0.0.1:1111');
    expect(a.token).toBe('secret-one');
    expect(a.ca).toBe(ca);
    const b = fromKubeconfig(path, 'b');
    expect(b.insecure).toBe(true);
    expect(b.token).toBe('secret-two');
    const t = resolveTarget({ kubeconfig: path, token: 'flag-token', endpoint: 'http://127.0.0.1:9' }, {});
    expect(t.url).toBe('http://127.0.0.1:9');
    expect(t.token).toBe('flag-token');
    expect(() => resolveTarget({}, {})).toThrow(/no endpoint/);
    expect(() => resolveTarget({ endpoint: 'http://x', dialect: 'klingon' as 'orch' }, {})).toThrow(
      /dialect/,
    );
  });
});

describe('exec credential plugins', () => {
  const plugin = join(here, 'fixtures', 'exec-plugin.mjs');
  for (const apiVersion of ['client.authentication.orch.io/v1', 'client.authentication.orch.io/v1beta1']) {
    it(`runs the plugin and reads its ExecCredential (${apiVersion}), with cluster info when asked`, async () => {
      const s = new ExecCredentialSource(
        { command: plugin, apiVersion, args: ['token'], provideClusterInfo: true, interactiveMode: 'Never' },
        tmp,
        { server: 'https://127.0.0.1:6443' },
      );
      const c = await s.get();
      expect(c.token).toBe('tok-1-https://127.0.0.1:6443');
    });
  }
  it('caches until expiry, and runs again once expired or invalidated', async () => {
    const counter = join(tmp, 'count');
    writeFileSync(counter, '0');
    process.env.PLUGIN_COUNTER_FILE = counter;
    try {
      const fresh = new ExecCredentialSource(
        {
          command: plugin,
          apiVersion: 'client.authentication.orch.io/v1',
          args: ['token'],
          interactiveMode: 'Never',
        },
        tmp,
        { server: 'x' },
      );
      const a = await fresh.get();
      const b = await fresh.get();
      expect(b.token).toBe(a.token);
      fresh.invalidate();
      const c = await fresh.get();
      expect(c.token).not.toBe(a.token);
      const expiring = new ExecCredentialSource(
        {
          command: plugin,
          apiVersion: 'client.authentication.orch.io/v1',
          args: ['expired'],
          interactiveMode: 'Never',
        },
        tmp,
        { server: 'x' },
      );
      const d = await expiring.get();
      const e = await expiring.get();
      expect(e.token).not.toBe(d.token);
    } finally {
      delete process.env.PLUGIN_COUNTER_FILE;
    }
  });
  it('rejects malformed plugin output', async () => {
    const half = new ExecCredentialSource(
      {
        command: plugin,
        apiVersion: 'client.authentication.orch.io/v1',
        args: ['half-cert'],
        interactiveMode: 'Never',
      },
      tmp,
      { server: 'x' },
    );
    await expect(half.get()).rejects.toThrow(/together/);
    const wrong = new ExecCredentialSource(
      {
        command: plugin,
        apiVersion: 'client.authentication.orch.io/v1',
        args: ['wrong-version'],
        interactiveMode: 'Never',
      },
      tmp,
      { server: 'x' },
    );
    await expect(wrong.get()).rejects.toThrow(/answered in/);
    expect(
      () =>
        new ExecCredentialSource({ command: plugin, apiVersion: 'client.authentication.orch.io/v1' }, tmp, {
          server: 'x',
        }),
    ).toThrow(/interactiveMode/);
  });
});

describe('expectations', () => {
  it('loads fail/flaky/skip with notes and matches ids and prefixes', () => {
    const p = join(tmp, 'exp.yaml');
    writeFileSync(
      p,
      'implementation: x\ncases:\n  watch/a: { expect: fail, note: known }\n  chunking/*: { expect: skip, note: off }\n',
    );
    const e = loadExpectations(p);
    expect(expectationFor(e, 'watch/a')?.expect).toBe('fail');
    expect(expectationFor(e, 'chunking/x/y')?.expect).toBe('skip');
    expect(expectationFor(e, 'watch/b')).toBeUndefined();
    writeFileSync(p, 'cases:\n  a/b: { expect: fail }\n');
    expect(() => loadExpectations(p)).toThrow(/note/);
  });
});

describe('the client never hangs', () => {
  let server: Server;
  let url = '';
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.startsWith('/stall')) return; // never answers
      if (req.url?.startsWith('/reset')) {
        req.socket.destroy();
        return;
      }
      if (req.url?.startsWith('/garbage')) {
        req.socket.write('this is not HTTP\r\n\r\n');
        req.socket.destroy();
        return;
      }
      if (req.url?.startsWith('/watch-garbage')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"ADDED","object":{}}\nnot json at all\n');
        return;
      }
      if (req.url?.startsWith('/watch-silent')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('');
        return;
      }
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        '{"kind":"Status","apiVersion":"v1","status":"Failure","code":500,"reason":"InternalError","message":"boom"}',
      );
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('returns non-2xx answers with the parsed Status instead of throwing', async () => {
    const c = new Client({ url, dialect: 'orch' });
    const r = await c.get('/anything');
    expect(r.status).toBe(500);
    expect(r.statusObj?.reason).toBe('InternalError');
    expect(r.describe()).toContain('500');
  });
  it('ends a stalled request within its timeout', async () => {
    const c = new Client({ url, dialect: 'orch' });
    const t0 = Date.now();
    await expect(c.get('/stall', { timeoutMs: 300 })).rejects.toThrow(
      /no response headers from http:\/\/127\.0\.0\.1:\d+ within 0\.3 s/,
    );
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
  it('reports a reset connection and a garbage answer clearly', async () => {
    const c = new Client({ url, dialect: 'orch' });
    await expect(c.get('/reset', { timeoutMs: 2_000 })).rejects.toThrow(
      /the endpoint http:\/\/127\.0\.0\.1:\d+ closed the connection without answering|connection reset by the endpoint/,
    );
    await expect(c.get('/garbage', { timeoutMs: 2_000 })).rejects.toThrow(
      /answered bytes that are not HTTP\/1\.1/,
    );
  });
  it('fails a watch on a non-JSON line and on silence, within the timeout', async () => {
    const c = new Client({ url, dialect: 'orch' });
    const w = await WatchStream.open(c, { path: '/watch-garbage' });
    expect((await w.next(2_000)).type).toBe('ADDED');
    await expect(w.next(2_000)).rejects.toThrow(/a line that is not a JSON event document/);
    w.close();
    const s = await WatchStream.open(c, { path: '/watch-silent' });
    await expect(s.next(300)).rejects.toThrow(/no watch event within 300 ms/);
    s.close();
  });
});

describe('a failing property says what its case met', () => {
  it('fast-check\'s "Property failed" error carries its cause\'s message, once, in the message and the stack', async () => {
    let caught: unknown;
    try {
      await fc.assert(
        fc.asyncProperty(fc.nat(), async () => {
          throw new Error('GET http://127.0.0.1:1/api: connection reset by the endpoint');
        }),
        { numRuns: 1 },
      );
    } catch (e) {
      caught = withCause(e);
    }
    const e = caught as Error;
    expect(e.message).toMatch(/^Property failed/);
    expect(e.message.split('connection reset by the endpoint').length - 1).toBe(1);
    expect(e.stack?.split('connection reset by the endpoint').length).toBe(2);
    const plain = new Error('plain');
    expect(withCause(plain)).toBe(plain);
    expect(plain.message).toBe('plain');
  });
});
