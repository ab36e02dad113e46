// What a handler gets (`Scope`) over node's request and response: the resolved request, its
// body, and the writer of its reply (an object, a watch stream, or a forwarded connection).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditRecord } from '../audit/recorder.ts';
import type { Negotiated } from '../content/negotiate.ts';
import { asPartialMetadata } from '../content/partial-metadata.ts';
import type { EventStream, ResponseWriter, Scope } from '../handlers/scope.ts';
import type { RequestObservation } from '../metrics/requests.ts';
import type { Registry, Served } from '../registry/registry.ts';
import type { GenericStore } from '../registry/store.ts';
import type { RequestContext, ResourceDef } from '../registry/types.ts';
import { auditedBody, readBody } from './body.ts';
import type { HttpDeps } from './deps.ts';
import { forward } from './forward.ts';
import type { RequestInfo } from './request-info.ts';
import { setHeaders, writeEncoded } from './respond.ts';
import { ignore } from './socket-errors.ts';
import { tableFor } from './tables.ts';
import { eventStream } from './watch-stream.ts';

/** A class rather than an object of closures, as one is made for every request. */
export class HttpScope implements Scope, ResponseWriter {
  readonly verb: string;
  readonly contentType: string | undefined;
  readonly def: ResourceDef;
  readonly store: GenericStore;
  readonly registry: Registry;
  readonly version: string;
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  readonly subpath: string;
  private bodyP?: Promise<Buffer>;

  constructor(
    private readonly req: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly deps: HttpDeps,
    info: RequestInfo,
    readonly path: string,
    readonly query: URLSearchParams,
    readonly served: Served,
    readonly ctx: RequestContext,
    readonly out: Negotiated,
    private readonly audit: AuditRecord | undefined,
    private readonly observed: RequestObservation | undefined,
    /** Headers every reply carries (the request's flow-control classification). */
    private readonly headers: Readonly<Record<string, string>> | undefined,
  ) {
    this.verb = info.verb;
    this.contentType = req.headers['content-type'];
    this.def = served.def;
    this.store = served.store;
    this.registry = deps.registry;
    this.version = info.version;
    this.namespace = served.def.namespaced ? info.namespace : '';
    this.name = info.name;
    this.subresource = info.subresource;
    this.subpath = info.subpath;
  }

  get res(): ResponseWriter {
    return this;
  }

  body(): Promise<Buffer> {
    if (!this.bodyP) {
      this.bodyP = readBody(this.req, this.deps.maxBodyBytes);
      const audit = this.audit;
      if (audit?.atLeast('Request')) {
        const type = this.contentType;
        this.bodyP.then((b) => audit.setRequestObject(auditedBody(b, type)), ignore);
      }
    }
    return this.bodyP;
  }

  reply(status: number, obj: unknown, opts?: { gzip?: boolean }): void {
    const body =
      this.out.format === 'table'
        ? tableFor(this, obj)
        : this.out.partial
          ? asPartialMetadata(obj, this.out.partial)
          : obj;
    this.audit?.setResponseObject(body);
    writeEncoded(this.req, this.response, status, body, this.out, {
      gzip: opts?.gzip,
      warnings: this.ctx.warnings,
      compression: this.deps.compression(),
      sized: this.observed,
      headers: this.headers,
    });
  }

  stream(contentType: string): EventStream {
    if (this.headers) setHeaders(this.response, this.headers);
    return eventStream(this.response, contentType, this.audit, this.ctx.warnings);
  }

  forward(location: URL, query: string): Promise<void> {
    if (this.headers) setHeaders(this.response, this.headers);
    return forward(this.req, this.response, location, query);
  }
}
