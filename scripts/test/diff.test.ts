// `orch-conformance diff`: its parts (the command line, normalisation, comparison, the curl
// reproducer) and whole runs through the command as a user runs it: two reference servers on
// one etcd agree; a reference server and the same server behind a proxy that changes its
// answers (a planted difference) do not, the difference shrunk and its reproducer replayable
// with bash and curl against a fresh server.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { ETCD_MISSING, etcdBinary } from '../../reference/src/etcd-process.ts';
import { build, type OrchServer } from '../../reference/src/index.ts';
import { parseDiffArgs } from '../diff/cli.ts';
import { compareResults } from '../diff/compare.ts';
import { normaliseContext, normaliseResults } from '../diff/normalise.ts';
import type { Op } from '../diff/ops.ts';
import { curlScript } from '../diff/repro.ts';
import { cleanupTempDirs, cli, tempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

const run = promisify(execFile);

interface DiffJson {
  seed: number;
  opsDone: number;
  divergences: {
    signature: string;
    group: string;
    index: number;
    paths: string[];
    operations: Op[];
    labels: string[];
    foundLength: number;
    a: { exchanges: { status: number; body?: any }[] }[];
    b: { exchanges: { status: number; body?: any }[] }[];
    reproducers: [string, string];
  }[];
}

const readDiff = (dir: string) => JSON.parse(readFileSync(join(dir, 'diff.json'), 'utf8')) as DiffJson;

describe('diff: the command line', () => {
  it('gives each side the credential and dialect flags after it', () => {
    const a = parseDiffArgs([
      '--endpoint',
      'https://a:6443',
      '--token',
      'ta',
      '--insecure',
      '--kubeconfig',
      'kc.yaml',
      '--context',
      'kind',
      '--dialect',
      'kubernetes',
      '--seed=-5',
      '--ops',
      '20',
    ])!;
    expect(a.sides).toEqual([
      { from: 'endpoint', value: 'https://a:6443', flags: { token: 'ta', insecure: true } },
      { from: 'kubeconfig', value: 'kc.yaml', flags: { context: 'kind', dialect: 'kubernetes' } },
    ]);
    expect(a.seed).toBe(-5);
    expect(a.ops).toBe(20);
  });

  it('refuses one side, three, a side flag before any side, and a mode it does not know', () => {
    expect(() => parseDiffArgs(['--reference', 'memory'])).toThrow(/two sides; 1 given/);
    expect(() =>
      parseDiffArgs(['--reference', 'memory', '--reference', 'wal', '--reference', 'etcd']),
    ).toThrow(/two sides; 3 given/);
    expect(() => parseDiffArgs(['--token', 'x', '--reference', 'memory', '--reference', 'memory'])).toThrow(
      /--token belongs to a side/,
    );
    expect(() => parseDiffArgs(['--reference', 'disk', '--reference', 'memory'])).toThrow(
      /memory, wal, etcd/,
    );
    expect(() => parseDiffArgs(['--reference', 'memory', '--reference', 'memory', '--ops', 'many'])).toThrow(
      /--ops/,
    );
  });

  it('answers a usage error with exit code 2 and the help', async () => {
    const r = await cli(['diff', '--reference', 'memory']);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain('Usage: orch-conformance diff');
  });
});

describe('diff: normalising and comparing', () => {
  const x = (status: number, body: unknown) => ({
    exchanges: [{ request: { method: 'GET', path: '/', headers: {} }, status, body }],
  });
  const object = (ns: string, uid: string, rv: string, time: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: ns, uid, resourceVersion: rv, creationTimestamp: time },
    data: { k1: 'YQ==' },
  });

  it('maps uids and versions to their order of first sight, namespaces to one word, times to a placeholder', () => {
    const a = normaliseResults(normaliseContext('ns-a', 'a.example.com'), [
      x(201, object('ns-a', 'u-1', '100', 't1')),
      x(200, object('ns-a', 'u-1', '107', 't1')),
      x(200, object('ns-a', 'u-1', '107', 't1')),
    ]);
    const b = normaliseResults(normaliseContext('ns-b', 'b.example.com'), [
      x(201, object('ns-b', 'zz', '9', 't2')),
      x(200, object('ns-b', 'zz', '12', 't2')),
      x(200, object('ns-b', 'zz', '12', 't2')),
    ]);
    expect(a).toEqual(b);
    expect((a[1]!.exchanges[0]!.body as any).metadata).toEqual({
      name: 'a',
      namespace: 'NAMESPACE',
      uid: 'uid#1',
      resourceVersion: 'version#2',
      creationTimestamp: '<time>',
    });
  });

  it('tells a version that did not move from one that did, and names the op, path and kind of difference', () => {
    const ops: Op[] = [
      { op: 'get', kind: 'configmaps', name: 'a' },
      { op: 'get', kind: 'configmaps', name: 'a' },
    ];
    const a = normaliseResults(normaliseContext('ns-x', 'g.example.com'), [
      x(200, object('ns-x', 'u', '1', 't')),
      x(200, object('ns-x', 'u', '1', 't')),
    ]);
    const b = normaliseResults(normaliseContext('ns-x', 'g.example.com'), [
      x(200, object('ns-x', 'u', '1', 't')),
      x(200, object('ns-x', 'u', '2', 't')),
    ]);
    expect(compareResults(ops, a, b)).toEqual({
      index: 1,
      paths: ['exchanges[0].body.metadata.resourceVersion'],
      signature: 'get configmaps: body.metadata.resourceVersion',
    });
  });

  it('compares managedFields entries whatever second their times fell in, but not whatever they hold', () => {
    const entry = (manager: string, time: string, fields = 'f:data') => ({
      manager,
      operation: 'Apply',
      apiVersion: 'v1',
      time,
      fieldsType: 'FieldsV1',
      fieldsV1: { [fields]: {} },
    });
    const withEntries = (...managedFields: unknown[]) => {
      const o = object('ns-x', 'u', '1', 't');
      return x(200, { ...o, metadata: { ...o.metadata, managedFields } });
    };
    const ops: Op[] = [{ op: 'get', kind: 'configmaps', name: 'a' }];
    const norm = (r: ReturnType<typeof x>) =>
      normaliseResults(normaliseContext('ns-x', 'g.example.com'), [r]);
    // one server wrote both in one second (sorted by manager), the other across a second
    const oneSecond = norm(
      withEntries(entry('a', '2026-01-01T00:00:01Z'), entry('b', '2026-01-01T00:00:01Z')),
    );
    const twoSeconds = norm(
      withEntries(entry('b', '2026-01-01T00:00:01Z'), entry('a', '2026-01-01T00:00:02Z')),
    );
    expect(compareResults(ops, oneSecond, twoSeconds)).toBeUndefined();
    const otherFields = norm(
      withEntries(entry('b', '2026-01-01T00:00:01Z'), entry('a', '2026-01-01T00:00:02Z', 'f:binaryData')),
    );
    expect(compareResults(ops, oneSecond, otherFields)?.signature).toMatch(/managedFields/);
  });

  it('compares an error by code, reason and causes, not by its message', () => {
    const status = (message: string, field: string) => ({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message,
      details: { causes: [{ reason: 'FieldValueInvalid', field, message }] },
    });
    const ops: Op[] = [{ op: 'get', kind: 'configmaps', name: 'a' }];
    const norm = (s: unknown) => normaliseResults(normaliseContext('ns-x', 'g.example.com'), [x(422, s)]);
    expect(
      compareResults(ops, norm(status('one wording', 'data')), norm(status('another', 'data'))),
    ).toBeUndefined();
    expect(
      compareResults(ops, norm(status('same', 'data')), norm(status('same', 'metadata')))?.signature,
    ).toBe('get configmaps: body.details.causes[].field');
    const created = normaliseResults(normaliseContext('ns-x', 'g.example.com'), [
      x(201, object('ns-x', 'u', '1', 't')),
    ]);
    expect(compareResults(ops, created, norm(status('no', 'dryRun')))?.signature).toBe(
      'status: 2xx vs 422 Invalid (dryRun)',
    );
  });
});

describe('diff: the reproducer', () => {
  it('is valid bash that reads credentials from the environment and quotes bodies', () => {
    const dir = tempDir('diff-repro');
    const script = curlScript({
      title: 'test',
      server: 'https://127.0.0.1:1',
      requests: [
        {
          method: 'POST',
          path: '/api/v1/namespaces',
          headers: { 'content-type': 'application/json', authorization: 'Bearer secret-token' },
          body: `{"metadata":{"name":"it's"}}`,
        },
        { method: 'GET', path: '/api/v1/namespaces/x/configmaps?watch=1&resourceVersion=5', headers: {} },
      ],
    });
    expect(script).not.toContain('secret-token');
    expect(script).toContain('--max-time 2');
    const file = join(dir, 'r.sh');
    writeFileSync(file, script);
    execFileSync('bash', ['-n', file]);
  });
});

/** An HTTP proxy to a reference server that drops `data.k3` from every JSON answer but a watch's. */
async function plantedProxy(upstream: OrchServer): Promise<{ url: string; close(): Promise<void> }> {
  const agent = new Agent({ connect: { ca: upstream.caPem } });
  const drop = (v: any): any => {
    if (Array.isArray(v)) return v.map(drop);
    if (v && typeof v === 'object') {
      const out: any = {};
      for (const [k, x] of Object.entries(v)) out[k] = drop(x);
      if (out.data && typeof out.data === 'object') delete out.data.k3;
      return out;
    }
    return v;
  };
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    // the end-to-end headers only: undici refuses hop-by-hop ones
    const headers: Record<string, string> = {};
    for (const k of ['authorization', 'content-type', 'accept', 'user-agent'])
      if (typeof req.headers[k] === 'string') headers[k] = req.headers[k] as string;
    let r: Awaited<ReturnType<typeof request>>;
    try {
      r = await request(`${upstream.url}${req.url}`, {
        method: req.method as 'GET',
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
        dispatcher: agent,
      });
    } catch (e) {
      res.writeHead(502).end(String(e));
      return;
    }
    const type = String(r.headers['content-type'] ?? '');
    if (/[?&]watch=(1|true)/.test(req.url ?? '')) {
      res.writeHead(r.statusCode, { 'content-type': type });
      r.body.on('data', (c: Buffer) => res.write(c));
      r.body.on('end', () => res.end());
      // the client closes the watch: its upstream stream ends with it
      r.body.on('error', () => undefined);
      res.on('close', () => r.body.destroy());
      return;
    }
    const text = await r.body.text();
    const body = type.includes('json') && text ? JSON.stringify(drop(JSON.parse(text))) : text;
    res.writeHead(r.statusCode, { 'content-type': type });
    res.end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
      await agent.close();
    },
  };
}

describe('diff: whole runs', () => {
  it('finds no divergence between two reference servers on one etcd', async () => {
    expect(etcdBinary(), ETCD_MISSING).toBeDefined();
    const dir = tempDir('diff-etcd');
    const started = Date.now();
    const r = await cli([
      'diff',
      '--reference',
      'etcd',
      '--reference',
      'etcd',
      '--ops',
      '1500',
      '--seed',
      '20261130',
      '--report',
      dir,
    ]);
    const seconds = (Date.now() - started) / 1000;
    expect(r.code, r.out).toBe(0);
    const d = readDiff(dir);
    expect(d.divergences).toEqual([]);
    expect(d.opsDone).toBeGreaterThanOrEqual(1500);
    expect(r.out).toContain('diff: no divergence');
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toContain('No divergence.');
    console.log(`diff: 1500 operations on two reference servers on one etcd in ${seconds.toFixed(1)} s`);
  }, 300_000);

  it('finds a planted difference, shrinks it to the one write that shows it, and writes reproducers that replay', async () => {
    const dir = tempDir('diff-planted');
    const [a, b] = [
      await build({ inMemory: true, tls: true, port: 0, host: '127.0.0.1' }),
      await build({ inMemory: true, tls: true, port: 0, host: '127.0.0.1' }),
    ];
    await a.listen();
    await b.listen();
    const proxy = await plantedProxy(b);
    const fresh = await build({ inMemory: true, tls: true, port: 0, host: '127.0.0.1' });
    await fresh.listen();
    try {
      writeFileSync(join(dir, 'a-ca.pem'), a.caPem!);
      writeFileSync(join(dir, 'b.token'), b.adminToken);
      const report = join(dir, 'report');
      const r = await cli([
        'diff',
        '--endpoint',
        a.url!,
        '--token',
        a.adminToken,
        '--ca',
        join(dir, 'a-ca.pem'),
        '--endpoint',
        proxy.url,
        '--token-file',
        join(dir, 'b.token'),
        '--ops',
        '200',
        '--seed',
        '7',
        '--report',
        report,
      ]);
      expect(r.code, r.out).toBe(1);
      const d = readDiff(report);
      expect(d.divergences.length, r.out).toBeGreaterThanOrEqual(1);
      for (const v of d.divergences) expect(v.paths.join(' '), v.signature).toMatch(/data\.k3/);
      const first = d.divergences[0]!;
      // the shortest sequence showing it: one write whose answer holds k3
      expect(first.operations, first.labels.join('; ')).toHaveLength(1);
      expect(first.operations[0]!.op).toMatch(/create|apply|update/);
      expect((first.a[0]!.exchanges[0]!.body as any).data.k3).toBeDefined();
      expect((first.b[0]!.exchanges[0]!.body as any).data?.k3).toBeUndefined();
      const html = readFileSync(join(report, 'index.html'), 'utf8');
      expect(html).toContain(first.signature);
      // side A's reproducer, replayed on a fresh server with bash and curl, gets A's answers
      const script = readFileSync(join(report, first.reproducers[0]), 'utf8');
      expect(script).not.toContain(a.adminToken);
      // not execFileSync: the fresh server answers from this process's event loop
      const { stdout: out } = await run('bash', [join(report, first.reproducers[0])], {
        env: { PATH: process.env.PATH, SERVER: fresh.url, TOKEN: fresh.adminToken, INSECURE: '1' },
        encoding: 'utf8',
      });
      const codes = [...out.matchAll(/-> (\d+)/g)].map((m) => Number(m[1]));
      // the definition, the namespace, then the operation's own answer
      expect(codes, out).toEqual([201, 201, first.a[0]!.exchanges[0]!.status]);
      expect(out).toContain('"k3"');
    } finally {
      await proxy.close();
      await Promise.all([a.close(), b.close(), fresh.close()]);
    }
  }, 180_000);
});
