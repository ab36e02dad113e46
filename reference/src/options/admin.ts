// The admin client `serve` sets up: --token (its bearer token), --kubeconfig (where its
// kubeconfig is written), --quiet (the kubeconfig alone says the server is ready).
import { join, resolve } from 'node:path';
import { type OptionSection, UsageError } from './flags.ts';

/** The file in the data directory that keeps the generated admin token. */
export const TOKEN_FILE = 'admin-token';

export const adminOptions: OptionSection = {
  flags: {
    token: { type: 'string' },
    kubeconfig: { type: 'string' },
    quiet: { type: 'boolean' },
  },
  usage: `  --token TOKEN              admin bearer token (default: generated once, kept in <data-dir>/${TOKEN_FILE})
  --kubeconfig PATH          where to write the kubeconfig (default <data-dir>/kubeconfig)
  --quiet                    print nothing: the kubeconfig, written whole once the server
                             answers requests, says it is ready (a test's fake API server)
`,
  parse({ values, str, cwd, options, serve }) {
    const token = str('token');
    if (token !== undefined && !/^[\x21-\x7e]+$/.test(token))
      throw new UsageError('--token: must be non-empty printable ASCII without spaces');
    serve.token = token;
    serve.kubeconfigPath = resolve(cwd, str('kubeconfig') ?? join(options.dataDir!, 'kubeconfig'));
    serve.quiet = values.quiet === true;
  },
};
