// `orch-conformance serve` and `run` start from bundles of their sources (scripts/bundle.mjs):
// a bundle is built again when any file it was built from changes, the bundled command lines
// say what the sources say, and a bundled server finds the data files its sources read beside
// them (the published 1.28 schemas, the RBAC defaults).
import { execFileSync, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { build, bundlePaths, upToDate } from '../bundle.mjs';
import { cleanEnv, ROOT } from './helpers.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'orch-bundle-'));
  dirs.push(d);
  return d;
};

const cliOut = (args: string[], env: Record<string, string> = {}) =>
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'bin.mjs'), ...args], {
    cwd: ROOT,
    env: cleanEnv(env),
    encoding: 'utf8',
  });

/**
 * Source files in a folder of their own under out/ (esbuild bundles what is below the
 * repository), their `entry.ts` as a bundle entry, and the removal of that entry's bundle.
 */
function sources(files: Record<string, string>) {
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'out', 'bundle-test-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const entry = relative(ROOT, join(dir, 'entry.ts'));
  const paths = bundlePaths(entry);
  const removeBundle = () => {
    for (const f of Object.values(paths)) rmSync(f, { recursive: true, force: true });
    rmSync(`${paths.file}.map`, { force: true });
  };
  return { dir, entry, paths, removeBundle };
}

describe('the bundles of the command lines', () => {
  it('a bundle is built again when a file it was built from changes', async () => {
    const { dir, entry, removeBundle } = sources({
      'entry.ts': "export { value } from './dep.ts';\n",
      'dep.ts': 'export const value: number = 1;\n',
    });
    const dep = join(dir, 'dep.ts');
    expect(upToDate(entry), 'no bundle yet').toBe(false);
    expect(await build(entry), 'built').toBe(true);
    expect(upToDate(entry), 'built from these files').toBe(true);
    writeFileSync(dep, 'export const value: number = 22;\n');
    expect(upToDate(entry), 'an imported file changed').toBe(false);
    expect(await build(entry)).toBe(true);
    expect(upToDate(entry)).toBe(true);
    expect(readFileSync(bundlePaths(entry).file, 'utf8')).toContain('value = 22');
    utimesSync(dep, 1_000, 1_000);
    expect(upToDate(entry), 'an imported file was written again').toBe(false);
    rmSync(bundlePaths(entry).inputs);
    expect(upToDate(entry), 'the list of inputs is gone').toBe(false);
    removeBundle();
  });

  it('what the sources load with import() is a chunk of its own, loaded only at that import()', async () => {
    const { entry, paths, removeBundle } = sources({
      'entry.ts': "export const later = () => import('./later.ts');\n",
      'later.ts': "import { parse } from 'csv-parse/sync';\nexport const rows = parse('a,b\\n');\n",
    });
    try {
      expect(await build(entry)).toBe(true);
      expect(upToDate(entry)).toBe(true);
      // the package the lazy module imports is not imported by the entry
      expect(readFileSync(paths.file, 'utf8')).not.toContain('csv-parse');
      const chunks = readdirSync(paths.chunks).filter((f) => f.endsWith('.mjs'));
      expect(chunks.some((f) => readFileSync(join(paths.chunks, f), 'utf8').includes('csv-parse'))).toBe(
        true,
      );
      const { later } = (await import(pathToFileURL(paths.file).href)) as {
        later: () => Promise<{ rows: string[][] }>;
      };
      expect((await later()).rows).toEqual([['a', 'b']]);
      for (const f of chunks) rmSync(join(paths.chunks, f));
      expect(upToDate(entry), 'a chunk is gone').toBe(false);
    } finally {
      removeBundle();
    }
  });

  it.each([
    ['lazily, at the first stack trace', true],
    ['by Node, as the modules load', false],
  ])('stack traces from a bundle name the source files and lines (maps read %s)', async (_, lazy) => {
    // the throw is on line 4 of deep.ts; `new` frames and async frames keep their words
    const { dir, entry, paths, removeBundle } = sources({
      'entry.ts': "export { fail } from './deep.ts';\n",
      'deep.ts': [
        'const pad: number = 1;',
        'class Thrower {',
        '  constructor() {',
        "    throw new RangeError('broken ' + pad);",
        '  }',
        '}',
        'export async function fail(): Promise<void> {',
        '  await Promise.resolve();',
        '  new Thrower();',
        '}',
        '',
      ].join('\n'),
    });
    try {
      const script = `const { load } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'scripts', 'bundle.mjs')).href)});
const m = await load(${JSON.stringify(entry)}, { lazyStacks: ${lazy} });
try { await m.fail(); } catch (e) { console.log(e.stack); }`;
      const stack = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: ROOT,
        env: cleanEnv(),
        encoding: 'utf8',
      });
      const deep = join(dir, 'deep.ts');
      expect(stack.split('\n')[0]).toBe('RangeError: broken 1');
      expect(stack).toContain(`at new Thrower (${deep}:4:11)`);
      expect(stack).toMatch(
        new RegExp(`at (async )?(Module\\.)?fail \\(${deep.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:9:3\\)`),
      );
      expect(stack, 'no frame names the bundle').not.toContain(paths.file);
    } finally {
      removeBundle();
    }
  });

  it.each([
    ['serve', 'reference/src/cli.ts', '--etcd-servers'],
    ['run', 'scripts/run.ts', '--kubernetes-assets'],
  ])('%s --help from the bundle is the help of the sources', (cmd, entry, flag) => {
    const bundled = cliOut([cmd, '--help']);
    const fromSource = cliOut([cmd, '--help'], { ORCH_FROM_SOURCE: '1' });
    expect(bundled).toContain(flag);
    expect(bundled).toBe(fromSource);
    expect(upToDate(entry), 'the bundle of these sources was built').toBe(true);
  });

  it('a bundled server reads the data files beside its sources: RBAC defaults and published schemas', async () => {
    const data = temp();
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'scripts', 'bin.mjs'),
        'serve',
        '--in-memory',
        '--insecure-http',
        '--port',
        '0',
        '--data-dir',
        data,
      ],
      { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    try {
      const deadline = Date.now() + 30_000;
      while (!/ready in \d+ ms/.test(out)) {
        expect(child.exitCode, `serve exited: ${out}`).toBeNull();
        expect(Date.now() < deadline, `serve was not ready in 30 s: ${out}`).toBe(true);
        await new Promise((r) => setTimeout(r, 50));
      }
      const url = /URL:\s+(\S+)/.exec(out)?.[1];
      const token = /token:\s+(\S+)/.exec(out)?.[1];
      expect(url && token, `the banner names the URL and the token: ${out}`).toBeTruthy();
      const get = async (path: string) => {
        const r = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
        return { status: r.status, body: (await r.json()) as Record<string, any> };
      };
      const admin = await get('/apis/rbac.authorization.orch.io/v1/clusterroles/cluster-admin');
      expect(admin.status, JSON.stringify(admin.body)).toBe(200);
      expect(admin.body.rules).toEqual([
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['*'] },
      ]);
      // a built-in kind whose schema comes from the published 1.28 document: an unknown field is refused
      const created = await fetch(
        `${url}/apis/discovery.orch.io/v1/namespaces/default/endpointslices?fieldValidation=Strict`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            apiVersion: 'discovery.orch.io/v1',
            kind: 'EndpointSlice',
            metadata: { name: 'bundled' },
            addressType: 'IPv4',
            endpoints: [],
            bogus: 1,
          }),
        },
      );
      const status = (await created.json()) as { message?: string };
      expect(created.status, JSON.stringify(status)).toBe(400);
      expect(status.message).toMatch(/unknown field "bogus"/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
