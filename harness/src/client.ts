// The suites' HTTP client (undici). It never throws on a non-2xx answer: it returns status,
// headers, body and the parsed `Status`. Every request has a timeout, so a stalled, reset or
// garbage-speaking endpoint ends a case with a clear failure instead of a hang. A target with
// several endpoints gets each request at the next one (endpoints.ts); then an answer names the
// endpoint that gave it.
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher, request } from 'undici';
import { type Dialect, dialect } from './dialect.ts';
import { type EndpointUse, Endpoints } from './endpoints.ts';
import { describeNetworkError, type ExchangeState } from './network-error.ts';
import { answered, type Recorded, recording, runTokens } from './repro/tape.ts';
import type { Target } from './target.ts';

export interface StatusObject {
  kind: 'Status';
  apiVersion: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  metadata?: Record<string, unknown>;
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  /** Parsed JSON body (dialect-mapped to the spec's words), undefined when not JSON. */
  json: any;
  /** The body when it is a `Status` object. */
  statusObj?: StatusObject;
  /** The endpoint that answered (set when the target has several). */
  endpoint?: string;
  /** First value of a header (case-insensitive). */
  header(name: string): string | undefined;
  /** All values of a header, split on commas where the header is a list. */
  headerAll(name: string): string[];
  /** One line for failure messages. */
  describe(): string;
}

export interface RequestOptions {
  method?: string;
  path: string;
  query?: Record<string, string | number | boolean | undefined | (string | number | boolean)[]>;
  /** Object (sent as JSON unless contentType says otherwise), string or bytes. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** Extra headers; a list sends the header once per value. */
  headers?: Record<string, string | string[]>;
  timeoutMs?: number;
  /** Send without credentials (anonymous). */
  anonymous?: boolean;
  /** Override the bearer token. */
  token?: string;
  /**
   * Send again when the target answers 503 with Retry-After, as Kubernetes' clients do (at most
   * RETRIES_UNAVAILABLE times, waiting what it asks, up to 2 s each). For requests whose case is
   * not about availability: a 1.28 API server answers custom resource requests so ("apiserver is
   * shutting down") while it replaces a definition's storage, moments after the definition changed.
   */
  retryUnavailable?: boolean;
}

/** How often a request with `retryUnavailable` is sent again. */
export const RETRIES_UNAVAILABLE = 5;

export const DEFAULT_TIMEOUT_MS = 15_000;

/** `orch-conformance run --request-timeout S`: the longest any one request or watch connect may take. */
export const REQUEST_TIMEOUT_ENV = 'ORCH_REQUEST_TIMEOUT';

/** A request's timeout: the one asked for (default 15 s), capped by ORCH_REQUEST_TIMEOUT seconds. */
export function requestTimeoutMs(
  asked: number = DEFAULT_TIMEOUT_MS,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const cap = Number(env[REQUEST_TIMEOUT_ENV]) * 1000;
  return Number.isFinite(cap) && cap > 0 ? Math.min(asked, cap) : asked;
}

export class Client {
  readonly d: Dialect;
  /** The target's endpoints: its shared rotation, or this client's own single one. */
  readonly endpoints: Endpoints;
  private agent: Agent;
  private agentCert?: string;
  /** Without the target's client certificate: for anonymous requests and other tokens. */
  private bare?: Agent;
  /** Path prefixes whose requests take `retryUnavailable` unless they say otherwise. */
  private readonly retryPrefixes = new Set<string>();

  constructor(readonly target: Target) {
    this.d = dialect(target.dialect);
    this.endpoints = target.endpoints ?? new Endpoints([target.url]);
    this.agent = this.makeAgent(target.cert, target.key);
    this.agentCert = target.cert;
  }

  private makeAgent(cert?: string, key?: string): Agent {
    return new Agent({
      connect: {
        ca: this.target.ca,
        cert,
        key,
        rejectUnauthorized: !this.target.insecure,
        timeout: 10_000,
      },
      keepAliveTimeout: 10_000,
      connections: 64,
    });
  }

  get dispatcher(): Dispatcher {
    return this.agent;
  }

  /**
   * The dispatcher of a request with these options: an anonymous request, or one with a token
   * of its own, must not present the target's client certificate (a server that authenticates
   * the certificate first would serve it as the target's user).
   */
  dispatcherFor(o: { anonymous?: boolean; token?: string } = {}): Dispatcher {
    if (!(o.anonymous || o.token) || !this.agentCert) return this.agent;
    this.bare ??= this.makeAgent();
    return this.bare;
  }

  /** Builds the full URL of a spec path (dialect-mapped) with a query string, at `base` (default: the first endpoint). */
  url(path: string, query?: RequestOptions['query'], base: string = this.target.url): string {
    const u = new URL(this.d.w(path), base);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined) continue;
      for (const x of Array.isArray(v) ? v : [v]) u.searchParams.append(k, this.d.w(String(x)));
    }
    return u.toString();
  }

  async authHeaders(o: { anonymous?: boolean; token?: string } = {}): Promise<Record<string, string>> {
    if (o.anonymous) return {};
    if (o.token) return { authorization: `Bearer ${o.token}` };
    if (this.target.exec) {
      const c = await this.target.exec.get();
      if (c.cert && c.cert !== this.agentCert) {
        // a changed client certificate forces a new TLS handshake
        void this.agent.close();
        this.agent = this.makeAgent(c.cert, c.key);
        this.agentCert = c.cert;
      }
      if (c.token) return { authorization: `Bearer ${c.token}` };
      return {};
    }
    return this.target.token ? { authorization: `Bearer ${this.target.token}` } : {};
  }

  /**
   * Every later request of this client under `prefix` takes `retryUnavailable`: a suite's own
   * custom resource group (`/apis/<group>/`), whose resources a 1.28 API server may answer 503
   * while it replaces their storage after their definition changed, and whose cases are not
   * about availability.
   */
  retryUnavailableUnder(prefix: string): void {
    this.retryPrefixes.add(prefix);
  }

  /** Whether a 503 to this request is retried (asked for, or under a prefix that asks for it). */
  private retries(o: RequestOptions): boolean {
    if (o.retryUnavailable !== undefined) return o.retryUnavailable;
    for (const p of this.retryPrefixes) if (o.path.startsWith(p)) return true;
    return false;
  }

  async request(o: RequestOptions): Promise<Response> {
    let r = await this.once(o);
    if (r.status === 401 && this.target.exec && !o.anonymous && !o.token) {
      this.target.exec.invalidate();
      r = await this.once(o);
    }
    // asked only of a 503, the one answer retried
    for (let i = 0; r.status === 503 && i < RETRIES_UNAVAILABLE && this.retries(o); i++) {
      const after = Number(r.header('retry-after'));
      if (!Number.isFinite(after) || after < 0) break;
      await sleep(Math.min(after, 2) * 1000);
      r = await this.once(o);
    }
    return r;
  }

  private async once(o: RequestOptions): Promise<Response> {
    const headers: Record<string, string | string[]> = { ...(await this.authHeaders(o)) };
    if (o.accept) headers.accept = this.d.w(o.accept);
    let body: string | Buffer | undefined;
    if (o.body !== undefined) {
      if (Buffer.isBuffer(o.body)) body = o.body;
      else if (typeof o.body === 'string') body = o.body;
      else body = JSON.stringify(this.d.out(o.body));
      headers['content-type'] = this.d.w(o.contentType ?? 'application/json');
    }
    for (const [k, v] of Object.entries(o.headers ?? {}))
      headers[k.toLowerCase()] = Array.isArray(v) ? v.map((x) => this.d.w(x)) : this.d.w(v);
    const timeout = requestTimeoutMs(o.timeoutMs);
    const method = (o.method ?? 'GET').toUpperCase();
    const use = this.endpoints.take(`${method} ${o.path}`);
    const at = this.endpoints.several ? ` at ${use.url}` : '';
    const url = this.url(o.path, o.query, use.url);
    const state: ExchangeState = { method, url, timeoutMs: timeout, startedAt: Date.now(), phase: 'head' };
    const rec = recording ? this.record(use, o, method, url, headers, body) : undefined;
    // a deadline cleared when the exchange ends: AbortSignal.timeout's timer stays until it fires
    // and then builds its DOMException, long after the answer (3% of a suite run's client CPU)
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      timeout,
    ).unref();
    const signal = deadline.signal;
    let status: number;
    let resHeaders: Record<string, string | string[] | undefined>;
    const chunks: Buffer[] = [];
    try {
      const r = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher: this.dispatcherFor(o),
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal,
      });
      status = r.statusCode;
      resHeaders = r.headers;
      state.phase = 'body';
      state.bodyBytes = 0;
      for await (const c of r.body) {
        chunks.push(c as Buffer);
        state.bodyBytes += (c as Buffer).length;
      }
    } catch (e) {
      const why = describeNetworkError(e, state, signal.aborted);
      use.answer = `no answer (${why})`;
      if (rec) rec.note = why;
      throw new Error(`${method} ${o.path}: no answer${at} (${why})`);
    } finally {
      clearTimeout(timer);
    }
    use.answer = String(status);
    if (rec) {
      rec.status = status;
      rec.answer = Buffer.concat(chunks);
      const ct = resHeaders['content-type'];
      if (ct !== undefined) rec.answerType = String(ct);
      answered(rec);
    }
    return makeResponse(
      method,
      o.path,
      status,
      resHeaders,
      Buffer.concat(chunks),
      this.d,
      this.endpoints.several ? use.url : undefined,
      url,
    );
  }

  /**
   * Puts a request's details on its journal entry, for a reproducer: the URL's path and query,
   * the headers without credentials, the body; whose credentials it used (a token of its own
   * is kept apart, the run's noted as the run's, neither ever written).
   */
  record(
    use: EndpointUse,
    o: { path: string; anonymous?: boolean; token?: string; headers?: Record<string, unknown> },
    method: string,
    url: string,
    headers: Record<string, string | string[]>,
    body?: string | Buffer,
  ): Recorded {
    const u = new URL(url);
    // the case's own Authorization header is kept (a reproducer writes its name, never its value)
    const ownAuth = Object.keys(o.headers ?? {}).some((k) => k.toLowerCase() === 'authorization');
    const sent: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(headers)) if (k !== 'authorization' || ownAuth) sent[k] = v;
    const auth = headers.authorization;
    if (!ownAuth && !o.anonymous && !o.token && typeof auth === 'string' && auth.startsWith('Bearer '))
      runTokens.add(auth.slice(7));
    const secret =
      o.token ?? (ownAuth && typeof auth === 'string' ? auth.replace(/^Bearer /, '') : undefined);
    const rec: Recorded = {
      method,
      path: u.pathname + u.search,
      specPath: o.path,
      headers: sent,
      ...(body === undefined ? {} : { body }),
      status: 0,
      auth: o.anonymous ? 'anonymous' : 'default',
      startedAt: performance.now(),
      ...(o.token ? { ownToken: o.token } : {}),
      ...(secret ? { secret } : {}),
    };
    use.exchange = rec;
    return rec;
  }

  get = (path: string, o: Omit<RequestOptions, 'path' | 'method'> = {}) =>
    this.request({ ...o, path, method: 'GET' });
  post = (path: string, body: unknown, o: Omit<RequestOptions, 'path' | 'method' | 'body'> = {}) =>
    this.request({ ...o, path, body, method: 'POST' });
  put = (path: string, body: unknown, o: Omit<RequestOptions, 'path' | 'method' | 'body'> = {}) =>
    this.request({ ...o, path, body, method: 'PUT' });
  patch = (
    path: string,
    body: unknown,
    contentType: string,
    o: Omit<RequestOptions, 'path' | 'method' | 'body' | 'contentType'> = {},
  ) => this.request({ ...o, path, body, contentType, method: 'PATCH' });
  delete = (path: string, o: Omit<RequestOptions, 'path' | 'method'> = {}) =>
    this.request({ ...o, path, method: 'DELETE' });

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.bare?.close()]);
  }
}

export function makeResponse(
  method: string,
  path: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  d: Dialect,
  endpoint?: string,
  /** The full URL, named when the body is broken. */
  url?: string,
): Response {
  const text = body.toString('utf8');
  let json: any;
  let jsonError: string | undefined;
  const ct = String(headers['content-type'] ?? '');
  if (ct.includes('json') || (text.startsWith('{') && !ct.includes('protobuf'))) {
    try {
      json = d.in(JSON.parse(text));
    } catch (e) {
      json = undefined;
      // a stream of JSON documents (a watch read whole) is not one document, and not broken
      if (ct.includes('json') && text.trim() && !jsonLines(text))
        jsonError = `${method} ${url ?? path} -> ${status}: the body is declared ${ct} but is not JSON (${(e as Error).message}): ${JSON.stringify(text.slice(0, 120))}`;
    }
  }
  const statusObj = json && json.kind === 'Status' ? (json as StatusObject) : undefined;
  const lower: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
  const res: Response = {
    status,
    headers: lower,
    body,
    text,
    json,
    statusObj,
    ...(endpoint ? { endpoint } : {}),
    header: (n) => {
      const v = lower[n.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    },
    headerAll: (n) => {
      const v = lower[n.toLowerCase()];
      if (v === undefined) return [];
      return Array.isArray(v) ? v : [v];
    },
    describe: () => {
      if (jsonError) return jsonError;
      const s = statusObj
        ? ` ${statusObj.reason ?? ''}: ${statusObj.message ?? ''}`
        : ` ${text.slice(0, 200)}`;
      return `${method} ${path} -> ${status}${s}${endpoint ? ` (answered by ${endpoint})` : ''}`;
    },
  };
  if (jsonError) {
    // reading the body of a broken JSON answer fails with what is wrong, not with a TypeError later
    const message = jsonError;
    Object.defineProperty(res, 'json', {
      get: () => {
        throw new Error(message);
      },
    });
  }
  return res;
}

/** Every non-empty line is a JSON document (newline-delimited JSON, as a watch answers). */
function jsonLines(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim());
  if (lines.length < 2) return false;
  try {
    for (const l of lines) JSON.parse(l);
    return true;
  } catch {
    return false;
  }
}
