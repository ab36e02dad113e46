// How the harness starts a server process of its own (harness/src/server-process.ts): a shell
// command template the run declares (ORCH_SERVER_COMMAND) with the placeholders {port},
// {dataDir} and {shutdownDelay} (seconds); the embedded run declares the reference server's.
// The server must serve on 127.0.0.1:{port} (plain HTTP, or HTTPS with ORCH_SERVER_SCHEME=https)
// and answer /livez, /readyz and /version without credentials, as Kubernetes'
// system:public-info-viewer role allows.
import { join } from 'node:path';

export const SERVER_COMMAND_ENV = 'ORCH_SERVER_COMMAND';
export const SERVER_SCHEME_ENV = 'ORCH_SERVER_SCHEME';

export interface ServerCommand {
  /** The shell command template. */
  command: string;
  scheme: 'http' | 'https';
}

/** The declared command, or why there is none. */
export function serverCommandFrom(env: NodeJS.ProcessEnv): ServerCommand | undefined {
  const command = env[SERVER_COMMAND_ENV];
  if (!command) return undefined;
  const scheme = env[SERVER_SCHEME_ENV] || 'http';
  if (scheme !== 'http' && scheme !== 'https')
    throw new Error(`${SERVER_SCHEME_ENV}="${scheme}" is not http or https`);
  return { command, scheme };
}

export const HOW_TO_DECLARE = `set ${SERVER_COMMAND_ENV} to a shell command that starts your server in the foreground, with the placeholders {port}, {dataDir} and {shutdownDelay} (seconds of --shutdown-delay-duration), serving on 127.0.0.1:{port} (${SERVER_SCHEME_ENV}=https for HTTPS) with /livez, /readyz and /version readable without credentials; the embedded run (no --endpoint) declares the reference server's`;

/** The reference server's command (how the embedded run declares it). */
export function referenceServerCommand(root: string, dialect: 'orch' | 'kubernetes' = 'orch'): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const words = dialect === 'orch' ? '' : ` --dialect ${dialect}`;
  return `exec ${q(process.execPath)} ${q(join(root, 'scripts', 'bin.mjs'))} serve${words} --insecure-http --port {port} --data-dir {dataDir} --shutdown-delay-duration {shutdownDelay}s`;
}
