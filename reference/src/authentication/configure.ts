// The user authentication methods the server options switch on, added to the union in the
// order the cluster tries them: the authenticating proxy, client certificates, then the
// static token file. Returns what the HTTPS listener needs for them (asking clients for a
// certificate, and the CAs it names to them).
import type { ServerOptions } from '../config.ts';
import { StaticTokenAuthenticator } from './token-file.ts';
import { loadTokenFile } from './token-file-load.ts';
import type { AuthenticationUnion } from './union.ts';

/** Options of node's TLS server for client certificates (none when no method uses them). */
export interface ClientCertificateTls {
  requestCert?: boolean;
  rejectUnauthorized?: boolean;
  ca?: string[];
}

export function configureAuthentication(o: ServerOptions, union: AuthenticationUnion): ClientCertificateTls {
  const tls: ClientCertificateTls = {};
  if (o.tokenAuthFile) union.add(new StaticTokenAuthenticator(loadTokenFile(o.tokenAuthFile), 'token-file'));
  return tls;
}
