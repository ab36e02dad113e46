// Servers under test as child processes (scripts/bench/server.ts), ended with this process however
// it ends; the temporary directories the benchmarks use.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type OwnedProcess, startOwned } from '../../lifeline/owned.ts';
import type { EtcdStats } from './etcd.ts';
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The benchmark's server, started from a bundle of its sources as `orch-conformance serve` is (scripts/bundle.mjs). */
const SERVER_ENTRY = 'scripts/bench/server.ts';
const BUNDLE_RUNNER = join(ROOT, 'scripts/bundle.mjs');

const tempDirs: string[] = [];
export function tempDir(prefix = 'orch-bench-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(d);
  return d;
}
export function cleanupTempDirs(): void {
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface ServerProc {
  /** The reference, the bare Node server, the floor of a durable create (floor.ts), or a real kube-apiserver (kube.ts). */
  mode: 'orch' | 'bare' | 'floor' | 'kube';
  url: string;
  token: string;
  proc: ChildProcess;
  rpc<T = any>(msg: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
  /** Several servers of one API taken as one (see `serverGroup`): load spreads over them. */
  members?: ServerProc[];
  /** The etcd the server keeps its objects in: each measured load reports what it did meanwhile. */
  etcd?: { stats(): Promise<EtcdStats> };
}

/**
 * Two (or more) servers as one side of a measurement: set-up requests go to the first, the
 * load (autocannon, round-robin over its URLs) to all of them, CPU figures sum over them.
 * They must accept the same token (same adminToken option).
 */
export function serverGroup(members: ServerProc[]): ServerProc {
  const first = members[0]!;
  return {
    ...first,
    members,
    stop: async () => {
      await Promise.all(members.map((m) => m.stop()));
    },
  };
}

/** The URL (or URLs, for a group) the load goes to. */
export const loadUrl = (s: ServerProc): string | string[] =>
  s.members ? s.members.map((m) => m.url) : s.url;

/** Waits for the first stdout line matching `re` (or any line when absent). */
export function firstLine(
  proc: ChildProcess,
  re: RegExp,
  timeoutMs: number,
  what: string,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const t = setTimeout(
      () => reject(new Error(`${what} did not start within ${timeoutMs} ms: ${err}`)),
      timeoutMs,
    );
    proc.stderr?.on('data', (c) => (err += c));
    proc.stdout!.on('data', (c) => {
      out += c;
      const m = re.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`${what} exited (${code}) before it was ready: ${err}`));
    });
  });
}

/** SIGTERM to the process (its group), SIGKILL after 10 s; resolves once it has exited. */
export async function stopOwned(p: OwnedProcess): Promise<void> {
  await p.stop('SIGTERM', 10_000);
}

export async function spawnServer(
  mode: 'orch' | 'bare' | 'floor',
  options: Record<string, unknown> = {},
  execArgv: string[] = [],
): Promise<ServerProc> {
  // BENCH_PROF=<dir>: CPU profiles of the servers under test, written when they stop
  if (process.env.BENCH_PROF)
    execArgv = [...execArgv, '--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`];
  // the API server alone, as kube-apiserver is measured: no controllers writing meanwhile
  if (mode === 'orch') options = { controllers: [], ...options };
  // ends with this process however it ends, SIGKILL included (lifeline/owned.ts)
  const owned = startOwned(
    process.execPath,
    [...execArgv, BUNDLE_RUNNER, 'run', SERVER_ENTRY, JSON.stringify({ mode, options })],
    { cwd: ROOT, ipc: true },
  );
  const proc = owned.child;
  const m = await firstLine(proc, /^(\{.*\})\n/m, 30_000, `${mode} server`);
  const { url, token } = JSON.parse(m[1]!) as { url: string; token: string };
  let seq = 0;
  const pending = new Map<number, (v: any) => void>();
  proc.on('message', (msg: { id?: number }) => {
    const r = msg.id !== undefined ? pending.get(msg.id) : undefined;
    if (r) {
      pending.delete(msg.id!);
      r(msg);
    }
  });
  return {
    mode,
    url,
    token,
    proc,
    rpc: (msg) =>
      new Promise((resolve) => {
        const id = ++seq;
        pending.set(id, resolve);
        proc.send({ ...msg, id });
      }),
    stop: () => stopOwned(owned),
  };
}
