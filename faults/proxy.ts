// A fault-injecting proxy: it stands in front of an endpoint and breaks one rule of the
// spec at a time, so each suite can be shown to catch the fault it covers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher, request } from 'undici';

export interface ProxiedRequest {
  method: string;
  /** Path and query. */
  url: URL;
  /** By lower-case name; a header the client sent more than once keeps each line (a list). */
  headers: Record<string, string | string[]>;
  body: Buffer;
}

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/**
 * A fault's code: how it breaks what passes through the proxy. A catalogue fault keeps its code
 * in `faults/<area>/*.ts` (exported as `HOOKS`) and its data in `faults/<area>/faults.yaml`,
 * joined by name (index.ts); a test may make hooks of its own.
 */
export interface FaultHooks {
  name: string;
  request?(r: ProxiedRequest): ProxiedRequest | Promise<ProxiedRequest>;
  response?(
    r: ProxiedRequest,
    res: ProxiedResponse,
    upstream: Upstream,
  ): ProxiedResponse | Promise<ProxiedResponse>;
  /** Rewrites the watch event stream: called per event line, returns the lines to send. */
  watch?(state: WatchState, line: string): string[];
  /**
   * Rewrites the target's audit events as the suites read them (a fault of the audit log, which
   * no proxy sees): the meta test declares to the suite a copy of the server's log with each
   * event passed through this (`server.auditLog` must be set). Returns the event to keep.
   */
  auditEvent?(event: any): any;
}

/** A fault's data (`faults/<area>/faults.yaml`, checked by faults.schema.json). */
export interface FaultData {
  name: string;
  /** What rule it breaks (doc place), for the report. */
  breaks: string;
  /**
   * The cases that check the rule the fault breaks and must catch it: exact case ids from
   * suites/MANIFEST.json, or an id prefix ending in '/' for a family of rows. The fault meta
   * test passes only when one of them fails and no other case of the area does.
   */
  catchers: string[];
  /**
   * Server options the fault needs to show (a feature gate on, a short history); the fault
   * meta test runs this fault, and the clean proxy, against a server built with them.
   */
  server?: FaultServerOptions;
  /**
   * The fault is in the server processes the harness starts itself (harness/src/server-process.ts):
   * the meta test puts the proxy with this fault in front of each of them
   * (faults/server.ts), and none in front of the run's target.
   */
  serverProcess?: true;
}

/** A fault of the catalogue: its data, its area (the folder it lives in) and its code. */
export interface Fault extends FaultData, FaultHooks {
  /** The suite area expected to catch it. */
  area: string;
}

export interface FaultServerOptions {
  featureGates?: Record<string, boolean>;
  historySeconds?: number;
  bookmarkIntervalMs?: number;
  /** A short continue-token lifetime (the meta test declares it to the suite: ORCH_CONTINUE_TTL_SECONDS). */
  continueTtlSeconds?: number;
  /** `--runtime-config` (group versions switched on). */
  runtimeConfig?: string;
  /** Admission plugins on beside the default-enabled ones (the meta test declares them: ORCH_ADMISSION_PLUGINS). */
  enableAdmissionPlugins?: string[];
  /**
   * An admission configuration the harness makes (harness/src/admission/): EventRateLimit's
   * buckets, or ImagePolicyWebhook asking the harness's ImageReview backend.
   */
  harnessAdmissionConfig?: 'event-rate-limit' | 'image-policy';
  /** The server writes an audit log, and the meta test declares its copy to the suite (ORCH_AUDIT_LOG). */
  auditLog?: true;
}

export interface WatchState {
  n: number;
  held?: string;
  /** The watch request's path and query. */
  url?: URL;
  /** Set by a fault to end the stream after the lines it returned. */
  end?: boolean;
  [k: string]: unknown;
}

export interface Upstream {
  send(r: ProxiedRequest): Promise<ProxiedResponse>;
}

export interface ProxyOptions {
  target: string;
  ca?: string;
  insecure?: boolean;
  fault?: FaultHooks;
  /** Port to listen on (default: any free one). */
  port?: number;
}

export interface RunningProxy {
  url: string;
  /**
   * What went wrong in the proxy itself (a fault hook that threw, an upstream it could not
   * reach): each was answered 502, which any case would take for the fault's doing.
   */
  errors: string[];
  close(): Promise<void>;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length', 'upgrade']);

export async function startFaultProxy(o: ProxyOptions): Promise<RunningProxy> {
  const agent = new Agent({ connect: { ca: o.ca, rejectUnauthorized: !o.insecure } });
  const send = async (r: ProxiedRequest): Promise<ProxiedResponse> => {
    const up = await request(new URL(r.url.pathname + r.url.search, o.target), {
      method: r.method as Dispatcher.HttpMethod,
      headers: r.headers,
      body: r.body.length ? r.body : undefined,
      dispatcher: agent,
    });
    const body = Buffer.from(await up.body.arrayBuffer());
    return { status: up.statusCode, headers: cleanHeaders(up.headers), body };
  };
  const upstream: Upstream = { send };
  const errors: string[] = [];
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((e) => {
      errors.push(`${req.method} ${req.url}: ${(e as Error).stack ?? e}`);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy error: ${(e as Error).message}`);
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    // from the raw lines: a header sent twice (Impersonate-Group) stays two lines upstream
    const headers: Record<string, string | string[]> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const k = req.rawHeaders[i]!.toLowerCase();
      const v = req.rawHeaders[i + 1]!;
      if (HOP.has(k)) continue;
      const had = headers[k];
      headers[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
    }
    let pr: ProxiedRequest = {
      method: req.method ?? 'GET',
      url: new URL(req.url ?? '/', 'http://proxy'),
      headers,
      body: Buffer.concat(chunks),
    };
    if (o.fault?.request) pr = await o.fault.request(pr);
    const isWatch =
      pr.method === 'GET' &&
      (pr.url.searchParams.get('watch') === '1' ||
        pr.url.searchParams.get('watch') === 'true' ||
        pr.url.pathname.includes('/watch/'));
    if (isWatch) {
      await streamWatch(pr, res, agent, o.target, o.fault, errors);
      return;
    }
    let out = await send(pr);
    if (o.fault?.response) out = await o.fault.response(pr, out, upstream);
    res.writeHead(out.status, { ...out.headers, 'content-length': String(out.body.length) });
    res.end(out.body);
  };
  // idle connections are kept as long as the reference keeps them (node's 5 s default races
  // with a client reusing a connection on a loaded machine: the reuse meets a reset)
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(o.port ?? 0, '127.0.0.1', () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    errors,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await agent.close();
    },
  };
}

async function streamWatch(
  pr: ProxiedRequest,
  res: ServerResponse,
  agent: Agent,
  target: string,
  fault: FaultHooks | undefined,
  errors: string[],
): Promise<void> {
  const ac = new AbortController();
  res.on('close', () => ac.abort());
  let up: Dispatcher.ResponseData;
  try {
    up = await request(new URL(pr.url.pathname + pr.url.search, target), {
      method: 'GET',
      headers: pr.headers,
      dispatcher: agent,
      signal: ac.signal,
      bodyTimeout: 0,
    });
  } catch (e) {
    if (!ac.signal.aborted)
      errors.push(`watch ${pr.url.pathname}${pr.url.search}: ${(e as Error).stack ?? e}`);
    res.writeHead(502);
    res.end(String(e));
    return;
  }
  const headers = cleanHeaders(up.headers);
  res.writeHead(up.statusCode, headers);
  res.flushHeaders(); // a watch with nothing to send yet is still under way
  const state: WatchState = { n: 0, url: pr.url };
  let buf = '';
  try {
    for await (const chunk of up.body) {
      buf += chunk.toString();
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let lines: string[];
        try {
          lines = fault?.watch ? fault.watch(state, line) : [line];
        } catch (e) {
          // a watch hook that throws: recorded, and the stream ends (as a 502 would end a request)
          errors.push(`watch hook ${pr.url.pathname}${pr.url.search}: ${(e as Error).stack ?? e}`);
          state.end = true;
          break;
        }
        state.n++;
        for (const l of lines) res.write(`${l}\n`);
        nl = state.end ? -1 : buf.indexOf('\n');
      }
      if (state.end) break;
    }
  } catch {
    // client went away or upstream ended
  }
  if (state.held) res.write(`${state.held}\n`);
  // a body without a final newline (an error Status answering a watch request) passes as is
  if (buf && !state.end) res.write(buf);
  res.end();
}

function cleanHeaders(h: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) if (!HOP.has(k.toLowerCase()) && v !== undefined) out[k] = v;
  return out;
}
