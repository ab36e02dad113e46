// Authentication: the admin token, then client certificates and the authenticating proxy, then
// the token methods; and the signer of approved client certificate requests. A key or
// connection file that does not load stops the start with nothing left open. The signer (and
// the certificate library it signs with) is loaded only when its flags are set.
import { readFileSync } from 'node:fs';
import { type ClientCertificateTls, configureAuthentication } from '../authentication/configure.ts';
import {
  configureTokenAuthentication,
  type TokenAuthentication,
} from '../authentication/configure-tokens.ts';
import { StaticTokenAuthenticator } from '../authentication/token-file.ts';
import { AuthenticationUnion } from '../authentication/union.ts';
import type { ServerOptions } from '../config.ts';
import type { AuthenticationInfo } from '../controllers/authentication-info.ts';
import type { CsrSigner } from '../registry/certificates/signer.ts';
import type { Registry } from '../registry/registry.ts';
import type { Storage } from '../storage/types.ts';
import { newToken } from '../util/token.ts';

export interface AuthenticationSetup {
  adminToken: string;
  authentication: AuthenticationUnion;
  /** The TLS options that ask for client certificates. */
  clientCertificateTls: ClientCertificateTls;
  tokens: TokenAuthentication;
  signer?: CsrSigner;
}

export async function wireAuthentication(
  options: ServerOptions,
  registry: Registry,
  storage: Storage,
): Promise<AuthenticationSetup> {
  const adminToken = options.adminToken || newToken();
  const authentication = new AuthenticationUnion(
    [
      new StaticTokenAuthenticator(
        new Map([[adminToken, { username: 'orch-admin', uid: 'orch-admin', groups: ['system:masters'] }]]),
      ),
    ],
    // doc3: anonymous access is never on together with the AlwaysAllow mode
    options.anonymous && !options.authorizationModes.includes('AlwaysAllow'),
  );
  let tokens: TokenAuthentication | undefined;
  try {
    // certificates and the authenticating proxy first, then the token methods
    const clientCertificateTls = await configureAuthentication(options, authentication);
    tokens = await configureTokenAuthentication(options, registry, authentication);
    let signer: CsrSigner | undefined;
    if (options.clusterSigningCertFile && options.clusterSigningKeyFile) {
      const { loadSigningCa } = await import('../registry/certificates/signing-ca.ts');
      const { startCsrSigner } = await import('../registry/certificates/signer.ts');
      signer = startCsrSigner(
        registry,
        await loadSigningCa(options.clusterSigningCertFile, options.clusterSigningKeyFile),
        options.clock,
      );
    }
    return { adminToken, authentication, clientCertificateTls, tokens, signer };
  } catch (e) {
    // a key or connection file that does not load: nothing may stay open
    tokens?.stop();
    await storage.close();
    throw e;
  }
}

/** What the cluster authentication info controller publishes of this server's trust (its CA files read again: they were checked at start). */
export function clusterAuthenticationInfo(o: ServerOptions): AuthenticationInfo {
  const read = (f: string) => readFileSync(f, 'utf8');
  return {
    ...(o.clientCaFile ? { clientCa: read(o.clientCaFile) } : {}),
    ...(o.requestheaderClientCaFile
      ? {
          requestHeader: {
            ca: read(o.requestheaderClientCaFile),
            usernameHeaders: o.requestheaderUsernameHeaders ?? [],
            groupHeaders: o.requestheaderGroupHeaders ?? [],
            extraHeaderPrefixes: o.requestheaderExtraHeadersPrefix ?? [],
            allowedNames: o.requestheaderAllowedNames ?? [],
          },
        }
      : {}),
  };
}
