// The socket: HTTPS (with the client-certificate options authentication asks for) or plain
// HTTP; a graceful shutdown (drain) and an abrupt one (close).
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { DEFAULT_CIPHERS } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { ClientCertificateTls } from '../authentication/configure.ts';
import type { ServerOptions } from '../config.ts';
import { clientErrorHandler, connectMethodHandler } from '../http/server.ts';
import type { CertBundle } from '../http/tls.ts';
import type { ActiveWatches } from '../registry/active-watches.ts';
import { beforeExposure } from '../storage/exposure.ts';

/**
 * The TLS 1.3 suites in the order kube-apiserver (Go's crypto/tls) picks them on hardware with
 * AES: AES-128-GCM first, where Node's default takes the client's first choice (AES-256-GCM
 * from a Node or OpenSSL client). The TLS 1.2 suites keep Node's defaults.
 */
const GO_CIPHER_ORDER = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_256_GCM_SHA384',
  ...DEFAULT_CIPHERS.split(':').filter((c) => !c.startsWith('TLS_')),
].join(':');

/** The request line and headers a request may have, as Kubernetes' API server allows (1 MiB); past it, 431. */
const MAX_HEADER_BYTES = 1 << 20;

/**
 * Every answer's bytes (a reply, a watch's events, a proxied body) go out through these, and
 * the change log's records held back are written first (storage/exposure.ts).
 */
class ExposingResponse extends ServerResponse {
  override write(...args: unknown[]): boolean {
    beforeExposure();
    return (super.write as (...a: unknown[]) => boolean).apply(this, args);
  }

  override end(...args: unknown[]): this {
    beforeExposure();
    return (super.end as (...a: unknown[]) => this).apply(this, args);
  }

  override flushHeaders(): void {
    beforeExposure();
    super.flushHeaders();
  }
}

export class Listener {
  /** The server's URL once it listens. */
  url = '';
  /** From shutdown or close on: /readyz fails. */
  shuttingDown = false;
  private server: Server | undefined;

  constructor(
    private readonly options: ServerOptions,
    private readonly cert: CertBundle | undefined,
    private readonly clientCertificateTls: ClientCertificateTls,
  ) {}

  async listen(
    handle: (req: IncomingMessage, res: ServerResponse) => void,
  ): Promise<{ url: string; port: number }> {
    const { options, cert } = this;
    const server = cert
      ? createHttpsServer(
          {
            key: cert.key,
            cert: cert.cert,
            ciphers: GO_CIPHER_ORDER,
            honorCipherOrder: true,
            requireHostHeader: false,
            maxHeaderSize: MAX_HEADER_BYTES,
            ServerResponse: ExposingResponse,
            ...this.clientCertificateTls,
          },
          handle,
        )
      : createHttpServer(
          { requireHostHeader: false, maxHeaderSize: MAX_HEADER_BYTES, ServerResponse: ExposingResponse },
          handle,
        );
    this.server = server;
    // requests the HTTP parser refuses still get a Status (400, 431)
    server.on('clientError', clientErrorHandler);
    server.on('connect', connectMethodHandler);
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    // the whole request (headers and body) must arrive within a minute; watch replies may last longer
    server.requestTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    this.url = `${options.tls ? 'https' : 'http'}://${host}:${port}`;
    return { url: this.url, port };
  }

  /**
   * /readyz fails at once while requests are still served for `shutdownDelayMs`; then no new
   * connection is accepted, each watch ends and the requests in flight finish.
   */
  async drain(watches: ActiveWatches): Promise<void> {
    this.shuttingDown = true;
    await new Promise((r) => setTimeout(r, this.options.shutdownDelayMs));
    const server = this.server;
    if (!server) return;
    const closed = new Promise<void>((r) => server.close(() => r()));
    watches.endAll();
    // keep-alive connections close as soon as their request is done; after a minute
    // (the longest a request may take to arrive) whatever is left is cut
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), 60_000);
    await closed;
    clearInterval(idle);
    clearTimeout(cut);
    this.server = undefined;
  }

  /** Closes at once: connections are cut. */
  async close(): Promise<void> {
    this.shuttingDown = true;
    const server = this.server;
    if (server) {
      server.closeAllConnections?.();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }
}
