// The `create-webhooks` row: ConfigMap creations per second through one no-op mutating and one
// no-op validating admission webhook, against the same creations with no webhook, on one
// in-memory server in the same run (alternating rounds). The webhooks answer from an HTTPS
// server in this process; both select their namespace by label, so the "none" side's
// namespace is not sent to them. The server keeps its connections to the webhooks open: the
// callback server counts the TLS connections it accepted.
import { Worker } from 'node:worker_threads';
import type { AutocannonRequest, Options } from 'autocannon';
import { generateCertificate } from '../../reference/src/http/tls.ts';
import {
  type CompareOpts,
  type Comparison,
  call,
  configMapBody,
  type Load,
  load,
  type ServerProc,
} from './lib.ts';

export interface WebhookComparison extends Comparison {
  /** Webhook calls answered, and TLS connections the server opened to make them. */
  calls: number;
  tlsConnections: number;
}

interface HookServer {
  port: number;
  caBundle: string;
  count(): Promise<{ calls: number; connections: number }>;
  close(): Promise<void>;
}

// The callback server runs in a worker thread: in this process's own event loop it would
// wait behind the load generator, and the row would measure that instead of the server.
const HOOK_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const state = { calls: 0, connections: 0 };
const server = https.createServer({ key: workerData.key, cert: workerData.cert, keepAliveTimeout: 60000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    state.calls++;
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
  });
});
server.on('secureConnection', () => state.connections++);
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m === 'count') parentPort.postMessage({ ...state });
  if (m === 'close') { server.closeAllConnections(); server.close(() => parentPort.postMessage({ closed: true })); }
});
`;

async function startNoopHooks(): Promise<HookServer> {
  const cert = await generateCertificate(['127.0.0.1']);
  const worker = new Worker(HOOK_WORKER, { eval: true, workerData: { key: cert.key, cert: cert.cert } });
  const next = <T>() => new Promise<T>((r) => worker.once('message', r));
  const { port } = await next<{ port: number }>();
  return {
    port,
    caBundle: Buffer.from(cert.ca).toString('base64'),
    count: async () => {
      worker.postMessage('count');
      return next<{ calls: number; connections: number }>();
    },
    close: async () => {
      worker.postMessage('close');
      await next();
      await worker.terminate();
    },
  };
}

async function must(p: ReturnType<typeof call>, ...ok: number[]) {
  const r = await p;
  if (!ok.includes(r.status))
    throw new Error(`unexpected ${r.status}: ${r.body.toString('utf8').slice(0, 300)}`);
  return r;
}

function hook(hs: HookServer, name: string, path: string) {
  return {
    name,
    clientConfig: { url: `https://127.0.0.1:${hs.port}${path}`, caBundle: hs.caBundle },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { 'bench.orch.io/webhooks': 'on' } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  };
}

export async function benchCreateWebhooks(s: ServerProc, o: CompareOpts): Promise<WebhookComparison> {
  const hs = await startNoopHooks();
  try {
    const run = Date.now().toString(36);
    const ns = { hooked: `hooked-${run}`, plain: `plain-${run}` };
    for (const [side, name] of Object.entries(ns))
      await must(
        call(s, 'POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name, labels: side === 'hooked' ? { 'bench.orch.io/webhooks': 'on' } : {} },
        }),
        201,
      );
    const group = '/apis/admissionregistration.orch.io/v1';
    await must(
      call(s, 'POST', `${group}/mutatingwebhookconfigurations`, {
        apiVersion: 'admissionregistration.orch.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: `bench-${run}` },
        webhooks: [hook(hs, 'noop-mutate.bench.orch.io', '/mutate')],
      }),
      201,
    );
    await must(
      call(s, 'POST', `${group}/validatingwebhookconfigurations`, {
        apiVersion: 'admissionregistration.orch.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: `bench-${run}` },
        webhooks: [hook(hs, 'noop-validate.bench.orch.io', '/validate')],
      }),
      201,
    );
    // both webhooks are called for the hooked namespace, neither for the plain one
    const probe = await must(
      call(s, 'POST', `/api/v1/namespaces/${ns.hooked}/configmaps`, configMapBody('probe')),
      201,
    );
    const afterProbe = (await hs.count()).calls;
    if (afterProbe !== 2) throw new Error(`the probe creation called ${afterProbe} webhooks, want 2`);
    await must(call(s, 'POST', `/api/v1/namespaces/${ns.plain}/configmaps`, configMapBody('probe')), 201);
    if ((await hs.count()).calls !== 2)
      throw new Error('a creation outside the selected namespace called a webhook');
    let n = 0;
    const mk = (side: 'hooked' | 'plain'): Options => ({
      url: s.url,
      connections: o.connections,
      requests: [
        {
          method: 'POST',
          path: `/api/v1/namespaces/${ns[side]}/configmaps`,
          headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
          setupRequest: (req: AutocannonRequest) => ({ ...req, body: configMapBody(`w-${n++}`, n) }),
        },
      ],
    });
    const span = o.amount ? { amount: o.amount } : { duration: o.duration };
    const best: Record<'hooked' | 'plain', Load | undefined> = { hooked: undefined, plain: undefined };
    if (o.warmup > 0)
      for (const side of ['hooked', 'plain'] as const) await load({ ...mk(side), duration: o.warmup });
    for (let round = 0; round < o.rounds; round++) {
      for (const side of round % 2 ? (['plain', 'hooked'] as const) : (['hooked', 'plain'] as const)) {
        const r = await load({ ...mk(side), ...span }, s);
        if (r.errors || r.non2xx)
          throw new Error(
            `CREATE with webhooks (${side}): ${r.errors} errors, ${r.non2xx} non-2xx of ${r.requests}`,
          );
        if (!best[side] || r.rps > best[side]!.rps) best[side] = r;
      }
    }
    const counted = await hs.count();
    return {
      name: 'CREATE through 1 mutating + 1 validating webhook vs none (in-memory)',
      orch: best.hooked!,
      bare: best.plain!,
      ratio: best.hooked!.rps / best.plain!.rps,
      bytes: probe.body.length,
      connections: o.connections,
      calls: counted.calls,
      tlsConnections: counted.connections,
    };
  } finally {
    await hs.close();
  }
}
