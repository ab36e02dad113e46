// Wiring: a real etcd server as a child process: Debian's `etcd-server` (the `etcd` binary), on free
// loopback ports, in a temporary data directory that is removed when it stops. Used by
// `serve --etcd`, the tests, the reliability scripts and the benchmarks. The process and its
// temporary directory end with their starter however it ends, SIGKILL included
// (lifeline/owned.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type OwnedProcess, ownedTempDir, removeOwnedDir, startOwned } from '../../lifeline/owned.ts';

export interface EtcdProcess {
  /** The client URL (`http://127.0.0.1:<port>`). */
  url: string;
  dataDir: string;
  pid(): number | undefined;
  /** Kills the process with SIGKILL (the data directory stays) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts the process again on the same ports and data directory; resolves when it answers. */
  restart(): Promise<void>;
  /** Stops the process and removes its data directory (unless it was given). */
  stop(): Promise<void>;
}

export interface EtcdProcessOptions {
  /** Data directory to use (kept at stop); default a new temporary one (removed at stop). */
  dataDir?: string;
  /** The binary; default `$ORCH_ETCD_BIN`, else `etcd` on PATH, else /usr/bin/etcd. */
  bin?: string;
  /** How long to wait for it to answer (default 30 s). */
  startTimeoutMs?: number;
  /** Its log lines (default: kept, printed when it fails to start). */
  log?: (line: string) => void;
  /** Serve clients over TLS with this certificate and key, requiring client certificates signed by `caFile`. */
  tls?: { certFile: string; keyFile: string; caFile: string };
  /**
   * No fsync of its log and database (`--unsafe-no-fsync`): for an etcd a run throws away,
   * where no write has to survive the machine (a kill of the process still loses nothing the
   * kernel has). Default off: `serve --etcd`, the crash tests and the benchmarks sync.
   */
  unsafeNoFsync?: boolean;
}

export const ETCD_MISSING =
  "etcd is not installed: install Debian's etcd-server (apt-get install etcd-server) or set ORCH_ETCD_BIN to an etcd 3.4+ binary";

/** The etcd binary to run, or undefined when there is none. */
export function etcdBinary(explicit?: string): string | undefined {
  const candidates = [explicit, process.env.ORCH_ETCD_BIN, ...pathCandidates(), '/usr/bin/etcd'];
  for (const c of candidates) if (c && existsSync(c)) return c;
  return undefined;
}

function pathCandidates(): string[] {
  return (process.env.PATH ?? '')
    .split(':')
    .filter(Boolean)
    .map((d) => join(d, 'etcd'));
}

/** The version line of an etcd binary (`3.4.23`), or undefined. */
export function etcdVersion(bin: string): string | undefined {
  try {
    const out = execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    return /etcd Version:\s*(\S+)/.exec(out)?.[1];
  } catch {
    return undefined;
  }
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** The command line of a single-member etcd serving clients at `url`. */
function etcdArgs(
  dataDir: string,
  url: string,
  peer: string,
  tls: EtcdProcessOptions['tls'],
  noFsync = false,
): string[] {
  return [
    ...(noFsync ? ['--unsafe-no-fsync'] : []),
    '--name',
    'orch',
    '--data-dir',
    dataDir,
    '--listen-client-urls',
    url,
    '--advertise-client-urls',
    url,
    '--listen-peer-urls',
    peer,
    '--initial-advertise-peer-urls',
    peer,
    '--initial-cluster',
    `orch=${peer}`,
    '--initial-cluster-state',
    'new',
    // the server's own compactor decides (--etcd-compaction-interval), as with Kubernetes
    '--auto-compaction-retention',
    '0',
    '--quota-backend-bytes',
    String(8 * 1024 * 1024 * 1024),
    // requests up to the server's 3 MiB body limit, with room for the object's metadata
    '--max-request-bytes',
    String(4 * 1024 * 1024),
    '--log-level',
    'warn',
    '--logger',
    'zap',
    ...(tls
      ? [
          '--cert-file',
          tls.certFile,
          '--key-file',
          tls.keyFile,
          '--trusted-ca-file',
          tls.caFile,
          '--client-cert-auth',
        ]
      : []),
  ];
}

/**
 * Starts the process (handed to `started` at once); resolves once it answers at `url`, throws
 * (with its output) when it exits or does not answer in time.
 */
async function launchEtcd(
  bin: string,
  args: string[],
  url: string,
  opts: EtcdProcessOptions,
  started: (c: OwnedProcess) => void,
): Promise<void> {
  const c = startOwned(bin, args, { onLine: opts.log });
  started(c);
  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  for (;;) {
    if (!c.running()) {
      const e = await c.exited;
      throw new Error(`etcd exited (${e.code ?? e.signal}) before answering:\n${c.output().slice(-20_000)}`);
    }
    if (await healthy(url, opts.tls)) return;
    if (Date.now() > deadline) {
      await c.stop('SIGKILL');
      throw new Error(
        `etcd did not answer at ${url} within ${opts.startTimeoutMs ?? 30_000} ms:\n${c.output().slice(-20_000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts etcd; resolves once it answers its health endpoint. */
export async function startEtcd(opts: EtcdProcessOptions = {}): Promise<EtcdProcess> {
  const bin = etcdBinary(opts.bin);
  if (!bin) throw new Error(ETCD_MISSING);
  const own = !opts.dataDir;
  const dataDir = opts.dataDir ?? ownedTempDir('orch-etcd-');
  const clientPort = await freeLoopbackPort();
  const peerPort = await freeLoopbackPort();
  const url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const args = etcdArgs(dataDir, url, `http://127.0.0.1:${peerPort}`, opts.tls, opts.unsafeNoFsync);
  let child: OwnedProcess | undefined;
  const launch = () =>
    launchEtcd(bin, args, url, opts, (c) => {
      child = c;
    });
  const exited = async (sig: NodeJS.Signals) => {
    if (child?.running()) await child.stop(sig, 10_000);
  };
  try {
    await launch();
  } catch (e) {
    if (own) removeOwnedDir(dataDir);
    throw e;
  }
  return {
    url,
    dataDir,
    pid: () => child?.pid,
    kill: () => exited('SIGKILL'),
    restart: async () => {
      await exited('SIGKILL');
      await launch();
    },
    stop: async () => {
      await exited('SIGTERM');
      if (own) removeOwnedDir(dataDir);
    },
  };
}

/** Whether etcd answers `{"health":"true"}` (over TLS: with the client certificate it requires). */
function healthy(url: string, tls?: EtcdProcessOptions['tls']): Promise<boolean> {
  return new Promise((resolve) => {
    const options = tls
      ? { ca: readFileSync(tls.caFile), cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }
      : {};
    const req = (tls ? httpsGet : httpGet)(`${url}/health`, { ...options, timeout: 1000 }, (res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString()));
      res.on('end', () => {
        try {
          resolve(res.statusCode === 200 && (JSON.parse(body) as { health?: string }).health === 'true');
        } catch {
          resolve(false);
        }
      });
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
  });
}
