// Time to ready: the command line to its banner, and build() + listen() in process.
import { join } from 'node:path';
import { request } from 'undici';
import { startOwned } from '../../lifeline/owned.ts';
import { agent } from './http.ts';
import { sleep } from './measure.ts';
import { firstLine, ROOT, stopOwned, tempDir } from './process.ts';

/** `orch-conformance`, whose `serve` starts from the bundle of the server's sources (scripts/bundle.mjs). */
const BIN = join(ROOT, 'scripts/bin.mjs');

export interface ReadyResult {
  what: string;
  runs: number[];
  median: number;
  max: number;
}

function summarize(what: string, runs: number[]): ReadyResult {
  const s = [...runs].sort((a, b) => a - b);
  // an even count's median is the mean of the two middle runs
  const mid = (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
  return { what, runs, median: mid, max: s[s.length - 1]! };
}

async function pollReady(url: string, deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    try {
      const r = await request(`${url}/readyz`, {
        dispatcher: agent,
        headersTimeout: 2000,
        bodyTimeout: 2000,
      });
      await r.body.dump();
      if (r.statusCode === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(2);
  }
  throw new Error(`${url}/readyz did not answer 200 in time`);
}

/**
 * The environment of the server's process: this one's without NODE_EXTRA_CA_CERTS, which Node
 * reads at its start, before any code of the server runs (some machines point it at the system's
 * whole bundle: about 90 ms on this one). `asIs` keeps it, for the row that shows what it costs.
 */
function serverEnv(asIs: boolean): NodeJS.ProcessEnv {
  if (asIs) return process.env;
  const { NODE_EXTRA_CA_CERTS: _, ...env } = process.env;
  return env;
}

/** What the starts are asked for: `flags` added (every authenticator's, say), the environment as is. */
export interface ReadyFlags {
  args: string[];
  what: string;
  envAsIs?: boolean;
}

/** Spawns the CLI (`serve`, with the flags added) and times spawn -> first 200 from /readyz. */
export async function benchReadyCli(
  runs: number,
  https = false,
  flags: ReadyFlags = { args: [], what: '' },
): Promise<ReadyResult> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dataDir = tempDir();
    const args = [BIN, 'serve', '--port', '0', '--data-dir', dataDir, ...flags.args];
    if (!https) args.push('--insecure-http');
    const t0 = performance.now();
    const owned = startOwned(process.execPath, args, { cwd: ROOT, env: serverEnv(!!flags.envAsIs) });
    try {
      const m = await firstLine(owned.child, /URL:\s+(https?:\/\/\S+)/, 30_000, 'serve');
      await pollReady(m[1]!, t0 + 30_000);
      times.push(performance.now() - t0);
    } finally {
      await stopOwned(owned);
    }
  }
  return summarize(
    `spawn \`orch-conformance serve\`${flags.what} (${https ? 'HTTPS, new certificate' : 'plain HTTP'}) to /readyz 200`,
    times,
  );
}

/** build() + listen() in this process (the modules already loaded after the first run). */
export async function benchReadyInProcess(runs: number): Promise<{ importMs: number; ready: ReadyResult }> {
  const t0 = performance.now();
  const { build } = await import('../../reference/src/index.ts');
  const importMs = performance.now() - t0;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dataDir = tempDir();
    const t = performance.now();
    const s = await build({ dataDir, tls: false, host: '127.0.0.1', port: 0 });
    const { url } = await s.listen();
    await pollReady(url, performance.now() + 10_000);
    times.push(performance.now() - t);
    await s.close();
  }
  return { importMs, ready: summarize('build() + listen() in process (durable store)', times) };
}
