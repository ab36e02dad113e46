// `serve`: builds the server from the flags, listens and writes the kubeconfig.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULTS } from '../config.ts';
import { ConfigurationError } from '../errors/config-error.ts';
import { type EtcdProcess, startEtcd } from '../etcd-process.ts';
import { build, type OrchServer } from '../index.ts';
import { writeKubeconfig } from '../kubeconfig.ts';
import { TOKEN_FILE } from '../options/admin.ts';
import { UsageError } from '../options/flags.ts';
import type { ServeConfig } from '../options/index.ts';
import { isLoopback, isWildcard } from '../options/serving.ts';
import { newToken } from '../util/token.ts';

/** The admin token: `--token`, else the one kept in the data directory, else a new one (kept). */
export function adminToken(dataDir: string, explicit?: string): string {
  if (explicit) return explicit;
  const file = join(dataDir, TOKEN_FILE);
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept) return kept;
  }
  const token = newToken();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/** The URL clients should use: a wildcard bind is reached over loopback. */
function clientUrl(server: OrchServer, port: number): string {
  const o = server.options;
  let host = o.host;
  if (isWildcard(host)) host = host.includes(':') ? '::1' : '127.0.0.1';
  const h = host.includes(':') ? `[${host}]` : host;
  return `${o.tls ? 'https' : 'http'}://${h}:${port}`;
}

export interface Running {
  server: OrchServer;
  url: string;
  token: string;
  kubeconfigPath: string;
  /** The private etcd of `--etcd`. */
  etcd?: EtcdProcess;
  /** Graceful: see OrchServer.shutdown. */
  shutdown(): Promise<void>;
  close(): Promise<void>;
}

/** The private etcd of `--etcd`, when asked for. */
async function privateEtcd(cfg: ServeConfig): Promise<EtcdProcess | undefined> {
  if (!cfg.startEtcd) return undefined;
  try {
    return await startEtcd();
  } catch (e) {
    throw new UsageError(`--etcd: ${(e as Error).message}`);
  }
}

/** Builds the server; a configuration it refuses is a usage error, and the private etcd stops. */
async function buildOrStop(
  options: ServeConfig['options'],
  etcd: EtcdProcess | undefined,
): Promise<OrchServer> {
  try {
    return await build(options);
  } catch (e) {
    await etcd?.stop();
    // an unusable authentication file is the operator's to fix, as a bad flag is
    if (e instanceof ConfigurationError) throw new UsageError(e.message);
    throw e;
  }
}

/** Listens; an address in use, not available or not allowed is a usage error. */
async function listenOrClose(server: OrchServer, host: string, port: number | undefined): Promise<number> {
  try {
    return (await server.listen()).port;
  } catch (e) {
    await server.close().catch(() => {});
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new UsageError(`${host}:${port} is already in use (try --port 0 for a free port)`);
    if (err.code === 'EADDRNOTAVAIL') throw new UsageError(`cannot listen on ${host}: address not available`);
    if (err.code === 'EACCES') throw new UsageError(`no permission to listen on ${host}:${port}`);
    throw e;
  }
}

/** Builds, listens and writes the kubeconfig. */
export async function serve(cfg: ServeConfig): Promise<Running> {
  const options = { ...cfg.options };
  const dataDir = options.dataDir ?? DEFAULTS.dataDir;
  const token = adminToken(dataDir, cfg.token);
  options.adminToken = token;
  const host = options.host ?? DEFAULTS.host;
  if (options.tls !== false && !options.tlsCert && !isLoopback(host) && !isWildcard(host)) {
    // the kept certificate names only loopback addresses: issue one that names this host too
    const { generateCertificate } = await import('../http/tls.ts');
    const b = await generateCertificate(['127.0.0.1', '::1', 'localhost', host]);
    Object.assign(options, { tlsKey: b.key, tlsCert: b.cert, tlsCa: b.ca });
  }
  const etcd = await privateEtcd(cfg);
  if (etcd) options.etcdServers = [etcd.url];
  const server = await buildOrStop(options, etcd);
  const port = await listenOrClose(server, host, options.port);
  const url = clientUrl(server, port);
  writeKubeconfig(cfg.kubeconfigPath, { server: url, caPem: server.caPem, token });
  let closing: Promise<void> | undefined;
  return {
    server,
    url,
    token,
    kubeconfigPath: cfg.kubeconfigPath,
    etcd,
    shutdown: () => (closing ??= server.shutdown().finally(() => etcd?.stop())),
    close: () => (closing ??= server.close().finally(() => etcd?.stop())),
  };
}
