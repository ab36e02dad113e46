// kubeconfig files for the reference server: one cluster (the server's URL and, over HTTPS,
// the CA that issued its certificate), one user (the admin bearer token) and one context,
// so that `kubectl --kubeconfig <file>` and client libraries work at once.
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export const CONTEXT_NAME = 'orch-reference';

export interface KubeconfigInput {
  /** `https://127.0.0.1:6443` or (loopback only) `http://...`. */
  server: string;
  /** PEM of the CA that signed the serving certificate (HTTPS). */
  caPem?: string;
  /** Bearer token of the user. */
  token: string;
  /** Context, cluster and user name (default `orch-reference`). */
  name?: string;
  /** Default namespace of the context. */
  namespace?: string;
}

/** The kubeconfig as an object (the `v1` `Config` kind). */
export function kubeconfigObject(k: KubeconfigInput): Record<string, unknown> {
  const name = k.name ?? CONTEXT_NAME;
  const cluster: Record<string, unknown> = { server: k.server };
  if (k.caPem) cluster['certificate-authority-data'] = Buffer.from(k.caPem, 'utf8').toString('base64');
  const context: Record<string, unknown> = { cluster: name, user: name };
  if (k.namespace) context.namespace = k.namespace;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token: k.token } }],
    contexts: [{ name, context }],
    'current-context': name,
    preferences: {},
  };
}

/** The kubeconfig as YAML text. */
export function kubeconfigYaml(k: KubeconfigInput): string {
  return stringify(kubeconfigObject(k), { lineWidth: 0 });
}

/**
 * Writes a kubeconfig file (mode 0600: it holds a credential), creating its directory.
 * The file is replaced atomically so a client never reads half of it.
 */
export function writeKubeconfig(path: string, k: KubeconfigInput): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, kubeconfigYaml(k), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
