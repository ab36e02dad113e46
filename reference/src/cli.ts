// Command line of the reference server: `serve` runs it standalone (HTTPS with a generated
// CA by default), writes a kubeconfig for it and prints how to reach it.
//
//   tsx reference/src/cli.ts serve [flags]      (npm run server -- [flags])
//
// The flags are each component's (options/), assembled in options/index.ts; what `serve` does
// with them is in app/: serve.ts (build, listen, kubeconfig), banner.ts, signals.ts.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { banner } from './app/banner.ts';
import { serve } from './app/serve.ts';
import { stopOnSignals } from './app/signals.ts';
import { UsageError } from './options/flags.ts';
import { parseServeArgs, SERVE_USAGE } from './options/index.ts';

export { adminToken, type Running, serve } from './app/serve.ts';
export { TOKEN_FILE } from './options/admin.ts';
export { UsageError } from './options/flags.ts';
export { parseServeArgs, SERVE_USAGE, type ServeConfig } from './options/index.ts';
export { DEFAULT_PORT, isLoopback } from './options/serving.ts';

export const USAGE = `Usage: orch-conformance <command> [flags]

Commands:
  serve    run the reference server (see: serve --help)
  run      run the conformance suites against a server
`;

/** Runs `serve` until SIGINT or SIGTERM, then shuts down gracefully (a second signal exits at once). */
async function serveMain(argv: string[]): Promise<number | undefined> {
  const cfg = parseServeArgs(argv);
  if (!cfg) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  for (const w of cfg.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
  const running = await serve(cfg);
  stopOnSignals(running, cfg);
  // only once the signals are handled: whoever reads "ready" may send one at once
  if (!cfg.quiet) process.stdout.write(banner(running, performance.now()));
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
