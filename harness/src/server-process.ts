// A server process the harness starts, signals and breaks itself, for the cases that watch a
// server through its own life (doc3 "Health": a failing store, a graceful shutdown observed
// through /readyz), from the command the run declares (server-command.ts). Its certificate, if
// it serves HTTPS, is not checked: the process is the harness's own.
import type { ChildProcess } from 'node:child_process';
import { Agent, request } from 'undici';
import { ownedTempDir, removeOwnedDir, startOwned } from '../../lifeline/owned.ts';
import { freePort } from './free-port.ts';
import type { ServerCommand } from './server-command.ts';

export interface ServerProcess {
  url: string;
  /** The directory the server keeps its state in ({dataDir}). */
  dataDir: string;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** What the process wrote to standard output and error so far. */
  output(): string;
  /** GET without credentials; never throws (a refused connection is status 0 with the error). */
  get(path: string, timeoutMs?: number): Promise<{ status: number; text: string }>;
  /** Kills the process (if running) and removes its data directory. */
  stop(): Promise<void>;
}

/** Starts the declared server and waits until /livez answers 200 (at most `startMs`). */
export async function startServerProcess(
  c: ServerCommand,
  o: { shutdownDelaySeconds?: number; startMs?: number } = {},
): Promise<ServerProcess> {
  const port = await freePort('127.0.0.1');
  // the process and its directory end with this one, however it ends (lifeline/owned.ts)
  const dataDir = ownedTempDir('orch-server-process-');
  const cmd = c.command
    .replaceAll('{port}', String(port))
    .replaceAll('{dataDir}', dataDir)
    .replaceAll('{shutdownDelay}', String(o.shutdownDelaySeconds ?? 0));
  const owned = startOwned('/bin/sh', ['-c', cmd]);
  const child = owned.child;
  const out = () => owned.output();
  const exited = owned.exited.then((e) => e.code);
  const url = `${c.scheme}://127.0.0.1:${port}`;
  const agent = new Agent({ connect: { rejectUnauthorized: false }, pipelining: 0 });
  const get = async (path: string, timeoutMs = 5000) => {
    try {
      const r = await request(`${url}${path}`, { dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
      return { status: r.statusCode, text: await r.body.text() };
    } catch (e) {
      return { status: 0, text: (e as Error).message };
    }
  };
  const stop = async () => {
    await owned.stop('SIGKILL');
    await agent.close().catch(() => undefined);
    removeOwnedDir(dataDir);
  };
  const deadline = Date.now() + (o.startMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(
        `the server command exited (${child.exitCode}) before it served /livez: ${cmd}\n${out().slice(-2000)}`,
      );
    }
    if ((await get('/livez', 1000)).status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `the server command did not serve /livez with 200 within ${o.startMs ?? 30_000} ms: ${cmd}\n${out().slice(-2000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, dataDir, child, exited, output: out, get, stop };
}
