// Exec credential plugins, client side (doc3 "Credential plugin"), with real plugin scripts
// run as child processes: the command resolved against the kubeconfig's directory, the input
// in ORCH_EXEC_INFO (cluster data only with provideClusterInfo), interactiveMode, the
// installHint of a plugin that is not installed, caching until expirationTimestamp, and a new
// run after the server answers 401 (a real reference server with a static token file).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../reference/test/helpers.ts';
import { Client } from '../src/client.ts';
import { ExecCredentialSource } from '../src/exec-credential.ts';
import { fromKubeconfig } from '../src/target.ts';

const V1 = 'client.authentication.orch.io/v1';
const tmp = mkdtempSync(join(tmpdir(), 'exec-cred-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// The plugin: records its input (ORCH_EXEC_INFO, stdin kind) and answers with the n-th token
// of PLUGIN_TOKENS (the last one from then on), optionally expiring after PLUGIN_EXPIRES_MS.
const PLUGIN = `#!/usr/bin/env node
import { appendFileSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
const counter = process.env.PLUGIN_DIR + '/count';
const n = (existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0) + 1;
writeFileSync(counter, String(n));
appendFileSync(process.env.PLUGIN_DIR + '/inputs', process.env.ORCH_EXEC_INFO + '\\n');
if (process.argv[2] === 'fail') { process.stderr.write('boom: no credentials today'); process.exit(3); }
const tokens = (process.env.PLUGIN_TOKENS ?? 'tok').split(',');
const status = { token: tokens[Math.min(n, tokens.length) - 1] };
if (process.env.PLUGIN_EXPIRES_MS) status.expirationTimestamp = new Date(Date.now() + Number(process.env.PLUGIN_EXPIRES_MS)).toISOString();
const info = JSON.parse(process.env.ORCH_EXEC_INFO);
process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status }));
`;

let seq = 0;
/** A kubeconfig in its own directory with the plugin under ./bin, returned with that directory. */
function setup(
  exec: Record<string, unknown>,
  cluster: Record<string, unknown> = {},
  server = 'https://127.0.0.1:6443',
) {
  const dir = join(tmp, `kc-${++seq}`);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const plugin = join(dir, 'bin', 'plugin.mjs');
  writeFileSync(plugin, PLUGIN);
  chmodSync(plugin, 0o755);
  const env = [{ name: 'PLUGIN_DIR', value: dir }, ...((exec.env as object[]) ?? [])];
  const kubeconfig = join(dir, 'config.json');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server, ...cluster } }],
      users: [
        {
          name: 'u',
          user: {
            exec: { command: './bin/plugin.mjs', apiVersion: V1, interactiveMode: 'Never', ...exec, env },
          },
        },
      ],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  const runs = () => {
    try {
      return Number(readFileSync(join(dir, 'count'), 'utf8'));
    } catch {
      return 0;
    }
  };
  const inputs = () =>
    readFileSync(join(dir, 'inputs'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  return { dir, kubeconfig, runs, inputs };
}

describe('running the plugin', () => {
  it('a relative command is resolved against the kubeconfig directory, not the working directory', async () => {
    const k = setup({ env: [{ name: 'PLUGIN_TOKENS', value: 'relative-ok' }] });
    const t = fromKubeconfig(k.kubeconfig);
    expect(process.cwd()).not.toBe(k.dir);
    expect(t.exec!.commandPath()).toBe(join(k.dir, 'bin', 'plugin.mjs'));
    expect((await t.exec!.get()).token).toBe('relative-ok');
  });

  it('ORCH_EXEC_INFO carries apiVersion, kind and spec.interactive; spec.cluster only with provideClusterInfo', async () => {
    const without = setup({});
    await fromKubeconfig(without.kubeconfig).exec!.get();
    expect(without.inputs()[0]).toEqual({
      apiVersion: V1,
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n').toString('base64');
    const withInfo = setup(
      { provideClusterInfo: true },
      {
        'certificate-authority-data': ca,
        'tls-server-name': 'api.example',
        extensions: [
          { name: 'client.authentication.orch.io/exec', extension: { audience: 'orch', region: 'eu' } },
        ],
      },
    );
    await fromKubeconfig(withInfo.kubeconfig).exec!.get();
    expect(withInfo.inputs()[0].spec).toEqual({
      interactive: false,
      cluster: {
        server: 'https://127.0.0.1:6443',
        'certificate-authority-data': ca,
        'tls-server-name': 'api.example',
        config: { audience: 'orch', region: 'eu' },
      },
    });
  });

  it('interactiveMode: Always needs a terminal; IfAvailable is interactive only with one; Never never', async () => {
    const k = setup({});
    const cfg = (mode: 'Never' | 'IfAvailable' | 'Always') => ({
      command: './bin/plugin.mjs',
      apiVersion: V1,
      interactiveMode: mode,
      env: [{ name: 'PLUGIN_DIR', value: k.dir }],
    });
    const noTerminal = () => false;
    const terminal = () => true;
    await expect(
      new ExecCredentialSource(cfg('Always'), k.dir, { server: 'x' }, Date.now, noTerminal).get(),
    ).rejects.toThrow('exec plugin cannot support interactive mode: standard input is not a terminal');
    expect(k.runs()).toBe(0);
    await new ExecCredentialSource(cfg('IfAvailable'), k.dir, { server: 'x' }, Date.now, noTerminal).get();
    await new ExecCredentialSource(cfg('IfAvailable'), k.dir, { server: 'x' }, Date.now, terminal).get();
    await new ExecCredentialSource(cfg('Never'), k.dir, { server: 'x' }, Date.now, terminal).get();
    await new ExecCredentialSource(cfg('Always'), k.dir, { server: 'x' }, Date.now, terminal).get();
    expect(k.inputs().map((i) => i.spec.interactive)).toEqual([false, true, false, true]);
    // v1beta1 may leave the mode out (IfAvailable); v1 may not; an unknown mode is refused
    const beta = {
      command: './bin/plugin.mjs',
      apiVersion: 'client.authentication.orch.io/v1beta1',
      env: cfg('Never').env,
    };
    await new ExecCredentialSource(beta, k.dir, { server: 'x' }, Date.now, terminal).get();
    expect(k.inputs().at(-1).spec.interactive).toBe(true);
    expect(
      () =>
        new ExecCredentialSource({ ...cfg('Never'), interactiveMode: 'Sometimes' as 'Never' }, k.dir, {
          server: 'x',
        }),
    ).toThrow(/invalid interactiveMode "Sometimes"/);
  });

  it('a plugin that is not installed: the error names it and shows the installHint', async () => {
    const k = setup({ command: './bin/not-there', installHint: 'Install it with: orch-login --install' });
    const err = (await fromKubeconfig(k.kubeconfig)
      .exec!.get()
      .catch((e) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain(`exec: executable ${join(k.dir, 'bin', 'not-there')} not found`);
    expect(err.message).toContain('Install it with: orch-login --install');
    const bare = setup({ command: 'orch-no-such-plugin-on-path', installHint: 'see the docs' });
    await expect(fromKubeconfig(bare.kubeconfig).exec!.get()).rejects.toThrow(
      /orch-no-such-plugin-on-path not found[\s\S]*see the docs/,
    );
  });

  it('a plugin that fails: exit code and its standard error in the error (no install hint)', async () => {
    const k = setup({ args: ['fail'], installHint: 'never shown' });
    const err = (await fromKubeconfig(k.kubeconfig)
      .exec!.get()
      .catch((e) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/failed with exit code 3: boom: no credentials today/);
    expect(err.message).not.toContain('never shown');
  });
});

describe('caching', () => {
  it('the credential is kept until expirationTimestamp, then the plugin runs again', async () => {
    const k = setup({
      env: [
        { name: 'PLUGIN_TOKENS', value: 'first,second' },
        { name: 'PLUGIN_EXPIRES_MS', value: '3600000' },
      ],
    });
    let now = Date.now();
    const t = fromKubeconfig(k.kubeconfig);
    const s = new ExecCredentialSource(t.exec!.config, k.dir, { server: 'x' }, () => now);
    expect((await s.get()).token).toBe('first');
    expect((await s.get()).token).toBe('first');
    expect(k.runs()).toBe(1);
    now += 3600_000 + 1000;
    expect((await s.get()).token).toBe('second');
    expect(k.runs()).toBe(2);
  });

  it('concurrent requests for a credential share one run', async () => {
    const k = setup({});
    const s = fromKubeconfig(k.kubeconfig).exec!;
    const all = await Promise.all([s.get(), s.get(), s.get(), s.get()]);
    expect(new Set(all.map((c) => c.token)).size).toBe(1);
    expect(k.runs()).toBe(1);
  });

  describe('against a real server', () => {
    let ts: TestServer;
    beforeAll(async () => {
      const tokens = join(tmp, 'tokens.csv');
      writeFileSync(tokens, 'good-token,plugin-user,uid-p,system:masters\n');
      ts = await startServer({ tokenAuthFile: tokens });
    });
    afterAll(() => ts?.close());

    it('without an expiry the credential is kept until a 401; then the plugin runs again and the request is retried', async () => {
      const k = setup({ env: [{ name: 'PLUGIN_TOKENS', value: 'stale-token,good-token' }] }, {}, ts.url);
      const client = new Client({ ...fromKubeconfig(k.kubeconfig), dialect: 'orch' });
      try {
        const r = await client.request({ path: '/api/v1/namespaces' });
        expect(r.status, r.text).toBe(200);
        expect(k.runs()).toBe(2);
        const again = await client.request({ path: '/api/v1/namespaces' });
        expect(again.status).toBe(200);
        expect(k.runs()).toBe(2);
      } finally {
        await client.close();
      }
    });
  });
});
