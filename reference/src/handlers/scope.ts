// What a verb handler gets: the resolved resource, the request context, and helpers to
// read the body and to write a reply. Only the HTTP layer (../http) sees the raw request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Negotiated } from '../content/negotiate.ts';
import type { Registry, Served } from '../registry/registry.ts';
import type { GenericStore } from '../registry/store.ts';
import type { RequestContext, ResourceDef } from '../registry/types.ts';

export interface Scope {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  served: Served;
  def: ResourceDef;
  store: GenericStore;
  registry: Registry;
  version: string;
  namespace: string;
  name: string;
  subresource: string;
  ctx: RequestContext;
  /** The response format chosen from Accept (406 already raised when none fits). */
  out: Negotiated;
  /** Reads the whole body (limit enforced, 413 past it). */
  body(): Promise<Buffer>;
  /** Writes an object reply in the negotiated format. */
  reply(status: number, obj: unknown, opts?: { gzip?: boolean }): void;
}

export type Handler = (s: Scope) => Promise<void>;

export function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return v === '' || v === 'true' || v === '1';
}
