// HTTPS admission webhook servers the harness runs during a case (doc3 § Webhook contract):
// each webhook is a path of one server, answering per a scripted behaviour (allow, deny with a
// status, a JSON Patch, warnings, a wrong uid, another review version, garbage, an HTTP error,
// a slow answer or none) and recording every call: the AdmissionReview received (mapped to
// the spec's words), its headers, the time, and its place in one order shared by every server
// of the process, so a case can tell which webhook was called before which.
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { issue, type KeyPairPem } from '../auth/pki.ts';
import { type Dialect, dialect as makeDialect } from '../dialect.ts';
import { freePort } from '../free-port.ts';
import { type CallbackHost, callbackCa, callbackHost } from './callback-host.ts';

/** What one webhook answers to one call. */
export interface Answer {
  /** `response.allowed` (default true). */
  allowed?: boolean;
  /** `response.status` (a rejection's code and message). */
  status?: { code?: number; message?: string; reason?: string };
  /** A JSON Patch (the operations), sent base64 in `response.patch`, `patchType: JSONPatch`. */
  patch?: unknown[];
  /** `response.patchType` other than JSONPatch (null: a patch without a patchType). */
  patchType?: string | null;
  /** `response.warnings`. */
  warnings?: string[];
  /** `response.auditAnnotations`. */
  auditAnnotations?: Record<string, string>;
  /** `response.uid`: the request's (default), another, or none. */
  uid?: 'echo' | 'other' | 'missing';
  /** The review's apiVersion in the spec's words (default the request's). */
  version?: string;
  /** The review's kind (default AdmissionReview). */
  kind?: string;
  /** Leave `response` out of the review. */
  noResponse?: boolean;
  /** HTTP status of the answer (default 200). */
  httpStatus?: number;
  /** A body sent verbatim instead of a review. */
  raw?: string;
  /** Content-Type of the answer (default application/json). */
  contentType?: string;
  /** Answer after this long. */
  delayMs?: number;
  /** Never answer (the connection stays open until the server closes). */
  hang?: boolean;
}

/** One call a webhook received. */
export interface Call {
  /** The webhook (the path segment it is served at). */
  webhook: string;
  /** Its place among every call to every server of this process (from 1). */
  seq: number;
  /** When it arrived (ms since the epoch). */
  at: number;
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body as received. */
  text: string;
  /** The AdmissionReview (spec words), undefined when the body is not JSON. */
  review?: any;
}

/** A webhook's behaviour: one answer for every call, or an answer per call (n from 1). */
export type Script = Answer | ((call: Call, n: number) => Answer);

export interface WebhookServer {
  /** The clientConfig of a webhook served here: its URL and the CA bundle (base64 PEM). */
  clientConfig(webhook: string): { url: string; caBundle: string };
  url(webhook: string): string;
  /** The CA of the server's certificate, base64 PEM (clientConfig.caBundle). */
  caBundle: string;
  /** Every call so far, oldest first. */
  calls: Call[];
  /** The calls one webhook got. */
  callsTo(webhook: string): Call[];
  /** Changes a webhook's behaviour from the next call on. */
  script(webhook: string, s: Script): void;
  close(): Promise<void>;
}

let seq = 0;

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

function reviewAnswer(call: Call, a: Answer, d: Dialect): string {
  if (a.raw !== undefined) return a.raw;
  const req = call.review?.request ?? {};
  const response: Record<string, unknown> = {
    ...(a.uid === 'missing' ? {} : { uid: a.uid === 'other' ? `not-${req.uid ?? 'the-request'}` : req.uid }),
    allowed: a.allowed ?? true,
  };
  if (a.status) response.status = a.status;
  if (a.patch) {
    response.patch = b64(JSON.stringify(a.patch));
    if (a.patchType !== null) response.patchType = a.patchType ?? 'JSONPatch';
  } else if (a.patchType) response.patchType = a.patchType;
  if (a.warnings) response.warnings = a.warnings;
  if (a.auditAnnotations) response.auditAnnotations = a.auditAnnotations;
  const review: Record<string, unknown> = {
    apiVersion: a.version ?? call.review?.apiVersion ?? 'admission.orch.io/v1',
    kind: a.kind ?? 'AdmissionReview',
    ...(a.noResponse ? {} : { response }),
  };
  // the spec's words out to the target's, except what came from the request verbatim
  const out = d.out(review) as Record<string, unknown>;
  if (!a.noResponse && a.uid !== 'missing') (out.response as Record<string, unknown>).uid = response.uid;
  return JSON.stringify(out);
}

async function listenOn(server: Server, where: CallbackHost): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<boolean>((ok, fail) => {
      const onError = (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' ? ok(false) : fail(e));
      server.once('error', onError);
      server.listen(port, where.bind, () => {
        server.off('error', onError);
        ok(true);
      });
    });
  if (!where.ports) {
    await tryPort(0);
    return (server.address() as { port: number }).port;
  }
  // start at a random place of the range: test processes running at once take other ports
  const { from, to } = where.ports;
  const n = to - from + 1;
  const start = Math.floor(Math.random() * n);
  for (let i = 0; i < n; i++) {
    const port = from + ((start + i) % n);
    if (await tryPort(port)) return port;
  }
  throw new Error(`no free port in ORCH_CALLBACK_PORTS ${from}-${to}`);
}

const leaves = new Map<string, Promise<KeyPairPem>>();

/**
 * The serving certificate of the webhook servers that `host` names, issued by the callback
 * authority once a process: every server of the process presents the same one (issuing one,
 * X.509 encoding in JavaScript, was about a sixth of the admission cases' own CPU time).
 */
function servingCertificate(host: string): Promise<KeyPairPem> {
  let leaf = leaves.get(host);
  if (!leaf) {
    leaf = callbackCa().then((ca) => issue(ca, { cn: host, usage: 'server', hosts: [host] }));
    // a failure is not kept: the next server tries again
    leaf.catch(() => leaves.delete(host));
    leaves.set(host, leaf);
  }
  return leaf;
}

/** Starts a webhook server with the scripts of its webhooks (a webhook not scripted allows). */
export async function startWebhookServer(
  scripts: Record<string, Script> = {},
  o: { dialect?: Dialect; where?: CallbackHost } = {},
): Promise<WebhookServer> {
  const d = o.dialect ?? makeDialect('orch');
  const where = o.where ?? callbackHost();
  const ca = await callbackCa();
  const leaf = await servingCertificate(where.host);
  const behaviours = new Map(Object.entries(scripts));
  const calls: Call[] = [];
  const sockets = new Set<Socket>();
  const pending = new Set<NodeJS.Timeout>();

  const server = createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const webhook = decodeURIComponent(new URL(req.url ?? '/', 'https://x').pathname.replace(/^\/+/, ''));
      let review: unknown;
      try {
        review = d.in(JSON.parse(text));
      } catch {
        review = undefined;
      }
      const call: Call = {
        webhook,
        seq: ++seq,
        at: Date.now(),
        method: req.method ?? '',
        headers: req.headers,
        text,
        review,
      };
      calls.push(call);
      const s = behaviours.get(webhook) ?? {};
      const a = typeof s === 'function' ? s(call, calls.filter((c) => c.webhook === webhook).length) : s;
      if (a.hang) return;
      const send = () => {
        res.writeHead(a.httpStatus ?? 200, { 'Content-Type': a.contentType ?? 'application/json' });
        res.end(reviewAnswer(call, a, d));
      };
      if (a.delayMs) {
        const t = setTimeout(() => {
          pending.delete(t);
          send();
        }, a.delayMs);
        pending.add(t);
      } else send();
    });
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listenOn(server, where);
  const hostPart = where.host.includes(':') ? `[${where.host}]` : where.host;
  const url = (webhook: string) => `https://${hostPart}:${port}/${encodeURIComponent(webhook)}`;
  const caBundle = b64(ca.cert);
  return {
    url,
    caBundle,
    clientConfig: (webhook) => ({ url: url(webhook), caBundle }),
    calls,
    callsTo: (webhook) => calls.filter((c) => c.webhook === webhook),
    script: (webhook, s) => void behaviours.set(webhook, s),
    close: async () => {
      for (const t of pending) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A URL on the callback host where nothing listens (a connection there is refused). */
export async function refusedUrl(where: CallbackHost = callbackHost()): Promise<string> {
  const port = await freePort(where.bind === '0.0.0.0' ? '127.0.0.1' : where.bind);
  const hostPart = where.host.includes(':') ? `[${where.host}]` : where.host;
  return `https://${hostPart}:${port}/nobody`;
}
