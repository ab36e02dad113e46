// How a standalone server ends: SIGINT or SIGTERM (or, with --exit-with-parent, its starter
// ending) shut it down gracefully; a second signal exits at once.
import { onParentGone } from '../../../lifeline/parent.ts';
import type { ServeConfig } from '../options/index.ts';
import type { Running } from './serve.ts';

export function stopOnSignals(running: Running, cfg: ServeConfig): void {
  let signals = 0;
  const stop = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`${sig} again: exiting without waiting\n`);
      process.exit(130);
    }
    process.stderr.write(
      `${sig}: shutting down${cfg.options.shutdownDelayMs ? ` (serving ${cfg.options.shutdownDelayMs / 1000} s more, /readyz failing)` : ''}\n`,
    );
    running.shutdown().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`error while closing: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (cfg.exitWithParent)
    onParentGone(() => {
      process.stderr.write('the process that started the server has ended\n');
      stop('SIGTERM');
    });
}
