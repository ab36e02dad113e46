// The store on etcd, against a real etcd child process (Debian's etcd-server): resource
// versions are etcd's revisions (read back with an etcd client, not from the store), writes
// are conditional transactions, several stores on one prefix are one consistent store, a write
// elsewhere in etcd does not hold up sync, lists older than the cache come from etcd at that
// revision, compaction makes older versions gone, the health check follows etcd down and up,
// TLS with client certificates, and two servers on one etcd serving one API (custom
// definitions and webhook configurations made through one take effect on the other).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EtcdProcess, startEtcd } from '../src/etcd-process.ts';
import { EtcdStore } from '../src/storage/etcd/store.ts';
import {
  type ChangeEvent,
  ExpiredError,
  KeyExistsError,
  KeyNotFoundError,
  type KObject,
  PreconditionError,
} from '../src/storage/types.ts';
import { issue, makeCa } from './cert-helpers.ts';
import { startServer, type TestServer } from './helpers.ts';

let etcd: EtcdProcess;
let raw: Etcd3;
const stores: EtcdStore[] = [];
let prefixes = 0;

const cm = (name: string, v = '1'): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data: { v },
});
const B = 'core/configmaps';
const key = (n: string) => `${B}/ns/${n}`;

async function open(
  prefix: string,
  extra: Partial<Parameters<typeof EtcdStore.open>[0]> = {},
): Promise<EtcdStore> {
  const s = await EtcdStore.open({ servers: [etcd.url], prefix, compactionIntervalMs: 0, ...extra });
  stores.push(s);
  return s;
}
const freshPrefix = () => `/t${++prefixes}-${process.pid}`;
const until = async (cond: () => boolean | Promise<boolean>, ms = 5000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

beforeAll(async () => {
  etcd = await startEtcd();
  raw = new Etcd3({ hosts: etcd.url });
}, 60_000);

afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
  raw?.close();
  await etcd?.stop();
});

describe('etcd store: revisions and transactions', () => {
  it("a write's resource version is the key's mod revision in etcd", async () => {
    const p = freshPrefix();
    const s = await open(p);
    const c = await s.create(B, key('a'), cm('a'));
    const kv = (await raw.get(`${p}/${key('a')}`).exec()).kvs[0]!;
    expect(c.rv).toBe(Number(kv.mod_revision));
    expect(c.obj.metadata.resourceVersion).toBe(kv.mod_revision);
    // stored without resourceVersion: it is the revision
    expect(JSON.parse(kv.value.toString()).metadata.resourceVersion).toBeUndefined();
    const u = await s.update(B, key('a'), cm('a', '2'), c.rv);
    const kv2 = (await raw.get(`${p}/${key('a')}`).exec()).kvs[0]!;
    expect(u.rv).toBe(Number(kv2.mod_revision));
    expect(u.rv).toBeGreaterThan(c.rv);
    expect(s.get(key('a'))?.obj.data).toEqual({ v: '2' });
  });

  it('create of an existing key, update or delete at a stale version, and of a missing key are refused', async () => {
    const p = freshPrefix();
    const s = await open(p);
    const c = await s.create(B, key('b'), cm('b'));
    await expect(s.create(B, key('b'), cm('b'))).rejects.toBeInstanceOf(KeyExistsError);
    await s.update(B, key('b'), cm('b', '2'), c.rv);
    await expect(s.update(B, key('b'), cm('b', '3'), c.rv)).rejects.toBeInstanceOf(PreconditionError);
    await expect(s.delete(B, key('b'), c.rv)).rejects.toBeInstanceOf(PreconditionError);
    await expect(s.update(B, key('none'), cm('none'))).rejects.toBeInstanceOf(KeyNotFoundError);
    await expect(s.delete(B, key('none'))).rejects.toBeInstanceOf(KeyNotFoundError);
    const d = await s.delete(B, key('b'));
    expect(d.obj.data).toEqual({ v: '2' });
    expect(s.get(key('b'))).toBeUndefined();
    expect((await raw.get(`${p}/${key('b')}`).exec()).kvs).toHaveLength(0);
  });
});

describe('etcd store: object size', () => {
  it('an object of 3 MiB is stored; one larger than etcd takes is refused with 413, and etcd stays healthy', async () => {
    const s = await open(freshPrefix());
    const big = await s.create(B, key('big'), { ...cm('big'), data: { v: 'x'.repeat(3 * 1024 * 1024) } });
    expect(s.get(key('big'))?.rv).toBe(big.rv);
    await expect(
      s.create(B, key('huge'), { ...cm('huge'), data: { v: 'x'.repeat(5 * 1024 * 1024) } }),
    ).rejects.toMatchObject({ code: 413, reason: 'RequestEntityTooLarge' });
    expect(s.failure()).toBeUndefined();
  });
});

describe('etcd store: several stores on one prefix', () => {
  it("one store's writes reach another's watch in order, with the same versions, and sync makes its reads current", async () => {
    const p = freshPrefix();
    const a = await open(p);
    const b = await open(p);
    const seen: ChangeEvent[] = [];
    const cancel = b.watch(B, b.revision(), (ev) => seen.push(ev));
    const c = await a.create(B, key('x'), cm('x'));
    const u = await a.update(B, key('x'), cm('x', '2'), c.rv);
    const d = await a.delete(B, key('x'), u.rv);
    await until(() => seen.length === 3);
    cancel();
    expect(seen.map((e) => [e.type, e.rv])).toEqual([
      ['ADDED', c.rv],
      ['MODIFIED', u.rv],
      ['DELETED', d.rv],
    ]);
    // a write through one, then sync on the other: the other has it
    const w = await a.create(B, key('y'), cm('y'));
    await b.sync();
    expect(b.get(key('y'))?.rv).toBe(w.rv);
    // a stale cache does not make an update succeed: the transaction compares etcd's version
    const w2 = await b.update(B, key('y'), cm('y', '2'), w.rv);
    await expect(a.update(B, key('y'), cm('y', '3'), w.rv)).rejects.toBeInstanceOf(PreconditionError);
    // after the refusal the refused store holds the newer version (a retry reads it)
    expect(a.get(key('y'))?.rv).toBe(w2.rv);
  });

  it('a store opened later starts with the history etcd keeps: a watch from a version before it opened resumes', async () => {
    const p = freshPrefix();
    const a = await open(p);
    const c = await a.create(B, key('early'), cm('early'));
    const u = await a.update(B, key('early'), cm('early', '2'), c.rv);
    const d = await a.create(B, key('early2'), cm('early2'));
    const late = await open(p);
    const seen: ChangeEvent[] = [];
    late.watch(B, c.rv, (ev) => seen.push(ev))();
    expect(seen.map((e) => [e.type, e.key, e.rv])).toEqual([
      ['MODIFIED', key('early'), u.rv],
      ['ADDED', key('early2'), d.rv],
    ]);
    expect(late.get(key('early'))?.obj.data).toEqual({ v: '2' });
  });

  it('sync resolves when the last revisions are writes to keys outside the prefix', async () => {
    const s = await open(freshPrefix());
    await s.create(B, key('z'), cm('z'));
    for (let i = 0; i < 5; i++) await raw.put(`/elsewhere/${i}`).value('x');
    const etcdRev = Number((await raw.get('/elsewhere/0').exec()).header.revision);
    await s.sync();
    expect(s.revision()).toBeGreaterThanOrEqual(etcdRev);
    // and waiting for such a revision succeeds at once
    expect(await s.waitFor(etcdRev, 2000)).toBe(true);
  });
});

describe('etcd store: history and compaction', () => {
  it('a list at a version older than the cache history comes from etcd at that revision', async () => {
    const p = freshPrefix();
    const s = await open(p, { historyMs: 1 });
    const c = await s.create(B, key('h'), cm('h', 'old'));
    await s.update(B, key('h'), cm('h', 'new'), c.rv);
    await new Promise((r) => setTimeout(r, 50));
    await s.create(B, key('h2'), cm('h2'));
    expect(() => s.list(B, `${B}/ns/`, c.rv)).toThrow(ExpiredError);
    const at = await s.listAt(B, `${B}/ns/`, c.rv);
    expect(at.map((o) => [o.key, o.obj.data])).toEqual([[key('h'), { v: 'old' }]]);
  });

  it('compaction makes older versions gone for watches and lists, on every store of the prefix', async () => {
    const p = freshPrefix();
    const a = await open(p, { compactionIntervalMs: 300 });
    const b = await open(p);
    const c = await a.create(B, key('k'), cm('k'));
    await a.update(B, key('k'), cm('k', '2'), c.rv);
    // the compactor compacts to the revision it saw one interval before
    await until(() => a.compactedRevision() > c.rv && b.compactedRevision() > c.rv, 10_000);
    for (const s of [a, b]) {
      expect(() => s.watch(B, c.rv, () => {})).toThrow(ExpiredError);
      await expect(s.listAt(B, `${B}/ns/`, c.rv)).rejects.toBeInstanceOf(ExpiredError);
    }
    // etcd itself refuses that revision once the compaction the key announced has run (the
    // compactor writes the key first and compacts after, as Kubernetes' does)
    await vi.waitFor(
      () =>
        expect(
          raw
            .get(`${p}/${key('k')}`)
            .revision(c.rv)
            .exec(),
        ).rejects.toThrow(/compacted/),
      { timeout: 5000, interval: 50 },
    );
  });
});

describe('etcd store: health', () => {
  it('the probe reports etcd down within seconds and up again after it restarts; writes resume', async () => {
    const own = await startEtcd();
    const s = await EtcdStore.open({ servers: [own.url], compactionIntervalMs: 0, requestTimeoutMs: 2000 });
    try {
      await s.create(B, key('before'), cm('before'));
      expect(await s.probe()).toBeUndefined();
      await own.kill();
      await until(async () => (await s.probe()) !== undefined, 10_000);
      expect((await s.probe())!.message).toMatch(/etcd/);
      await expect(s.create(B, key('during'), cm('during'))).rejects.toMatchObject({
        code: 503,
        reason: 'ServiceUnavailable',
      });
      await own.restart();
      await until(async () => (await s.probe()) === undefined, 15_000);
      const after = await s.create(B, key('after'), cm('after'));
      expect(s.get(key('after'))?.rv).toBe(after.rv);
      expect(s.get(key('before'))).toBeDefined();
    } finally {
      await s.close();
      await own.stop();
    }
  }, 60_000);
});

describe('etcd store: TLS', () => {
  it('connects with --etcd-cafile, --etcd-certfile and --etcd-keyfile to an etcd that requires client certificates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-etcd-tls-'));
    const ca = await makeCa('etcd-test-ca');
    const server = await issue(ca, {
      subject: 'CN=etcd',
      usages: ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'],
      ipAddresses: ['127.0.0.1'],
    });
    const client = await issue(ca, { subject: 'CN=orch-reference' });
    const f = (n: string, v: string) => {
      writeFileSync(join(dir, n), v);
      return join(dir, n);
    };
    const files = {
      caFile: f('ca.pem', ca.certPem),
      certFile: f('server.pem', server.certPem),
      keyFile: f('server-key.pem', server.keyPem),
    };
    const own = await startEtcd({ tls: files });
    try {
      expect(own.url).toMatch(/^https:/);
      const s = await EtcdStore.open({
        servers: [own.url],
        caFile: files.caFile,
        certFile: f('client.pem', client.certPem),
        keyFile: f('client-key.pem', client.keyPem),
        compactionIntervalMs: 0,
      });
      const c = await s.create(B, key('tls'), cm('tls'));
      expect(c.rv).toBeGreaterThan(0);
      await s.close();
      // without a client certificate etcd refuses
      await expect(
        EtcdStore.open({
          servers: [own.url],
          caFile: files.caFile,
          compactionIntervalMs: 0,
          requestTimeoutMs: 2000,
        }),
      ).rejects.toThrow(/cannot reach etcd/);
    } finally {
      await own.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('two servers on one etcd', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const prefix = freshPrefix();
    [a, b] = await Promise.all(
      [0, 1].map(() =>
        startServer({ etcdServers: [etcd.url], etcdPrefix: prefix, adminToken: 'shared-admin' }),
      ),
    );
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('a watch on one sees the writes through the other in order; versions never go back', async () => {
    await a.req('POST', '/api/v1/namespaces', { metadata: { name: 'two' } });
    const ctl = new AbortController();
    const start = (await b.req('GET', '/api/v1/namespaces/two/configmaps')).json.metadata.resourceVersion;
    const res = await fetch(`${b.url}/api/v1/namespaces/two/configmaps?watch=1&resourceVersion=${start}`, {
      headers: { authorization: 'Bearer shared-admin' },
      signal: ctl.signal,
    });
    const written: string[] = [];
    for (let i = 0; i < 10; i++) {
      const via = i % 2 ? b : a;
      const r = await via.req('POST', '/api/v1/namespaces/two/configmaps', { metadata: { name: `c${i}` } });
      expect(r.status, r.text).toBe(201);
      written.push(r.json.metadata.resourceVersion);
    }
    const reader = res.body!.getReader();
    let buf = '';
    const events: { type: string; object: KObject }[] = [];
    while (events.length < 10) {
      const { value } = await reader.read();
      buf += Buffer.from(value!).toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    }
    ctl.abort();
    expect(events.map((e) => e.object.metadata.resourceVersion)).toEqual(written);
    expect(written.map(Number)).toEqual([...written.map(Number)].sort((x, y) => x - y));
  });

  it('a custom definition made through one is served by the other', async () => {
    const crd = {
      apiVersion: 'apiextensions.orch.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.two.example.com' },
      spec: {
        group: 'two.example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-orch-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    expect(
      (await a.req('POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', crd)).status,
    ).toBe(201);
    let r = await b.req('GET', '/apis/two.example.com/v1/namespaces/two/widgets');
    for (let i = 0; i < 50 && r.status !== 200; i++) {
      await new Promise((res) => setTimeout(res, 100));
      r = await b.req('GET', '/apis/two.example.com/v1/namespaces/two/widgets');
    }
    expect(r.status, r.text).toBe(200);
    const w = await b.req('POST', '/apis/two.example.com/v1/namespaces/two/widgets', {
      apiVersion: 'two.example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
    });
    expect(w.status, w.text).toBe(201);
    expect((await a.req('GET', '/apis/two.example.com/v1/namespaces/two/widgets/w1')).status).toBe(200);
  });

  it('a webhook configuration made through one is called by the other', async () => {
    const hook = {
      apiVersion: 'admissionregistration.orch.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'two-deny' },
      webhooks: [
        {
          name: 'deny.two.example.com',
          // nothing listens there: with failurePolicy Fail, every matching write is refused
          clientConfig: { url: 'https://127.0.0.1:1/deny' },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }],
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 1,
          namespaceSelector: { matchLabels: { 'two-webhook': 'on' } },
        },
      ],
    };
    await a.req('POST', '/api/v1/namespaces', {
      metadata: { name: 'two-hook', labels: { 'two-webhook': 'on' } },
    });
    expect(
      (await a.req('POST', '/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations', hook))
        .status,
    ).toBe(201);
    const r = await b.req('POST', '/api/v1/namespaces/two-hook/secrets', { metadata: { name: 's' } });
    expect(r.status, r.text).toBe(500);
    expect(r.text).toContain('deny.two.example.com');
  });
});

describe('serve with etcd (the command line)', () => {
  const ROOT = join(import.meta.dirname, '../..');
  const serve = (args: string[], until: RegExp) =>
    new Promise<{ out: string; code: number | null; kill: () => Promise<void> }>((resolve, reject) => {
      const c = spawn(
        process.execPath,
        [join(ROOT, 'scripts/bin.mjs'), 'serve', '--port', '0', '--insecure-http', ...args],
        {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      const exited = new Promise<void>((r) => c.on('exit', () => r()));
      const done = (code: number | null) =>
        resolve({
          get out() {
            return out;
          },
          code,
          kill: async () => {
            c.kill('SIGTERM');
            await exited;
          },
        });
      const t = setTimeout(() => reject(new Error(`serve: no ${until} within 60 s:\n${out}`)), 60_000);
      const onData = (b: Buffer) => {
        out += b.toString();
        if (until.test(out)) {
          clearTimeout(t);
          done(null);
        }
      };
      c.stdout!.on('data', onData);
      c.stderr!.on('data', onData);
      c.on('exit', (code) => {
        clearTimeout(t);
        done(code);
      });
    });

  it('--etcd starts a private etcd, names it in the banner, and stops it on exit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-serve-etcd-'));
    try {
      const s = await serve(['--etcd', '--data-dir', dir], /ready in \d+ ms/);
      expect(s.out).toMatch(/store:\s+etcd http:\/\/127\.0\.0\.1:\d+ prefix \/registry \(private, data in /);
      const etcdDir = /data in (\S+)\)/.exec(s.out)![1]!;
      expect(existsSync(etcdDir)).toBe(true);
      await s.kill();
      expect(
        existsSync(etcdDir),
        `the private etcd's data directory is removed at exit; serve wrote:\n${s.out}`,
      ).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it.each([
    [
      ['--etcd-servers', 'localhost:2379'],
      /--etcd-servers: "localhost:2379" is not an http:\/\/ or https:\/\/ URL/,
    ],
    [
      ['--etcd-servers', etcdUrlPlaceholder(), '--in-memory'],
      /--in-memory and --etcd-servers\/--etcd exclude each other/,
    ],
    [['--etcd-prefix', '/x'], /--etcd-prefix needs --etcd-servers \(or --etcd\)/],
    [
      ['--etcd-servers', etcdUrlPlaceholder(), '--etcd-prefix', 'registry'],
      /--etcd-prefix: must start with \//,
    ],
    [
      ['--etcd-servers', etcdUrlPlaceholder(), '--etcd-compaction-interval', 'often'],
      /--etcd-compaction-interval: "often" is not a duration/,
    ],
    [
      ['--etcd-servers', etcdUrlPlaceholder(), '--etcd-certfile', '/nonexistent.pem'],
      /--etcd-certfile: \/nonexistent.pem does not exist/,
    ],
  ])('refuses %j with a usage error', async (args, message) => {
    const s = await serve(args, /$^/);
    expect(s.code).toBe(2);
    expect(s.out).toMatch(message);
  });

  it('an etcd that does not answer stops the start with a clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-serve-etcd-'));
    try {
      const s = await serve(['--etcd-servers', 'http://127.0.0.1:1', '--data-dir', dir], /$^/);
      expect(s.code).not.toBe(0);
      expect(s.out).toMatch(/cannot reach etcd at http:\/\/127\.0\.0\.1:1/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

function etcdUrlPlaceholder(): string {
  return 'http://127.0.0.1:2379';
}
