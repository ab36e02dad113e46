// The command line: `serve` flags, the kept admin token, the kubeconfig it writes, and the
// standalone server as a real child process (scripts/bin.mjs) that stops cleanly on a signal.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { adminToken, isLoopback, parseServeArgs, type Running, serve, UsageError } from '../src/cli.ts';
import { DEFAULTS } from '../src/config.ts';
import { SERVER_VERSION } from '../src/index.ts';
import { kubeconfigObject } from '../src/kubeconfig.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'orch-cli-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('serve flags', () => {
  it('defaults: HTTPS on 127.0.0.1:6443, durable store with fsync under .orch/data, kubeconfig beside it', () => {
    const c = parseServeArgs([], '/work/x')!;
    expect(c.options).toMatchObject({
      port: 6443,
      host: '127.0.0.1',
      dataDir: '/work/x/.orch/data',
      inMemory: false,
      fsync: true,
      tls: true,
    });
    expect(c.kubeconfigPath).toBe('/work/x/.orch/data/kubeconfig');
    expect(c.token).toBeUndefined();
    expect(c.options.featureGates).toBeUndefined();
  });

  it('every flag', () => {
    const c = parseServeArgs(
      [
        '--port=0',
        '--host',
        '::1',
        '--data-dir',
        'd',
        '--in-memory',
        '--no-fsync',
        '--insecure-http',
        '--feature-gates=WatchList=true',
        '--feature-gates',
        'APIResponseCompression=false',
        '--runtime-config=apps/v1=false',
        '--history-seconds',
        '60',
        '--continue-ttl-seconds=30',
        '--bookmark-interval-seconds',
        '2',
        '--token',
        'secret-token',
        '--kubeconfig',
        'k/config',
        '--audit-log-path',
        'logs/audit.log',
      ],
      '/w',
    )!;
    expect(c.options).toMatchObject({
      port: 0,
      host: '::1',
      dataDir: '/w/d',
      inMemory: true,
      fsync: false,
      tls: false,
      runtimeConfig: 'apps/v1=false',
      historySeconds: 60,
      continueTtlSeconds: 30,
      bookmarkIntervalMs: 2000,
      auditLogPath: '/w/logs/audit.log',
    });
    expect(c.options.featureGates).toEqual({
      ...DEFAULTS.featureGates,
      WatchList: true,
      APIResponseCompression: false,
    });
    expect(c.token).toBe('secret-token');
    expect(c.kubeconfigPath).toBe('/w/k/config');
  });

  it('--help', () => {
    expect(
      parseServeArgs(['--authorization-mode', 'RBAC,AlwaysDeny', '--anonymous-auth', 'false'])!.options,
    ).toMatchObject({
      authorizationModes: ['RBAC', 'AlwaysDeny'],
      anonymous: false,
    });
    expect(parseServeArgs(['--help'])).toBeUndefined();
    expect(parseServeArgs(['-h'])).toBeUndefined();
  });

  it.each([
    [['--insecure-http', '--host', '0.0.0.0'], /loopback/],
    [['--insecure-http', '--host', '10.1.2.3'], /loopback/],
    [['--port', '70000'], /out of range/],
    [['--port', 'abc'], /whole number/],
    [['--feature-gates', 'NoSuchGate=true'], /unrecognized feature gate: NoSuchGate/],
    [['--feature-gates', 'WatchList=yes'], /invalid value of WatchList=yes, err: strconv.ParseBool/],
    [['--runtime-config', 'not a group'], /runtime-config/],
    [['--history-seconds', '0'], /out of range/],
    [['--token', 'has space'], /token/],
    [['--nope'], /Unknown option/],
    [['--authorization-mode', 'ABAC'], /--authorization-mode: unknown authorization mode "ABAC"/],
    [
      ['--authorization-mode', 'RBAC,RBAC'],
      /--authorization-mode: authorization mode "RBAC" is given more than once/,
    ],
    [['--authorization-mode', ''], /--authorization-mode: at least one authorization mode/],
    [['--anonymous-auth', 'yes'], /--anonymous-auth: "yes" is not true or false/],
    [['extra'], /positional/],
  ])('rejects %j', (args, message) => {
    expect(() => parseServeArgs(args)).toThrow(UsageError);
    expect(() => parseServeArgs(args)).toThrow(message);
  });

  it('loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.3.4.5', '::1', '[::1]', 'localhost'])
      expect(isLoopback(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1'])
      expect(isLoopback(h), h).toBe(false);
  });
});

describe('admin token', () => {
  it('generated once and kept (0600) in the data directory; --token wins', () => {
    const d = tmp();
    const t = adminToken(join(d, 'data'));
    // hex: a token may follow --token on a command line, so it never begins with '-'
    expect(t).toMatch(/^[0-9a-f]{48}$/);
    expect(adminToken(join(d, 'data'))).toBe(t);
    expect(statSync(join(d, 'data', 'admin-token')).mode & 0o777).toBe(0o600);
    expect(adminToken(join(d, 'data'), 'explicit')).toBe('explicit');
    expect(readFileSync(join(d, 'data', 'admin-token'), 'utf8').trim()).toBe(t);
  });
});

describe('serve (in process)', () => {
  let running: Running | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('HTTPS: a kubeconfig with the CA, the token and the orch-reference context, which works', async () => {
    const d = tmp();
    running = await serve(parseServeArgs(['--port', '0', '--data-dir', d, '--in-memory'])!);
    expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const kc = parseYaml(readFileSync(running.kubeconfigPath, 'utf8'));
    expect(statSync(running.kubeconfigPath).mode & 0o777).toBe(0o600);
    expect(kc['current-context']).toBe('orch-reference');
    expect(kc.contexts).toEqual([
      { name: 'orch-reference', context: { cluster: 'orch-reference', user: 'orch-reference' } },
    ]);
    const cluster = kc.clusters[0].cluster;
    expect(cluster.server).toBe(running.url);
    const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
    expect(ca).toBe(running.server.caPem);
    expect(kc.users[0].user.token).toBe(running.token);
    expect(running.token).toBe(readFileSync(join(d, 'admin-token'), 'utf8').trim());
    // verified TLS with that CA and that token
    const agent = new Agent({ connect: { ca } });
    const r = await request(`${running.url}/api/v1/namespaces/default`, {
      headers: { authorization: `Bearer ${kc.users[0].user.token}` },
      dispatcher: agent,
    });
    expect(r.statusCode).toBe(200);
    expect(((await r.body.json()) as { metadata: { name: string } }).metadata.name).toBe('default');
    await agent.close();
  });

  it('--insecure-http on loopback: plain HTTP, no CA in the kubeconfig', async () => {
    const d = tmp();
    running = await serve(
      parseServeArgs(['--port', '0', '--data-dir', d, '--in-memory', '--insecure-http', '--token', 'tok-1'])!,
    );
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const kc = parseYaml(readFileSync(running.kubeconfigPath, 'utf8'));
    expect(kc.clusters[0].cluster).toEqual({ server: running.url });
    expect(kc.users[0].user.token).toBe('tok-1');
    const r = await request(`${running.url}/version`, { headers: { authorization: 'Bearer tok-1' } });
    expect(((await r.body.json()) as { gitVersion: string }).gitVersion).toBe(SERVER_VERSION.gitVersion);
  });

  it('a port in use is a usage error', async () => {
    const d = tmp();
    running = await serve(
      parseServeArgs(['--port', '0', '--data-dir', d, '--in-memory', '--insecure-http'])!,
    );
    const port = new URL(running.url).port;
    await expect(
      serve(parseServeArgs(['--port', port, '--data-dir', tmp(), '--in-memory', '--insecure-http'])!),
    ).rejects.toThrow(/already in use/);
  });

  it('kubeconfigObject without a CA or with a namespace', () => {
    const k = kubeconfigObject({ server: 'http://127.0.0.1:1', token: 't', namespace: 'ns1', name: 'n' });
    expect(k).toMatchObject({
      'current-context': 'n',
      contexts: [{ name: 'n', context: { cluster: 'n', user: 'n', namespace: 'ns1' } }],
    });
  });
});

describe('orch-conformance serve (a child process)', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });

  interface Started {
    child: ChildProcess;
    out: () => string;
    err: () => string;
    exited: Promise<number | null>;
    banner: Record<string, string>;
  }

  async function start(args: string[]): Promise<Started> {
    const child = spawn(process.execPath, [join(ROOT, 'scripts/bin.mjs'), 'serve', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const deadline = Date.now() + 20_000;
    while (!/ready in \d+ ms/.test(out)) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`server did not start: ${out} ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const field = (name: string) => new RegExp(`^\\s*${name}:\\s+(\\S+)`, 'm').exec(out)?.[1] ?? '';
    return {
      child,
      out: () => out,
      err: () => err,
      exited,
      banner: { url: field('URL'), token: field('token'), kubeconfig: field('kubeconfig') },
    };
  }

  it('prints URL, token and kubeconfig; SIGTERM flushes the store; a restart keeps the token and the objects', async () => {
    const d = tmp();
    const first = await start(['--port', '0', '--data-dir', d]);
    expect(first.banner.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(first.banner.kubeconfig).toBe(join(d, 'kubeconfig'));
    expect(first.out()).toContain(`kubectl --kubeconfig ${join(d, 'kubeconfig')}`);
    const kc = parseYaml(readFileSync(first.banner.kubeconfig, 'utf8'));
    expect(kc.users[0].user.token).toBe(first.banner.token);
    const agent = new Agent({
      connect: { ca: Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString() },
    });
    const auth = { authorization: `Bearer ${first.banner.token}`, 'content-type': 'application/json' };
    const created = await request(`${first.banner.url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'kept' },
        data: { k: 'v' },
      }),
      dispatcher: agent,
    });
    expect(created.statusCode).toBe(201);
    await created.body.dump();
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.err()).toContain('SIGTERM: shutting down');

    const second = await start(['--port', '0', '--data-dir', d]);
    expect(second.banner.token).toBe(first.banner.token);
    const kc2 = parseYaml(readFileSync(second.banner.kubeconfig, 'utf8'));
    // the certificate is kept too: the same CA
    expect(kc2.clusters[0].cluster['certificate-authority-data']).toBe(
      kc.clusters[0].cluster['certificate-authority-data'],
    );
    const got = await request(`${second.banner.url}/api/v1/namespaces/default/configmaps/kept`, {
      headers: auth,
      dispatcher: agent,
    });
    expect(got.statusCode).toBe(200);
    expect(((await got.body.json()) as { data: unknown }).data).toEqual({ k: 'v' });
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    await agent.close();
  });

  it('a start prints the banner and nothing else; -v 3 logs each request as kube-apiserver does', async () => {
    const quiet = await start(['--port', '0', '--in-memory', '--insecure-http']);
    expect(quiet.out().split('\n')[0]).toMatch(/^orch reference server v/);
    const get = (url: string, token: string) =>
      request(`${url}/api/v1/namespaces/default/configmaps?limit=1`, {
        headers: { authorization: `Bearer ${token}`, 'user-agent': 'cli-test/1' },
      }).then(async (r) => {
        await r.body.dump();
        return r.statusCode;
      });
    expect(await get(quiet.banner.url, quiet.banner.token)).toBe(200);
    quiet.child.kill('SIGTERM');
    expect(await quiet.exited).toBe(0);
    // nothing on standard error but the shutdown: no deprecation notes, no request lines
    expect(quiet.err()).toBe('SIGTERM: shutting down\n');

    const verbose = await start(['--port', '0', '--in-memory', '--insecure-http', '-v', '3']);
    expect(await get(verbose.banner.url, verbose.banner.token)).toBe(200);
    const deadline = Date.now() + 5_000;
    while (!verbose.err().includes('"HTTP"') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    verbose.child.kill('SIGTERM');
    expect(await verbose.exited).toBe(0);
    // klog's header, then httplog's fields (kube-apiserver 1.28 at -v=3)
    expect(verbose.err()).toMatch(
      /^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ request-log\.ts\] "HTTP" verb="LIST" URI="\/api\/v1\/namespaces\/default\/configmaps\?limit=1" latency="[\d.]+(ns|µs|ms|s)" userAgent="cli-test\/1" audit-ID="[^"]*" srcIP="127\.0\.0\.1:\d+" resp=200$/m,
    );
  });

  it('usage errors exit 2 with a message', async () => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'scripts/bin.mjs'), 'serve', '--insecure-http', '--host', '0.0.0.0'],
      { cwd: ROOT },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(2);
    expect(err).toMatch(/--insecure-http is only allowed on a loopback host/);
    const unknown = spawn(process.execPath, [join(ROOT, 'scripts/bin.mjs'), 'frobnicate'], { cwd: ROOT });
    expect(await new Promise<number | null>((r) => unknown.on('exit', (c) => r(c)))).toBe(2);
  });
});
