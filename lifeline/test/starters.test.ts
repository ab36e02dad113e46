// Nothing outlives its starter: kill -9 of each kind of starter the project has (the reference
// server with its private etcd, an embedded conformance run with its vitest child, a process
// in the middle of a health case with the server process it started, and npm running
// `npm run server -- --etcd` or `npm run conformance`) leaves no process and no temporary
// directory behind within 5 s. Checked with the operating system: every process the
// starter began carries a marker in its environment (read from /proc/<pid>/environ, as
// .ci/run's own check does), and the starter's TMPDIR is a directory of the test's own.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const MARK = 'ORCH_LIFELINE_TEST';

/** The processes whose environment carries this test's marker: pid and command line. */
function marked(mark: string): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${MARK}=${mark}`)) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      // a zombie (ended, not yet reaped by its parent) has no command line: it runs nothing
      if (cmd) out.push({ pid, cmd });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

interface Started {
  child: ChildProcess;
  mark: string;
  tmp: string;
  out: () => string;
}

const started: Started[] = [];
afterEach(() => {
  for (const s of started.splice(0)) {
    for (const p of marked(s.mark)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // ended
      }
    }
    rmSync(s.tmp, { recursive: true, force: true });
  }
});

/** Starts a starter (`bin`, node by default) with a marker of its own and a TMPDIR of its own. */
function start(args: string[], bin = process.execPath): Started {
  const mark = `t${process.pid}-${Date.now()}-${started.length}`;
  const tmp = mkdtempSync(join(tmpdir(), 'lifeline-test-'));
  const child = spawn(bin, args, {
    cwd: ROOT,
    env: { ...process.env, [MARK]: mark, TMPDIR: tmp, ORCH_REPORT_DIR: '', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const s = { child, mark, tmp, out: () => out };
  started.push(s);
  return s;
}

/** Waits until `cond` holds (checked every 100 ms), failing with `what` after `ms`. */
async function until(cond: () => boolean, what: string, s: Started, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline)
      throw new Error(`${what} within ${ms} ms; the starter wrote:\n${s.out().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** kill -9 of the starter, then: no marked process and nothing in its TMPDIR within 5 s. */
async function killAndCheck(s: Started): Promise<void> {
  s.child.kill('SIGKILL');
  const deadline = Date.now() + 5000;
  // tsx's cache of compiled files (tsx-<uid>) is a tool's cache, kept by design (as .ci/run allows it)
  const left = () => ({
    processes: marked(s.mark),
    files: readdirSync(s.tmp).filter((f) => !f.startsWith('tsx-')),
  });
  while (Date.now() < deadline) {
    const l = left();
    if (!l.processes.length && !l.files.length) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  const l = left();
  expect(
    l.processes.map((p) => `${p.pid}: ${p.cmd}`),
    'processes still running 5 s after kill -9 of their starter',
  ).toEqual([]);
  expect(l.files, `left in the starter's TMPDIR ${s.tmp} 5 s after kill -9`).toEqual([]);
}

const running = (s: Started, re: RegExp) => () => marked(s.mark).some((p) => re.test(p.cmd));

/** The flags of an embedded run of the watch area reporting to `report`. */
const watchRun = (report: string) => ['--area', 'watch', '--report', report, '--no-html'];

/** Starts a conformance run, kills it -9 once a watch case has run in its vitest process, and checks. */
async function killRunMidway(startRun: (report: string) => Started): Promise<void> {
  const report = mkdtempSync(join(tmpdir(), 'lifeline-report-'));
  try {
    const s = startRun(report);
    await until(running(s, /vitest\.mjs/), 'the suites run in a vitest process', s);
    // in the middle of the run: a case file has reported
    await until(() => /suites\/watch\//.test(s.out()), 'a watch case has run', s);
    await killAndCheck(s);
  } finally {
    rmSync(report, { recursive: true, force: true });
  }
}

describe('kill -9 of a starter leaves nothing behind', () => {
  it('the reference server with --etcd: its private etcd and the etcd data directory go', async () => {
    const s = start([join(ROOT, 'scripts', 'bin.mjs'), 'serve', '--etcd', '--insecure-http', '--port', '0']);
    await until(() => /ready in \d+ ms/.test(s.out()), 'the server is ready', s);
    expect(running(s, /(^|\/)etcd /)(), 'its etcd runs').toBe(true);
    expect(
      readdirSync(s.tmp).some((f) => f.startsWith('orch-etcd-')),
      'the etcd data directory is in TMPDIR',
    ).toBe(true);
    await killAndCheck(s);
  }, 90_000);

  it('an embedded conformance run: the vitest process running the suites goes, and the directories of the embedded servers', async () => {
    await killRunMidway((report) => start([join(ROOT, 'scripts', 'bin.mjs'), 'run', ...watchRun(report)]));
  }, 120_000);

  it('npm run server -- --etcd: the server npm started (--exit-with-parent), its etcd and the etcd data directory go', async () => {
    const data = mkdtempSync(join(tmpdir(), 'lifeline-data-'));
    try {
      const s = start(
        ['run', 'server', '--', '--etcd', '--insecure-http', '--port', '0', '--data-dir', data],
        'npm',
      );
      await until(() => /ready in \d+ ms/.test(s.out()), 'the server is ready', s);
      expect(running(s, /(^|\/)etcd /)(), 'its etcd runs').toBe(true);
      await killAndCheck(s);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }, 90_000);

  it('npm run conformance: the run npm started (--exit-with-parent) and its vitest process go', async () => {
    await killRunMidway((report) => start(['run', 'conformance', '--', ...watchRun(report)], 'npm'));
  }, 120_000);

  it('a process in the middle of a health case: the server process it started and its data directory go', async () => {
    const s = start(['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'start-server-process.ts')]);
    await until(() => /^ready /m.test(s.out()), 'the server process answers', s);
    expect(running(s, /serve /)(), 'the server process runs').toBe(true);
    await killAndCheck(s);
  }, 90_000);
});
