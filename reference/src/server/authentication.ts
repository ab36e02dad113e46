// Authentication: the admin token, then client certificates and the authenticating proxy, then
// the token methods; and the signer of approved client certificate requests. A key or
// connection file that does not load stops the start with nothing left open.
import { type ClientCertificateTls, configureAuthentication } from '../authentication/configure.ts';
import { configureTokenAuthentication } from '../authentication/configure-tokens.ts';
import { StaticTokenAuthenticator } from '../authentication/token-file.ts';
import { AuthenticationUnion } from '../authentication/union.ts';
import type { ServerOptions } from '../config.ts';
import { type CsrSigner, startCsrSigner } from '../registry/certificates/signer.ts';
import { loadSigningCa } from '../registry/certificates/signing-ca.ts';
import type { Registry } from '../registry/registry.ts';
import type { Storage } from '../storage/types.ts';
import { newToken } from '../util/token.ts';

export interface AuthenticationSetup {
  adminToken: string;
  authentication: AuthenticationUnion;
  /** The TLS options that ask for client certificates. */
  clientCertificateTls: ClientCertificateTls;
  tokens: ReturnType<typeof configureTokenAuthentication>;
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
  let tokens: ReturnType<typeof configureTokenAuthentication> | undefined;
  try {
    // certificates and the authenticating proxy first, then the token methods
    const clientCertificateTls = configureAuthentication(options, authentication);
    tokens = configureTokenAuthentication(options, registry, authentication);
    let signer: CsrSigner | undefined;
    if (options.clusterSigningCertFile && options.clusterSigningKeyFile)
      signer = startCsrSigner(
        registry,
        await loadSigningCa(options.clusterSigningCertFile, options.clusterSigningKeyFile),
        options.clock,
      );
    return { adminToken, authentication, clientCertificateTls, tokens, signer };
  } catch (e) {
    // a key or connection file that does not load: nothing may stay open
    tokens?.stop();
    await storage.close();
    throw e;
  }
}
