// The connection file of a webhook the server calls (`--authentication-token-webhook-config-file`):
// kubeconfig format, where the first cluster gives the webhook's URL (`server`, https) and
// the CA to trust (`certificate-authority` file or `certificate-authority-data`), and the
// first user how the server authenticates to it (`client-certificate`/`client-key` files or
// `-data`, or a `token`). Relative paths are relative to the file, as kubeconfig paths are.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { yaml } from '../util/yaml.ts';

export interface WebhookConnection {
  server: string;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
}

type Entry = Record<string, unknown>;
const isEntry = (v: unknown): v is Entry => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and checks a connection file; the error names the file and what is wrong. */
export function loadWebhookConnection(file: string): WebhookConnection {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (e) {
    throw new Error(`${file}: not a kubeconfig file: ${(e as Error).message}`);
  }
  if (!isEntry(doc)) throw new Error(`${file}: not a kubeconfig file`);
  const base = dirname(file);
  const clusters = Array.isArray(doc.clusters) ? doc.clusters : [];
  const cluster = isEntry(clusters[0]) && isEntry(clusters[0].cluster) ? clusters[0].cluster : undefined;
  if (!cluster) throw new Error(`${file}: no cluster (clusters[0].cluster)`);
  const server = cluster.server;
  if (typeof server !== 'string' || !server)
    throw new Error(`${file}: clusters[0].cluster.server is required`);
  let u: URL;
  try {
    u = new URL(server);
  } catch {
    throw new Error(`${file}: clusters[0].cluster.server "${server}" is not a URL`);
  }
  if (u.protocol !== 'https:')
    throw new Error(`${file}: clusters[0].cluster.server "${server}" must be an https URL`);
  const out: WebhookConnection = { server };
  const pem = (entry: Entry, fileKey: string, dataKey: string, where: string): string | undefined => {
    const data = entry[dataKey];
    const path = entry[fileKey];
    if (typeof data === 'string' && data) return Buffer.from(data, 'base64').toString('utf8');
    if (typeof path === 'string' && path) {
      try {
        return readFileSync(resolve(base, path), 'utf8');
      } catch (e) {
        throw new Error(`${file}: ${where}.${fileKey}: ${(e as Error).message}`);
      }
    }
    return undefined;
  };
  out.ca = pem(cluster, 'certificate-authority', 'certificate-authority-data', 'clusters[0].cluster');
  const users = Array.isArray(doc.users) ? doc.users : [];
  const user = isEntry(users[0]) && isEntry(users[0].user) ? users[0].user : undefined;
  if (user) {
    out.cert = pem(user, 'client-certificate', 'client-certificate-data', 'users[0].user');
    out.key = pem(user, 'client-key', 'client-key-data', 'users[0].user');
    if (!out.cert !== !out.key)
      throw new Error(`${file}: users[0].user needs both a client certificate and its key`);
    if (typeof user.token === 'string' && user.token) out.token = user.token;
  }
  return out;
}
