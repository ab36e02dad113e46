// Child processes that end with whoever started them. Each child runs in a process group of
// its own, named to the starter's reaper (reaper.mjs), a small process that outlives the
// starter only to end the groups and remove the directories the starter named: so a child
// ends when its starter ends, however it ends (an exception, SIGTERM, SIGKILL, a test worker
// torn down), and its temporary directories go with it. Node has no parent-death signal;
// a pipe whose closing the reaper sees is the portable form of one.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';

const REAPER = new URL('./reaper.mjs', import.meta.url).pathname;

let reaper: { stdin: Writable; pid: number } | undefined;

/** Tells the reaper one thing (started on first use). */
function tell(message: Record<string, unknown>): void {
  if (!reaper) {
    const r = spawn(process.execPath, [REAPER], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    r.unref();
    // the pipe must not keep the starter alive: it closes when the starter's process ends
    (r.stdin as unknown as { unref?: () => void }).unref?.();
    r.stdin!.on('error', () => undefined);
    reaper = { stdin: r.stdin!, pid: r.pid! };
  }
  reaper.stdin.write(`${JSON.stringify(message)}\n`);
}

/** A new temporary directory that is removed when the starter ends, if not before. */
export function ownedTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tell({ dir });
  return dir;
}

/** Removes a directory of ownedTempDir now. */
export function removeOwnedDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  tell({ kept: dir });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface OwnedProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** Whether it is still running. */
  running(): boolean;
  /** The last 64 KiB of what it wrote to standard output and error. */
  output(): string;
  /**
   * Sends `signal` (default SIGTERM) to its process group, SIGKILL after `graceMs`
   * (default 5 s), and resolves when it has exited.
   */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<Exit>;
}

export interface OwnedOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Each line it writes (standard output and error). */
  onLine?: (line: string) => void;
  /** Its standard output and error are this process's own (then `output()` and `onLine` see nothing). */
  inheritOutput?: boolean;
  /** A channel for messages (`child.send`, 'message' events), for a Node child. */
  ipc?: boolean;
}

const KEEP = 64 * 1024;

/** Starts `bin` with `args` as a child that ends with this process. */
export function startOwned(bin: string, args: string[], o: OwnedOptions = {}): OwnedProcess {
  const child = spawn(bin, args, {
    stdio: [
      'ignore',
      o.inheritOutput ? 'inherit' : 'pipe',
      o.inheritOutput ? 'inherit' : 'pipe',
      ...(o.ipc ? (['ipc'] as const) : []),
    ],
    env: o.env ?? process.env,
    cwd: o.cwd,
    // a group of its own: the reaper ends it with whatever it started
    detached: true,
  });
  if (child.pid === undefined) {
    // spawn failed (no such file ...): its 'error' event follows; nothing to own
    child.once('error', () => undefined);
    throw new Error(`cannot start ${bin}: not found or not executable`);
  }
  const pid = child.pid;
  tell({ pid });
  let out = '';
  let partial = '';
  const keep = (b: Buffer) => {
    const s = b.toString();
    out = (out + s).slice(-KEEP);
    if (!o.onLine) return;
    partial += s;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line) o.onLine(line);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      tell({ gone: pid });
      resolve({ code, signal });
    }),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<Exit> => {
    if (running()) {
      const kill = (s: NodeJS.Signals) => {
        try {
          process.kill(-pid, s);
        } catch {
          // the group is gone already
        }
      };
      kill(signal);
      const t = setTimeout(() => kill('SIGKILL'), graceMs);
      const e = await exited;
      clearTimeout(t);
      kill('SIGKILL'); // what the leader left behind in its group
      return e;
    }
    return exited;
  };
  return { child, pid, exited, running, output: () => out, stop };
}
