// The canary: a ConfigMap in a namespace of its own, created before the run and never named by
// a generated request. Its full JSON is recorded at the start; any later difference (gone,
// changed, a new resourceVersion) means some request reached it through a path that should
// not have (a cluster-wide write, a namespace mix-up, a store fault).
import { isDeepStrictEqual } from 'node:util';

export interface Canary {
  namespace: string;
  name: string;
  /** The object as first read back. */
  recorded: unknown;
}

async function call(url: string, token: string, method: string, path: string, body?: unknown) {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      Accept: 'application/json',
      'Content-Type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, text };
}

/** Creates a namespace (201 or 409 accepted). */
export async function ensureNamespace(url: string, token: string, name: string): Promise<void> {
  const r = await call(url, token, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
  if (r.status !== 201 && r.status !== 409)
    throw new Error(`creating namespace ${name}: ${r.status} ${r.text}`);
}

export async function createCanary(url: string, token: string, namespace: string): Promise<Canary> {
  await ensureNamespace(url, token, namespace);
  const name = 'canary';
  const r = await call(url, token, 'POST', `/api/v1/namespaces/${namespace}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    // the labels the generator's selectors use: a cluster-wide selection would reach it
    metadata: { name, labels: { app: 'fuzz' }, annotations: { note: 'must not change' } },
    data: { k: 'v', 'key.name': 'value' },
  });
  if (r.status !== 201) throw new Error(`creating the canary: ${r.status} ${r.text}`);
  return { namespace, name, recorded: await readCanary(url, token, { namespace, name }) };
}

/** The canary as the server has it now (or a description of the failure to read it). */
export async function readCanary(
  url: string,
  token: string,
  c: { namespace: string; name: string },
): Promise<unknown> {
  const r = await call(url, token, 'GET', `/api/v1/namespaces/${c.namespace}/configmaps/${c.name}`);
  if (r.status !== 200) return { readStatus: r.status, body: r.text.slice(0, 300) };
  return JSON.parse(r.text);
}

/** What differs between the recorded canary and `now`, or undefined when it is unchanged. */
export function canaryProblem(recorded: unknown, now: unknown): string | undefined {
  if (isDeepStrictEqual(recorded, now)) return undefined;
  return `the canary changed: was ${JSON.stringify(recorded).slice(0, 400)}, now ${JSON.stringify(now).slice(0, 400)}`;
}
