// The server's start and end: --exit-with-parent, --livez-grace-period, --shutdown-delay-duration.
import { durationFlag, type OptionSection } from './flags.ts';

export const exitWithParentOptions: OptionSection = {
  flags: { 'exit-with-parent': { type: 'boolean' } },
  usage: `  --exit-with-parent         stop as on SIGTERM once the process that started the server ends,
                             however it ends (kill -9 included); \`npm run server\` sets it
`,
  parse({ values, serve }) {
    serve.exitWithParent = values['exit-with-parent'] === true;
  },
};

export const lifecycleOptions: OptionSection = {
  flags: {
    'livez-grace-period': { type: 'string' },
    'shutdown-delay-duration': { type: 'string' },
  },
  usage: `  --livez-grace-period D     from start, /livez takes post-start hooks still running as passing
                             for D (a Go duration: 30s, 2m; default 0s)
  --shutdown-delay-duration D
                             on SIGTERM, /readyz fails at once while requests are still served
                             for D; then the server stops accepting, finishes what is in flight,
                             ends each watch (a last BOOKMARK where asked for) and exits 0
                             (default 0s)
`,
  parse({ str, options }) {
    const grace = durationFlag('livez-grace-period', str('livez-grace-period'));
    if (grace !== undefined) options.livezGracePeriodMs = grace;
    const delay = durationFlag('shutdown-delay-duration', str('shutdown-delay-duration'));
    if (delay !== undefined) options.shutdownDelayMs = delay;
  },
};
