// The end of `.ci/run` (scripts/ci-leftovers.mjs) bites: a process of the run still there after
// the grace, or an entry left in the run's temporary directory, fails it (and is ended and
// removed); a process that ends within the grace does not; a clean run does not wait the grace
// out.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers.ts';

const SCRIPT = join(ROOT, 'scripts', 'ci-leftovers.mjs');
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh run: its id and its (empty) temporary directory. */
function run(): { id: string; tmp: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'ci-leftovers-test-'));
  dirs.push(tmp);
  return { id: `test-${process.pid}-${dirs.length}-${Date.now()}`, tmp };
}

/** A process of the run that lives `seconds`. */
function member(id: string, seconds: number): ChildProcess {
  const c = spawn(process.execPath, ['-e', `setTimeout(() => {}, ${seconds * 1000})`], {
    env: { ...process.env, ORCH_CI_RUN: id },
    stdio: 'ignore',
  });
  children.push(c);
  return c;
}

function check(args: string[]): Promise<{ code: number; out: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], (e, stdout, stderr) =>
      resolve({ code: e ? Number(e.code ?? 1) : 0, out: stdout + stderr, ms: Date.now() - started }),
    );
  });
}

describe('scripts/ci-leftovers.mjs', () => {
  it('a clean run passes at once, whatever the grace', async () => {
    const r = run();
    mkdirSync(join(r.tmp, 'tsx-0'));
    const c = await check(['--grace=5', r.id, r.tmp, 'tsx-']);
    expect(c.code, c.out).toBe(0);
    expect(c.out).toContain('no process and no temporary directory outlived the run');
    expect(c.ms).toBeLessThan(4000);
  });

  it('a process that ends within the grace is not a leftover', async () => {
    const r = run();
    member(r.id, 1);
    const c = await check(['--grace=5', r.id, r.tmp]);
    expect(c.code, c.out).toBe(0);
  });

  it('a process still there after the grace fails the run, named by its command line, and is ended', async () => {
    const r = run();
    const p = member(r.id, 60);
    const ended = new Promise((ok) => p.once('exit', ok));
    const c = await check(['--grace=1', r.id, r.tmp]);
    expect(c.code).toBe(1);
    expect(c.out).toMatch(new RegExp(`left running: pid ${p.pid}: .*setTimeout`));
    expect(c.out).toContain('1 process(es) and 0 temporary entries outlived the run');
    await ended;
  });

  it('an entry left in the temporary directory fails the run and is removed', async () => {
    const r = run();
    writeFileSync(join(r.tmp, 'stray.txt'), 'x');
    const c = await check([r.id, r.tmp]);
    expect(c.code).toBe(1);
    expect(c.out).toContain(`left in the run's temporary directory: ${join(r.tmp, 'stray.txt')}`);
    expect(existsSync(join(r.tmp, 'stray.txt'))).toBe(false);
  });
});
