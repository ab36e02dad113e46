// The connection to an authorization webhook, from its kubeconfig-format file
// (`--authorization-webhook-config-file`): the current context's cluster (server URL, CA,
// insecure-skip-tls-verify) and user (bearer token, client certificate and key; inline data or
// files relative to the file's directory). One JSON POST at a time, with a timeout.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Agent } from 'undici';
import { undici } from '../util/undici.ts';
import { yaml } from '../util/yaml.ts';

export interface WebhookConnection {
  url: URL;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  insecure: boolean;
  /** The connection pool (made on first use). */
  agent?: Agent;
}

type Rec = Record<string, unknown>;

function named(list: unknown, name: string | undefined, what: string, file: string): Rec {
  const items = Array.isArray(list) ? (list as Rec[]) : [];
  const hit = name === undefined ? items[0] : items.find((x) => x?.name === name);
  if (!hit) throw new Error(`${file}: no ${what}${name ? ` named "${name}"` : ''}`);
  return (hit[what] ?? {}) as Rec;
}

function material(o: Rec, dataKey: string, fileKey: string, dir: string): Buffer | undefined {
  if (typeof o[dataKey] === 'string') return Buffer.from(o[dataKey] as string, 'base64');
  if (typeof o[fileKey] === 'string') return readFileSync(resolve(dir, o[fileKey] as string));
  return undefined;
}

/** Reads the connection file; throws with the file's name when it is not usable. */
export function loadWebhookConnection(file: string): WebhookConnection {
  let doc: Rec;
  try {
    doc = (yaml().parse(readFileSync(file, 'utf8')) ?? {}) as Rec;
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
  const dir = dirname(file);
  const contextName =
    typeof doc['current-context'] === 'string' && doc['current-context']
      ? (doc['current-context'] as string)
      : undefined;
  const ctx = contextName ? named(doc.contexts, contextName, 'context', file) : undefined;
  const cluster = named(doc.clusters, ctx?.cluster as string | undefined, 'cluster', file);
  const user =
    Array.isArray(doc.users) && doc.users.length
      ? named(doc.users, ctx?.user as string | undefined, 'user', file)
      : {};
  let url: URL;
  try {
    url = new URL(String(cluster.server ?? ''));
  } catch {
    throw new Error(`${file}: the cluster's server is not a URL: ${JSON.stringify(cluster.server ?? '')}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`${file}: the server must be an http(s) URL`);
  let token = typeof user.token === 'string' ? user.token : undefined;
  if (!token && typeof user.tokenFile === 'string')
    token = readFileSync(resolve(dir, user.tokenFile), 'utf8').trim();
  return {
    url,
    ca: material(cluster, 'certificate-authority-data', 'certificate-authority', dir),
    cert: material(user, 'client-certificate-data', 'client-certificate', dir),
    key: material(user, 'client-key-data', 'client-key', dir),
    token,
    insecure: cluster['insecure-skip-tls-verify'] === true,
  };
}

/** POSTs a JSON body; resolves with the status code and the parsed reply. */
export async function postJson(
  c: WebhookConnection,
  body: unknown,
  timeoutMs: number,
): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  const { Agent, request } = await undici();
  c.agent ??= new Agent({ connect: { ca: c.ca, cert: c.cert, key: c.key, rejectUnauthorized: !c.insecure } });
  const r = await request(c.url, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    dispatcher: c.agent,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const text = await r.body.text();
  try {
    return { status: r.statusCode, json: JSON.parse(text) };
  } catch {
    throw new Error(`the webhook answered ${r.statusCode} with a body that is not JSON`);
  }
}
