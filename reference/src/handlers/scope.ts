// What a verb handler gets: the decoded request (the resolved resource, media type, query
// options, the body on demand, the request context) and a response writer. Node's request
// and response objects stay in the HTTP layer (../http).
import type { Negotiated } from '../content/negotiate.ts';
import type { Registry, Served } from '../registry/registry.ts';
import type { GenericStore } from '../registry/store.ts';
import type { RequestContext, ResourceDef } from '../registry/types.ts';

/** A stream of chunks (a watch): headers go out on the first write or on start(). */
export interface EventStream {
  start(): void;
  write(chunk: Buffer): void;
  end(): void;
  /** Drops the connection (a client that does not read). */
  destroy(): void;
  /** Bytes written but not yet taken by the client. */
  readonly buffered: number;
  readonly closed: boolean;
  /** Called once when the client goes away or the stream ended. */
  onClose(f: () => void): void;
}

export interface ResponseWriter {
  /** Writes an object reply in the negotiated format (a Table when one was asked for). */
  reply(status: number, obj: unknown, opts?: { gzip?: boolean }): void;
  /** Opens a streamed reply with the given content type. */
  stream(contentType: string): EventStream;
  /**
   * Streams the request (method, headers, body, the query given) to a backend at `location`
   * (scheme, host and path) and the backend's answer back: the connect subresources.
   */
  forward(location: URL, query: string): Promise<void>;
}

export interface Scope {
  verb: string;
  /** The request path as sent (for messages). */
  path: string;
  query: URLSearchParams;
  /** The Content-Type header of the request body, as sent. */
  contentType: string | undefined;
  served: Served;
  def: ResourceDef;
  store: GenericStore;
  registry: Registry;
  version: string;
  namespace: string;
  name: string;
  subresource: string;
  /** The path past a connect subresource (`.../proxy/a/b` → `/a/b`), as sent; empty when there is none. */
  subpath: string;
  ctx: RequestContext;
  /** The response format chosen from Accept (406 already raised when none fits). */
  out: Negotiated;
  /** Reads the whole body (limit enforced, 413 past it). */
  body(): Promise<Buffer>;
  res: ResponseWriter;
  /** Shorthand for `res.reply`. */
  reply(status: number, obj: unknown, opts?: { gzip?: boolean }): void;
  /** Shorthand for `res.forward`. */
  forward(location: URL, query: string): Promise<void>;
}

export type Handler = (s: Scope) => Promise<void>;
