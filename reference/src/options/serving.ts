// Where the server listens and whether it speaks HTTPS: --port, --host, --insecure-http.
import { isIP } from 'node:net';
import { DEFAULTS } from '../config.ts';
import { intFlag, type OptionSection, UsageError } from './flags.ts';

export const DEFAULT_PORT = 6443;

/** Loopback addresses: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** Addresses that bind every interface: 0.0.0.0, ::, the empty host. */
export function isWildcard(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === '0.0.0.0' || h === '::' || h === '';
}

export const servingOptions: OptionSection = {
  flags: {
    port: { type: 'string' },
    host: { type: 'string' },
  },
  usage: `  --port N                   port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host ADDR                address to listen on (default ${DEFAULTS.host})
`,
  parse({ str, options }) {
    options.port = intFlag('port', str('port'), 0, 65535) ?? DEFAULT_PORT;
    const host = str('host') ?? DEFAULTS.host;
    if (!host.trim()) throw new UsageError('--host: must not be empty');
    options.host = host.replace(/^\[|\]$/g, '');
  },
};

export const insecureServingOptions: OptionSection = {
  flags: { 'insecure-http': { type: 'boolean' } },
  usage: `  --insecure-http            serve plain HTTP instead of HTTPS (loopback hosts only)
`,
  parse({ values, str, options }) {
    if (values['insecure-http']) {
      if (!isLoopback(options.host!))
        throw new UsageError(
          `--insecure-http is only allowed on a loopback host (127.0.0.1, ::1, localhost), not "${str('host') ?? DEFAULTS.host}"`,
        );
      options.tls = false;
    } else options.tls = true;
  },
};
