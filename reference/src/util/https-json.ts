// JSON requests over HTTPS to a server the reference calls back (an OpenID issuer, a token
// webhook): the CA bundle to trust, an optional client certificate or bearer token, a
// deadline for the whole exchange, and a size limit on the reply. Anything but a 2xx JSON
// reply is an error. A client keeps its connections open between calls; close() ends them.
// Node's own HTTPS client: the OpenID issuer's discovery is fetched as the server starts, and
// loading undici there (its modules and the parts of Node they need) took about 150 ms of a
// start with every authenticator on; these calls are few and small.
import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';

export interface HttpsJsonTls {
  /** PEM CA bundle to trust (default: the host's roots). */
  ca?: string;
  /** PEM client certificate and key. */
  cert?: string;
  key?: string;
}

export interface HttpsJsonCall {
  method?: 'GET' | 'POST';
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  body?: unknown;
  timeoutMs?: number;
  /** Largest reply accepted (default 1 MiB). */
  maxBytes?: number;
}

export class HttpsJsonError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    /** The network error's code (ECONNRESET, ...), when the call failed below HTTP. */
    readonly code?: string,
    /** The reply carried Retry-After. */
    readonly retryAfter = false,
  ) {
    super(message);
  }
}

export class HttpsJsonClient {
  private agent?: Agent;
  private closed = false;

  constructor(private readonly tls: HttpsJsonTls = {}) {}

  async call(url: string, o: HttpsJsonCall = {}): Promise<unknown> {
    if (!url.startsWith('https://')) throw new HttpsJsonError(`${url}: only https URLs are called`);
    if (this.closed) throw new HttpsJsonError(`${url}: the client is closed`);
    const headers: Record<string, string> = { accept: 'application/json' };
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const limit = o.maxBytes ?? 1024 * 1024;
    const timeoutMs = o.timeoutMs ?? 10_000;
    // the deadline covers the whole exchange (connect, TLS, reply), not only idle time
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    let status: number;
    let text: string;
    let retryAfter = false;
    try {
      const tls = this.tls;
      this.agent ??= new Agent({ keepAlive: true, ca: tls.ca, cert: tls.cert, key: tls.key });
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(
          url,
          { method: o.method ?? 'GET', headers, agent: this.agent, signal: deadline.signal },
          resolve,
        );
        req.on('error', reject);
        req.end(body);
      });
      status = res.statusCode ?? 0;
      retryAfter = res.headers['retry-after'] !== undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of res) {
        size += (c as Buffer).length;
        if (size > limit) {
          res.destroy();
          throw new HttpsJsonError(`${url}: reply larger than ${limit} bytes`);
        }
        chunks.push(c as Buffer);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (e) {
      if (e instanceof HttpsJsonError) throw e;
      if (deadline.signal.aborted) throw new HttpsJsonError(`${url}: no reply within ${timeoutMs} ms`);
      throw new HttpsJsonError(`${url}: ${(e as Error).message}`, undefined, (e as { code?: string }).code);
    } finally {
      clearTimeout(timer);
    }
    if (status < 200 || status > 299)
      throw new HttpsJsonError(`${url}: HTTP ${status}`, status, undefined, retryAfter);
    try {
      return JSON.parse(text);
    } catch {
      throw new HttpsJsonError(`${url}: the reply is not JSON`, status);
    }
  }

  close(): void {
    this.closed = true;
    this.agent?.destroy();
  }
}
