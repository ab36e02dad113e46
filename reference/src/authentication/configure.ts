// The user authentication methods the server options switch on, added to the union in the
// order the cluster tries them: the authenticating proxy, client certificates, then the
// static token file. Returns what the HTTPS listener needs for them (asking clients for a
// certificate, and the CAs it names to them). Each method's module (and the libraries it
// reads certificates and CSV with) is loaded only when its flag is set.
import type { ServerOptions } from '../config.ts';
import { ConfigurationError } from '../errors/config-error.ts';
import { loadCaBundle } from './pem-bundle.ts';
import { StaticTokenAuthenticator } from './token-file.ts';
import type { AuthenticationUnion } from './union.ts';

/** Options of node's TLS server for client certificates (none when no method uses them). */
export interface ClientCertificateTls {
  requestCert?: boolean;
  rejectUnauthorized?: boolean;
  ca?: string[];
}

export async function configureAuthentication(
  o: ServerOptions,
  union: AuthenticationUnion,
): Promise<ClientCertificateTls> {
  const tls: ClientCertificateTls = {};
  const ca: string[] = [];
  if (o.requestheaderClientCaFile) {
    if (!o.requestheaderUsernameHeaders?.length)
      throw new ConfigurationError(
        '--requestheader-username-headers is required with --requestheader-client-ca-file',
      );
    const bundle = loadCaBundle('requestheader-client-ca-file', o.requestheaderClientCaFile);
    ca.push(bundle.pem);
    const { RequestHeaderAuthenticator } = await import('./request-header.ts');
    union.add(
      new RequestHeaderAuthenticator(
        {
          roots: bundle.certificates,
          allowedNames: o.requestheaderAllowedNames ?? [],
          usernameHeaders: o.requestheaderUsernameHeaders,
          groupHeaders: o.requestheaderGroupHeaders ?? [],
          extraPrefixes: o.requestheaderExtraHeadersPrefix ?? [],
        },
        o.clock,
      ),
    );
  } else if (o.requestheaderUsernameHeaders?.length) {
    throw new ConfigurationError(
      '--requestheader-client-ca-file is required with the other --requestheader-* flags',
    );
  }
  if (o.clientCaFile) {
    const bundle = loadCaBundle('client-ca-file', o.clientCaFile);
    ca.push(bundle.pem);
    const { X509Authenticator } = await import('./x509.ts');
    union.add(new X509Authenticator(bundle.certificates, o.clock));
  }
  if (o.tokenAuthFile) {
    const { loadTokenFile } = await import('./token-file-load.ts');
    union.add(new StaticTokenAuthenticator(loadTokenFile(o.tokenAuthFile), 'token-file'));
  }
  // the listener asks for a certificate and lets the methods judge it: an untrusted one is
  // refused by them (a 401), not at the handshake
  if (ca.length) Object.assign(tls, { requestCert: true, rejectUnauthorized: false, ca });
  return tls;
}
