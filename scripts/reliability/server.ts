// The reference server under test as real child processes, on either storage backend:
//   wal   the embedded write-ahead log in a temporary data directory (fsync on, as by default)
//   etcd  a real etcd child process (Debian's etcd-server) and one or more servers on it
// Used by the reliability scripts (fuzz, crash, soak) and their tests. Each server listens on
// a fixed free loopback port, so a restarted server is found where it was.

import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../harness/src/free-port.ts';
import { type OwnedProcess, startOwned } from '../../lifeline/owned.ts';
import { type EtcdProcess, startEtcd } from '../../reference/src/etcd-process.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export type BackendKind = 'wal' | 'etcd';
export const BACKENDS: BackendKind[] = ['wal', 'etcd'];

export interface ServerUnderTest {
  url: string;
  token: string;
  pid(): number | undefined;
  /** SIGKILL, then waits for the exit. */
  kill9(): Promise<void>;
  /** Starts it again (same port, data directory, flags); resolves when it is ready. */
  restart(): Promise<void>;
  /** SIGTERM (graceful), then waits for the exit. */
  stop(): Promise<void>;
  /** What the server wrote (standard output and error, the last 64 KiB). */
  stderr(): string;
  /** Resident memory of the process in bytes (from /proc), or undefined. */
  rss(): number | undefined;
}

export interface Backend {
  kind: BackendKind;
  servers: ServerUnderTest[];
  /** The etcd process of an etcd backend. */
  etcd?: EtcdProcess;
  /** Stops the servers, etcd, and removes the temporary directories. */
  stop(): Promise<void>;
}

export interface BackendOptions {
  /** How many reference servers (the write-ahead log allows one; default 1). */
  servers?: number;
  /** More `serve` flags for every server. */
  flags?: string[];
  token?: string;
}

/** Starts a backend: its etcd when it has one, then its servers. */
export async function startBackend(kind: BackendKind, opts: BackendOptions = {}): Promise<Backend> {
  const count = opts.servers ?? 1;
  if (kind === 'wal' && count !== 1) throw new Error('the write-ahead log backend runs one server');
  const token = opts.token ?? `reliability-${process.pid}-${Date.now()}`;
  const etcd = kind === 'etcd' ? await startEtcd() : undefined;
  const dirs: string[] = [];
  const servers: ServerUnderTest[] = [];
  try {
    // servers of one API share the key that signs service-account tokens (a token one issues,
    // the others accept), as replicas of any such API server must
    const keys = mkdtempSync(join(tmpdir(), 'orch-rel-keys-'));
    dirs.push(keys);
    const keyFile = join(keys, 'service-account.key');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const shared = ['--service-account-signing-key-file', keyFile, '--service-account-key-file', keyFile];
    for (let i = 0; i < count; i++) {
      const dir = mkdtempSync(join(tmpdir(), `orch-rel-${kind}-`));
      dirs.push(dir);
      const store = etcd ? ['--etcd-servers', etcd.url] : [];
      servers.push(await startServer(dir, token, [...store, ...shared, ...(opts.flags ?? [])]));
    }
  } catch (e) {
    for (const s of servers) await s.kill9();
    await etcd?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    throw e;
  }
  return {
    kind,
    servers,
    etcd,
    stop: async () => {
      for (const s of servers) await s.stop();
      await etcd?.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** One `serve` child on a data directory; stays on its port across restarts. */
export async function startServer(dataDir: string, token: string, flags: string[]): Promise<ServerUnderTest> {
  const port = await freePort('127.0.0.1');
  let child: OwnedProcess | undefined;
  const launch = async () => {
    // ends with this process however it ends, SIGKILL included (lifeline/owned.ts)
    const c = startOwned(
      process.execPath,
      [
        join(ROOT, 'scripts/bin.mjs'),
        'serve',
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        '--insecure-http',
        '--data-dir',
        dataDir,
        '--token',
        token,
        ...flags,
      ],
      { cwd: ROOT },
    );
    child = c;
    const deadline = Date.now() + 60_000;
    while (!/ready in \d+ ms/.test(c.output())) {
      if (!c.running()) {
        const e = await c.exited;
        throw new Error(`serve exited (${e.code ?? e.signal}) before it was ready:\n${c.output()}`);
      }
      if (Date.now() > deadline) {
        await c.stop('SIGKILL');
        throw new Error(`serve was not ready within 60 s:\n${c.output()}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const end = async (sig: NodeJS.Signals) => {
    if (child?.running()) await child.stop(sig, 30_000);
  };
  await launch();
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    pid: () => child?.pid,
    kill9: () => end('SIGKILL'),
    restart: async () => {
      await end('SIGKILL');
      await launch();
    },
    stop: () => end('SIGTERM'),
    stderr: () => child?.output() ?? '',
    rss: () => rssOf(child?.pid),
  };
}

/** Resident set size of a process in bytes, from /proc/<pid>/status (Linux). */
export function rssOf(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(s)?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
