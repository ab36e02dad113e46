// ComponentStatus (v1, deprecated since 1.19): get and list only, computed when read as a
// Kubernetes 1.28 server computes them, never stored. The components are 1.28's: `etcd-0`, whose
// health is this server's storage's (a failed storage is unhealthy with its error), and the
// controller manager and scheduler, probed as 1.28 probes them (HTTPS `/healthz` on 127.0.0.1,
// ports 10257 and 10259; a refused connection is unhealthy with Go's error text as the message).
// An unknown name answers 404 (1.28 answers a 500 "Component not found").
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { undici } from '../../util/undici.ts';
import type { Registry } from '../registry.ts';
import type { ResourceDef } from '../types.ts';
import { defineKind, printed } from './define.ts';

interface Probe {
  /** True (healthy), False or Unknown. */
  status: 'True' | 'False' | 'Unknown';
  message: string;
  error: string;
}

/** How long a probe may take (1.28's probe timeout). */
const PROBE_TIMEOUT_MS = 20_000;

/** Kubernetes' HTTP probe: 2xx and 3xx are healthy with the body as message; anything else unhealthy. */
export async function probeHttps(
  host: string,
  port: number,
  path: string,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<Probe> {
  const url = `https://${host}:${port}${path}`;
  const { Agent, request } = await undici();
  const agent = new Agent({ connect: { rejectUnauthorized: false, timeout: timeoutMs } });
  try {
    const res = await request(url, {
      dispatcher: agent,
      headers: { 'user-agent': 'kube-probe/1.28' },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    // the probe reads at most 10 KiB of the body
    const body = Buffer.from(await res.body.arrayBuffer())
      .subarray(0, 10 * 1024)
      .toString('utf8');
    if (res.statusCode >= 200 && res.statusCode < 400) return { status: 'True', message: body, error: '' };
    return { status: 'False', message: `HTTP probe failed with statuscode: ${res.statusCode}`, error: '' };
  } catch (e) {
    const err = e as Error & { code?: string; cause?: { code?: string; message?: string } };
    const code = err.code ?? err.cause?.code;
    let detail = err.cause?.message ?? err.message;
    if (code === 'ECONNREFUSED') detail = `dial tcp ${host}:${port}: connect: connection refused`;
    else if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
      detail = 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
    return { status: 'False', message: `Get "${url}": ${detail}`, error: '' };
  } finally {
    await agent.close().catch(() => undefined);
  }
}

const COMPONENTS: Record<string, (registry: Registry) => Promise<Probe>> = {
  'controller-manager': () => probeHttps('127.0.0.1', 10257, '/healthz'),
  'etcd-0': async (registry) => {
    const s = registry.storage;
    const failure = (await s.probe?.()) ?? s.failure();
    return failure
      ? { status: 'False', message: '', error: failure.message }
      : { status: 'True', message: '', error: '' };
  },
  scheduler: () => probeHttps('127.0.0.1', 10259, '/healthz'),
};

function componentStatus(name: string, p: Probe): KObject {
  const condition: Record<string, string> = { type: 'Healthy', status: p.status };
  if (p.message) condition.message = p.message;
  if (p.error) condition.error = p.error;
  return { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name }, conditions: [condition] };
}

interface ComponentCondition {
  type?: string;
  status?: string;
  message?: string;
  error?: string;
}

const healthyOf = (o: KObject) =>
  ((o.conditions ?? []) as ComponentCondition[]).find((c) => c.type === 'Healthy');

export function componentStatusDef(registry: () => Registry): ResourceDef {
  const read = async (name: string) => {
    const probe = COMPONENTS[name];
    return probe ? componentStatus(name, await probe(registry())) : undefined;
  };
  return defineKind({
    group: '',
    kind: 'ComponentStatus',
    namespaced: false,
    shortNames: ['cs'],
    verbs: ['get', 'list'],
    schema: builtinSchema('v1', 'ComponentStatus'),
    versionInfo: { v1: { served: true, storage: true, deprecated: true, deprecatedIn: '1.19' } },
    live: {
      get: read,
      list: async () =>
        (await Promise.all(Object.keys(COMPONENTS).map((n) => read(n)))).filter((o): o is KObject => !!o),
    },
    table: printed('componentStatus', {
      Status: (o) => {
        const c = healthyOf(o);
        return c ? (c.status === 'True' ? 'Healthy' : 'Unhealthy') : 'Unknown';
      },
      Message: (o) => healthyOf(o)?.message ?? '',
      Error: (o) => healthyOf(o)?.error ?? '',
    }),
    tracksGeneration: true,
    allowUnconditionalUpdate: false,
    normalize: false,
  });
}
