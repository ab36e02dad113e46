// How users authenticate: client certificates, the authenticating proxy, static tokens,
// bootstrap tokens and anonymous requests. Service-account tokens: options/service-accounts.ts;
// OpenID Connect and the token webhook: options/token-authenticators.ts.
import type { ServerOptions } from '../config.ts';
import { boolFlag, type OptionSection, pathFlag, splitList, UsageError } from './flags.ts';

export const authenticationOptions: OptionSection = {
  flags: {
    'token-auth-file': { type: 'string' },
    'client-ca-file': { type: 'string' },
    'requestheader-username-headers': { type: 'string', multiple: true },
    'requestheader-group-headers': { type: 'string', multiple: true },
    'requestheader-extra-headers-prefix': { type: 'string', multiple: true },
    'requestheader-client-ca-file': { type: 'string' },
    'requestheader-allowed-names': { type: 'string', multiple: true },
  },
  usage: `  --token-auth-file FILE     static bearer tokens: CSV of token,user,uid[,"group1,group2"]
  --client-ca-file FILE      PEM CA bundle: a client certificate it verifies authenticates as
                             user = subject CN, groups = subject O's (HTTPS only)
  --requestheader-username-headers LIST
                             authenticating proxy: headers naming the user (first non-empty wins)
  --requestheader-group-headers LIST
                             authenticating proxy: headers whose values are groups
  --requestheader-extra-headers-prefix LIST
                             authenticating proxy: header prefixes of extra attributes
  --requestheader-client-ca-file FILE
                             PEM CA bundle that must verify the proxy's client certificate
                             (required with the other --requestheader-* flags)
  --requestheader-allowed-names LIST
                             common names the proxy's certificate may have (default: any)
`,
  parse({ values, str, cwd, options }) {
    // paths only: the files are read, and their absence reported, when the server starts
    const tokenFile = pathFlag('token-auth-file', str('token-auth-file'), cwd);
    if (tokenFile) options.tokenAuthFile = tokenFile;
    const clientCa = pathFlag('client-ca-file', str('client-ca-file'), cwd);
    if (clientCa) {
      if (options.tls === false) throw new UsageError('--client-ca-file needs HTTPS (not --insecure-http)');
      options.clientCaFile = clientCa;
    }
    const list = (k: string) => splitList(values[k] as string[] | undefined);
    const rh: Partial<ServerOptions> = {
      requestheaderUsernameHeaders: list('requestheader-username-headers'),
      requestheaderGroupHeaders: list('requestheader-group-headers'),
      requestheaderExtraHeadersPrefix: list('requestheader-extra-headers-prefix'),
      requestheaderAllowedNames: list('requestheader-allowed-names'),
    };
    const rhCa = pathFlag('requestheader-client-ca-file', str('requestheader-client-ca-file'), cwd);
    const rhUsed = Object.values(rh).some((v) => v !== undefined);
    if (!rhCa && !rhUsed) return;
    if (!rhCa)
      throw new UsageError(
        '--requestheader-client-ca-file is required with the other --requestheader-* flags',
      );
    if (!rh.requestheaderUsernameHeaders?.length)
      throw new UsageError(
        '--requestheader-username-headers is required with --requestheader-client-ca-file',
      );
    if (options.tls === false)
      throw new UsageError('--requestheader-client-ca-file needs HTTPS (not --insecure-http)');
    options.requestheaderClientCaFile = rhCa;
    for (const [k, v] of Object.entries(rh)) if (v !== undefined) (options as Record<string, unknown>)[k] = v;
  },
};

export const bootstrapTokenOptions: OptionSection = {
  flags: { 'enable-bootstrap-token-auth': { type: 'boolean' } },
  usage: `  --enable-bootstrap-token-auth
                             bootstrap token secrets (bootstrap.orch.io/token, in orch-system)
                             authenticate as system:bootstrap:<token-id>
`,
  parse({ values, options }) {
    if (values['enable-bootstrap-token-auth']) options.enableBootstrapTokenAuth = true;
  },
};

export const anonymousOptions: OptionSection = {
  flags: { 'anonymous-auth': { type: 'string' } },
  usage: `  --anonymous-auth BOOL      true or false: requests without credentials are system:anonymous
                             (default true; always off when the modes include AlwaysAllow)
`,
  parse({ str, options }) {
    const anonymous = boolFlag('anonymous-auth', str('anonymous-auth'));
    if (anonymous !== undefined) options.anonymous = anonymous;
  },
};
