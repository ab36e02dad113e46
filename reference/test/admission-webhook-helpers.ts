// Test support for admission webhooks: one real HTTPS callback server (a certificate for
// 127.0.0.1, localhost and `hook.default.svc`, from a fresh CA) whose paths answer as each test
// says, recording every call (path, headers, parsed review); and configuration builders.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateCertificate } from '../src/http/tls.ts';

export const GROUP = 'admissionregistration.orch.io';
export const VALIDATING = `/apis/${GROUP}/v1/validatingwebhookconfigurations`;
export const MUTATING = `/apis/${GROUP}/v1/mutatingwebhookconfigurations`;

export interface Call {
  path: string;
  headers: IncomingMessage['headers'];
  review: any;
}

export type Handler = (review: any, res: ServerResponse, req: IncomingMessage) => void;

export interface HookServer {
  port: number;
  /** base64 of the CA's PEM, for caBundle. */
  caBundle: string;
  ca: string;
  calls: Call[];
  on(path: string, h: Handler): void;
  callsTo(path: string): Call[];
  close(): Promise<void>;
}

/** Answers the review with `response` (uid copied unless the response says otherwise). */
export function answer(res: ServerResponse, review: any, response: Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      apiVersion: review.apiVersion,
      kind: 'AdmissionReview',
      response: { uid: review.request.uid, ...response },
    }),
  );
}

export const allow: Handler = (review, res) => answer(res, review, { allowed: true });

export function patchWith(ops: unknown[]): Handler {
  return (review, res) =>
    answer(res, review, {
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
    });
}

export async function startHookServer(): Promise<HookServer> {
  const cert = await generateCertificate(['127.0.0.1', 'localhost', 'hook.default.svc']);
  const routes = new Map<string, Handler>();
  const calls: Call[] = [];
  const server: Server = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      let review: any;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        review = undefined;
      }
      calls.push({ path: req.url ?? '/', headers: req.headers, review });
      const h = routes.get(path);
      if (!h) {
        res.writeHead(404).end();
        return;
      }
      h(review, res, req);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    caBundle: Buffer.from(cert.ca).toString('base64'),
    ca: cert.ca,
    calls,
    on: (p, h) => void routes.set(p, h),
    callsTo: (p) => calls.filter((c) => c.path.split('?')[0] === p),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type Hook = Record<string, unknown>;

/** A webhook on the callback server's `path`, for ConfigMap creations unless `extra` says otherwise. */
export function webhook(hs: HookServer, name: string, path: string, extra: Hook = {}): Hook {
  return {
    name,
    clientConfig: { url: `https://127.0.0.1:${hs.port}${path}`, caBundle: hs.caBundle },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

export function configuration(kind: 'Validating' | 'Mutating', name: string, webhooks: Hook[]) {
  return { apiVersion: `${GROUP}/v1`, kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks };
}
