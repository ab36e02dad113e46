// Command line of the reference server: `serve` runs it standalone (HTTPS with a generated
// CA by default), writes a kubeconfig for it and prints how to reach it.
//
//   tsx reference/src/cli.ts serve [flags]      (npm run server -- [flags])
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { modesProblem } from './authorization/configure.ts';
import { DEFAULTS, type FeatureGates, parseFeatureGates, type ServerOptions } from './config.ts';
import { build, type OrchServer, SERVER_VERSION } from './index.ts';
import { CONTEXT_NAME, writeKubeconfig } from './kubeconfig.ts';

export const DEFAULT_PORT = 6443;
export const TOKEN_FILE = 'admin-token';

export const SERVE_USAGE = `Usage: orch-conformance serve [flags]
       npm run server -- [flags]

Runs the orch reference server standalone, writes a kubeconfig for it and prints its URL,
the admin token and the kubeconfig path.

Flags:
  --port N                   port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host ADDR                address to listen on (default ${DEFAULTS.host})
  --data-dir DIR             durable store, certificates, admin token (default ${DEFAULTS.dataDir})
  --in-memory                keep objects in memory only (nothing survives a restart)
  --no-fsync                 do not fdatasync the write-ahead log before answering writes
  --insecure-http            serve plain HTTP instead of HTTPS (loopback hosts only)
  --feature-gates LIST       e.g. WatchList=true,APIResponseCompression=false
                             (known: ${Object.keys(DEFAULTS.featureGates).join(', ')})
  --runtime-config LIST      e.g. apps/v1=false (switch group versions off or on)
  --history-seconds N        change history kept for watches and exact reads (default ${DEFAULTS.historySeconds})
  --continue-ttl-seconds N   lifetime of list continue tokens (default ${DEFAULTS.continueTtlSeconds})
  --bookmark-interval-seconds N
                             a BOOKMARK to each watch with allowWatchBookmarks=true every N s
                             (default ${DEFAULTS.bookmarkIntervalMs / 1000})
  --token TOKEN              admin bearer token (default: generated once, kept in <data-dir>/${TOKEN_FILE})
  --kubeconfig PATH          where to write the kubeconfig (default <data-dir>/kubeconfig)
  --audit-log-path PATH      write one audit event per request to PATH (JSON lines, appended)
  --authorization-mode LIST  authorizers asked in order after system:masters: AlwaysAllow,
                             AlwaysDeny, RBAC, Webhook (default ${DEFAULTS.authorizationModes.join(',')})
  --authorization-webhook-config-file PATH
                             kubeconfig-format file naming the Webhook mode's webhook
  --authorization-webhook-version V
                             SubjectAccessReview version sent: v1 or v1beta1 (default v1beta1)
  --authorization-webhook-cache-authorized-ttl D
                             how long allowed answers are cached, e.g. 5m, 30s (default 5m)
  --authorization-webhook-cache-unauthorized-ttl D
                             how long other answers are cached (default 30s)
  --anonymous-auth BOOL      true or false: requests without credentials are system:anonymous
                             (default true; always off when the modes include AlwaysAllow)
  -h, --help                 show this help
`;

export const USAGE = `Usage: orch-conformance <command> [flags]

Commands:
  serve    run the reference server (see: serve --help)
  run      run the conformance suites against a server
`;

/** Everything `serve` needs, resolved from the flags. */
export interface ServeConfig {
  options: Partial<ServerOptions>;
  /** Absolute path of the kubeconfig to write. */
  kubeconfigPath: string;
  /** An explicit `--token` (otherwise the kept or a generated one). */
  token?: string;
}

export class UsageError extends Error {}

const SERVE_FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  'in-memory': { type: 'boolean' },
  'no-fsync': { type: 'boolean' },
  'insecure-http': { type: 'boolean' },
  'feature-gates': { type: 'string', multiple: true },
  'runtime-config': { type: 'string', multiple: true },
  'history-seconds': { type: 'string' },
  'continue-ttl-seconds': { type: 'string' },
  'bookmark-interval-seconds': { type: 'string' },
  token: { type: 'string' },
  kubeconfig: { type: 'string' },
  'audit-log-path': { type: 'string' },
  'authorization-mode': { type: 'string' },
  'authorization-webhook-config-file': { type: 'string' },
  'authorization-webhook-version': { type: 'string' },
  'authorization-webhook-cache-authorized-ttl': { type: 'string' },
  'authorization-webhook-cache-unauthorized-ttl': { type: 'string' },
  'anonymous-auth': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function intFlag(name: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim())) throw new UsageError(`--${name}: "${v}" is not a whole number`);
  const n = Number(v);
  if (n < min || n > max) throw new UsageError(`--${name}: ${n} is out of range [${min}, ${max}]`);
  return n;
}

const DURATION_UNITS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, 'µs': 0.001, ns: 0.000001 };

/** A Go duration (`5m`, `30s`, `1h30m`, `500ms`, `0`) in milliseconds. */
function durationFlag(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = v.trim();
  if (t === '0') return 0;
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== t)
    throw new UsageError(`--${name}: "${v}" is not a duration (e.g. 30s, 5m, 1h30m)`);
  return parts.reduce((ms, p) => ms + Number(p[1]) * DURATION_UNITS[p[2]!]!, 0);
}

/** Loopback addresses: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

function isWildcard(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === '0.0.0.0' || h === '::' || h === '';
}

function parseRuntimeConfig(parts: string[]): string {
  const out: string[] = [];
  for (const part of parts
    .flatMap((p) => p.split(','))
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z0-9.-]+\/[a-z0-9]+|api\/v1)(?:=(true|false))?$/i.exec(part);
    if (!m)
      throw new UsageError(`--runtime-config: invalid entry "${part}": want <group>/<version>[=true|false]`);
    out.push(part);
  }
  return out.join(',');
}

/** Parses the flags of `serve` (without the word `serve`); undefined when help was asked for. */
export function parseServeArgs(argv: string[], cwd = process.cwd()): ServeConfig | undefined {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: SERVE_FLAGS, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return undefined;
  const str = (k: string) => values[k] as string | undefined;
  const options: Partial<ServerOptions> = {};
  options.port = intFlag('port', str('port'), 0, 65535) ?? DEFAULT_PORT;
  const host = str('host') ?? DEFAULTS.host;
  if (!host.trim()) throw new UsageError('--host: must not be empty');
  options.host = host.replace(/^\[|\]$/g, '');
  options.dataDir = resolve(cwd, str('data-dir') ?? DEFAULTS.dataDir);
  options.inMemory = values['in-memory'] === true;
  options.fsync = values['no-fsync'] !== true;
  if (values['insecure-http']) {
    if (!isLoopback(options.host))
      throw new UsageError(
        `--insecure-http is only allowed on a loopback host (127.0.0.1, ::1, localhost), not "${host}"`,
      );
    options.tls = false;
  } else options.tls = true;
  const gates = (values['feature-gates'] as string[] | undefined) ?? [];
  if (gates.length) {
    let parsed: Partial<FeatureGates>;
    try {
      parsed = parseFeatureGates(gates.join(','));
    } catch (e) {
      throw new UsageError(`--feature-gates: ${(e as Error).message}`);
    }
    const known = Object.keys(DEFAULTS.featureGates);
    for (const k of Object.keys(parsed))
      if (!known.includes(k))
        throw new UsageError(`--feature-gates: unrecognized feature gate: ${k} (known: ${known.join(', ')})`);
    options.featureGates = { ...DEFAULTS.featureGates, ...parsed } as FeatureGates;
  }
  const rc = (values['runtime-config'] as string[] | undefined) ?? [];
  if (rc.length) options.runtimeConfig = parseRuntimeConfig(rc);
  const hs = intFlag('history-seconds', str('history-seconds'), 1, 7 * 24 * 3600);
  if (hs !== undefined) options.historySeconds = hs;
  const ct = intFlag('continue-ttl-seconds', str('continue-ttl-seconds'), 1, 7 * 24 * 3600);
  if (ct !== undefined) options.continueTtlSeconds = ct;
  const bi = intFlag('bookmark-interval-seconds', str('bookmark-interval-seconds'), 1, 24 * 3600);
  if (bi !== undefined) options.bookmarkIntervalMs = bi * 1000;
  const token = str('token');
  if (token !== undefined && !/^[\x21-\x7e]+$/.test(token))
    throw new UsageError('--token: must be non-empty printable ASCII without spaces');
  const audit = str('audit-log-path');
  if (audit !== undefined) {
    if (!audit.trim()) throw new UsageError('--audit-log-path: must not be empty');
    options.auditLogPath = resolve(cwd, audit);
  }
  const modes = str('authorization-mode');
  if (modes !== undefined) {
    const list = modes.split(',').map((m) => m.trim());
    const problem = modesProblem(list.filter((m) => m !== '').length === list.length ? list : []);
    if (problem) throw new UsageError(`--authorization-mode: ${problem}`);
    options.authorizationModes = list;
  }
  const webhookFile = str('authorization-webhook-config-file');
  if (webhookFile !== undefined) {
    if (!webhookFile.trim()) throw new UsageError('--authorization-webhook-config-file: must not be empty');
    if (!existsSync(resolve(cwd, webhookFile)))
      throw new UsageError(`--authorization-webhook-config-file: ${webhookFile} does not exist`);
    options.authorizationWebhookConfigFile = resolve(cwd, webhookFile);
  }
  if ((options.authorizationModes ?? DEFAULTS.authorizationModes).includes('Webhook') && !options.authorizationWebhookConfigFile)
    throw new UsageError('--authorization-mode: the Webhook mode needs --authorization-webhook-config-file');
  const webhookVersion = str('authorization-webhook-version');
  if (webhookVersion !== undefined) {
    if (webhookVersion !== 'v1' && webhookVersion !== 'v1beta1')
      throw new UsageError(`--authorization-webhook-version: "${webhookVersion}" is not v1 or v1beta1`);
    options.authorizationWebhookVersion = webhookVersion;
  }
  const okTtl = durationFlag('authorization-webhook-cache-authorized-ttl', str('authorization-webhook-cache-authorized-ttl'));
  if (okTtl !== undefined) options.authorizationWebhookCacheAuthorizedTtlMs = okTtl;
  const noTtl = durationFlag('authorization-webhook-cache-unauthorized-ttl', str('authorization-webhook-cache-unauthorized-ttl'));
  if (noTtl !== undefined) options.authorizationWebhookCacheUnauthorizedTtlMs = noTtl;
  const anonymous = str('anonymous-auth');
  if (anonymous !== undefined) {
    if (anonymous !== 'true' && anonymous !== 'false')
      throw new UsageError(`--anonymous-auth: "${anonymous}" is not true or false`);
    options.anonymous = anonymous === 'true';
  }
  const kubeconfigPath = resolve(cwd, str('kubeconfig') ?? join(options.dataDir, 'kubeconfig'));
  return { options, kubeconfigPath, token };
}

/** The admin token: `--token`, else the one kept in the data directory, else a new one (kept). */
export function adminToken(dataDir: string, explicit?: string): string {
  if (explicit) return explicit;
  const file = join(dataDir, TOKEN_FILE);
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept) return kept;
  }
  const token = randomBytes(24).toString('base64url');
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
  close(): Promise<void>;
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
    const { generateCertificate } = await import('./http/tls.ts');
    const b = await generateCertificate(['127.0.0.1', '::1', 'localhost', host]);
    Object.assign(options, { tlsKey: b.key, tlsCert: b.cert, tlsCa: b.ca });
  }
  const server = await build(options);
  let port: number;
  try {
    ({ port } = await server.listen());
  } catch (e) {
    await server.close().catch(() => {});
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new UsageError(`${host}:${options.port} is already in use (try --port 0 for a free port)`);
    if (err.code === 'EADDRNOTAVAIL') throw new UsageError(`cannot listen on ${host}: address not available`);
    if (err.code === 'EACCES') throw new UsageError(`no permission to listen on ${host}:${options.port}`);
    throw e;
  }
  const url = clientUrl(server, port);
  writeKubeconfig(cfg.kubeconfigPath, { server: url, caPem: server.caPem, token });
  let closing: Promise<void> | undefined;
  return {
    server,
    url,
    token,
    kubeconfigPath: cfg.kubeconfigPath,
    close: () => (closing ??= server.close()),
  };
}

function banner(r: Running, readyMs: number): string {
  const o = r.server.options;
  const store = o.inMemory
    ? 'in memory (nothing survives a restart)'
    : `${join(o.dataDir, 'store')}${o.fsync ? '' : ' (no fsync)'}`;
  const gates = Object.entries(o.featureGates)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return [
    `orch reference server ${SERVER_VERSION.gitVersion}`,
    `  URL:        ${r.url}${o.tls ? '' : ' (plain HTTP)'}`,
    `  token:      ${r.token}`,
    `  kubeconfig: ${r.kubeconfigPath} (context ${CONTEXT_NAME})`,
    `  store:      ${store}`,
    `  gates:      ${gates}`,
    `try: kubectl --kubeconfig ${r.kubeconfigPath} get namespaces`,
    `ready in ${Math.round(readyMs)} ms`,
    '',
  ].join('\n');
}

/** Runs `serve` until SIGINT or SIGTERM; the store is flushed on the way out. */
async function serveMain(argv: string[]): Promise<number | undefined> {
  const cfg = parseServeArgs(argv);
  if (!cfg) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  const running = await serve(cfg);
  process.stdout.write(banner(running, performance.now()));
  let signals = 0;
  const stop = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`${sig} again: exiting without waiting\n`);
      process.exit(130);
    }
    process.stderr.write(`${sig}: shutting down\n`);
    running.close().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`error while closing: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return undefined;
}

/**
 * The command line. Resolves with an exit code for commands that end by themselves, or
 * undefined while the server runs (a signal ends it).
 */
export async function main(argv: string[]): Promise<number | undefined> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'serve':
        return await serveMain(rest);
      case undefined:
      case 'help':
      case '-h':
      case '--help':
        process.stdout.write(USAGE);
        return cmd === undefined ? 2 : 0;
      default:
        process.stderr.write(`unknown command "${cmd}"\n\n${USAGE}`);
        return 2;
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`error: ${(e as Error)?.stack ?? String(e)}\n`);
    return 1;
  }
}

const invokedDirectly =
  process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const code = await main(process.argv.slice(2));
  if (code !== undefined) process.exit(code);
}
