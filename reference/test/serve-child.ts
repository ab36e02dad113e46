// `serve` started as a real child process (in memory, plain HTTP, on a free port, in a fresh
// data directory), for tests of what the command line does at start. The children and their
// directories are cleaned up after the enclosing `describe`.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServedChild {
  /** The exit code when it exited before it was ready; null while it runs. */
  code: number | null;
  out: string;
  err: string;
  /** Ends the child (SIGTERM) and resolves with its exit code. */
  stop: () => Promise<number | null>;
}

/**
 * A `serve(flags)` that starts the command line with the flags and resolves when it is ready or
 * has exited; call it inside a `describe` (it registers the clean-up there). `dirPrefix` names
 * the data directories.
 */
export function serveChildren(dirPrefix: string): (flags: string[]) => Promise<ServedChild> {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return async (flags) => {
    const d = mkdtempSync(join(tmpdir(), dirPrefix));
    dirs.push(d);
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'scripts/bin.mjs'),
        'serve',
        '--port',
        '0',
        '--in-memory',
        '--insecure-http',
        '--data-dir',
        d,
        ...flags,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    const deadline = Date.now() + 30_000;
    while (!/ready in \d+ ms/.test(out) && child.exitCode === null) {
      if (Date.now() > deadline) throw new Error(`serve did not start: ${out} ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const code = child.exitCode === null ? null : await exited;
    return {
      code,
      out,
      err,
      stop: async () => {
        if (child.exitCode === null) child.kill('SIGTERM');
        return exited;
      },
    };
  };
}
