// Helpers for the CLI tests: run `orch-conformance` as a user does (node scripts/bin.mjs) in
// a clean environment, and read what it wrote.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../../reports/finish.ts';
import type { VitestJson } from '../../reports/outcomes.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CliResult {
  code: number;
  out: string;
}

/**
 * The environment of a user's shell: no ORCH_* (the `suites` project of `npm test` points
 * ORCH_ENDPOINT at its own server in this process) and no VITEST* of the test worker; the
 * suites' vitest takes two workers instead of four (ORCH_WORKERS: each worker loads vitest
 * and the harness, about 0.7 CPU s, and these runs are small and share the machine with the
 * rest of `npm test`; four files each took 139 CPU s with four, 115 with two).
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('ORCH_') && !k.startsWith('VITEST') && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, ORCH_WORKERS: '2', ...extra };
}

export function cli(args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'bin.mjs'), ...args], {
      cwd: ROOT,
      env: cleanEnv(extraEnv),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (c) => res({ code: c ?? 1, out }));
  });
}

const dirs: string[] = [];

export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), `orch-${prefix}-`));
  dirs.push(d);
  return d;
}

export function cleanupTempDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export const readSummary = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
export const readResults = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as VitestJson;

/** The last lines of a CLI run, for assertion messages. */
export const tail = (r: CliResult, n = 3000) => r.out.slice(-n);
