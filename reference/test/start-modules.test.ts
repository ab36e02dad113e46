// What `orch-conformance serve` loads at start. A package only a flag needs (the etcd client,
// CSV for a token file, JWTs for OpenID Connect, the certificate library for client
// certificates) is loaded when the flag is set, and one only a request needs (metrics, YAML,
// Protobuf, JSON patches, service-account tokens) at the first such request: a server started
// with the defaults loads none of them. The modules a process loads are recorded by a preload
// (fixtures/record-modules.mjs) and read after it exits; the server has no part in it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PRELOAD = pathToFileURL(fileURLToPath(new URL('./fixtures/record-modules.mjs', import.meta.url))).href;

/** Loaded only for a flag or a request. */
const FLAG_OR_REQUEST = [
  'etcd3',
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  'cockatiel',
  'csv-parse',
  'jose',
  '@peculiar/x509',
  'undici',
  'prom-client',
  'yaml',
  'protobufjs',
  'fast-json-patch',
];
/** A start from a fresh bundle builds nothing and transforms no TypeScript. */
const BUILDERS = ['esbuild', 'tsx'];

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'orch-start-modules-'));
  dirs.push(d);
  return d;
};

/** The environment of a user's shell (none of the test worker's NODE_OPTIONS, VITEST*, ORCH_*). */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('ORCH_') && !k.startsWith('VITEST') && k !== 'NODE_OPTIONS') out[k] = v;
  return { ...out, ...extra };
}

/** The packages of node_modules a list of module URLs names (the innermost node_modules). */
function packagesOf(urls: string[]): Set<string> {
  const out = new Set<string>();
  for (const u of urls) {
    const m = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
    if (m && !m[1]!.startsWith('.')) out.add(m[1]!);
  }
  return out;
}

interface Banner {
  url: string;
  token: string;
}

/**
 * Starts `serve` with the recording preload, waits for its banner, runs `meanwhile`, stops
 * it with SIGTERM and returns the packages it loaded.
 */
async function packagesLoaded(
  args: string[],
  meanwhile?: (b: Banner) => Promise<void>,
): Promise<Set<string>> {
  const d = tmp();
  const list = join(d, 'modules');
  const child = spawn(
    process.execPath,
    ['--import', PRELOAD, join(ROOT, 'scripts/bin.mjs'), 'serve', '--port', '0', '--data-dir', d, ...args],
    { cwd: ROOT, env: env({ ORCH_RECORD_MODULES: list }), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const deadline = Date.now() + 60_000;
  while (!/ready in \d+ ms/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const field = (name: string) => new RegExp(`^\\s*${name}:\\s+(\\S+)`, 'm').exec(out)?.[1] ?? '';
  await meanwhile?.({ url: field('URL'), token: field('token') });
  child.kill('SIGTERM');
  expect(await exited, out).toBe(0);
  return packagesOf(readFileSync(list, 'utf8').split('\n').filter(Boolean));
}

describe('the packages serve loads at start', () => {
  // the bundle as the sources are now, so that the starts below build nothing
  beforeAll(() => {
    execFileSync(process.execPath, [join(ROOT, 'scripts/bundle.mjs')], { cwd: ROOT, env: env({}) });
  });

  it('with the defaults: none that only a flag or a request needs, and no bundler', async () => {
    const loaded = await packagesLoaded(['--in-memory']);
    // the recording works: a package every start needs is there
    expect([...loaded]).toContain('@marcbachmann/cel-js');
    for (const p of [...FLAG_OR_REQUEST, ...BUILDERS])
      expect(loaded.has(p), `${p} is loaded at start (loaded: ${[...loaded].sort().join(', ')})`).toBe(false);
  });

  it('a request loads what it needs: metrics at the first scrape, YAML at the first YAML answer', async () => {
    const loaded = await packagesLoaded(['--in-memory', '--insecure-http'], async ({ url, token }) => {
      const get = async (path: string, accept = 'application/json') => {
        const r = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}`, accept } });
        return { status: r.status, text: await r.text() };
      };
      const metrics = await get('/metrics', 'text/plain');
      expect(metrics.status).toBe(200);
      expect(metrics.text).toMatch(/^process_cpu_seconds_total /m);
      const ns = await get('/api/v1/namespaces/default', 'application/yaml');
      expect(ns.status).toBe(200);
      expect(ns.text).toMatch(/^kind: Namespace$/m);
    });
    for (const p of ['prom-client', 'yaml']) expect(loaded.has(p), p).toBe(true);
    for (const p of ['etcd3', 'csv-parse', 'jose']) expect(loaded.has(p), p).toBe(false);
  });

  it('a flag loads what it needs: the etcd client, CSV for a token file, jose for OpenID Connect', async () => {
    const tokens = join(tmp(), 'tokens.csv');
    writeFileSync(tokens, 'secret-token,alice,alice-uid\n');
    const loaded = await packagesLoaded([
      '--etcd',
      '--insecure-http',
      `--token-auth-file=${tokens}`,
      '--oidc-issuer-url=https://127.0.0.1:1/issuer',
      '--oidc-client-id=orch',
    ]);
    for (const p of ['etcd3', '@grpc/grpc-js', 'cockatiel', 'csv-parse', 'jose'])
      expect(loaded.has(p), `${p} (loaded: ${[...loaded].sort().join(', ')})`).toBe(true);
    expect(loaded.has('prom-client')).toBe(false);
  });
});
