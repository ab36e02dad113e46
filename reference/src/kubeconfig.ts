// kubeconfig files for the reference server: one cluster (the server's URL and, over HTTPS,
// the CA that issued its certificate), one user (the admin bearer token) and one context,
// so that `kubectl --kubeconfig <file>` and client libraries work at once.
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { yaml } from './util/yaml.ts';

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
  const o = kubeconfigObject(k);
  return plainYaml(o) ?? yaml().stringify(o, { lineWidth: 0 });
}

/** Scalars the yaml package reads as something other than a string (YAML 1.2 core schema). */
const NOT_A_STRING =
  /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE)$/;

/** A string the yaml package writes unquoted: URLs, base64, names and tokens of these characters. */
const isPlain = (s: string) =>
  /^[A-Za-z0-9][A-Za-z0-9._/:+=@[\]-]*$/.test(s) && !s.endsWith(':') && !NOT_A_STRING.test(s);

/**
 * The text the yaml package's stringify (lineWidth 0) gives a kubeconfig whose strings are
 * all plain, written here: the package takes tens of milliseconds to load, and `serve`
 * writes a kubeconfig at every start. Undefined for anything else (the package writes it).
 */
export function plainYaml(o: Record<string, unknown>, indent = ''): string | undefined {
  let out = '';
  for (const [k, v] of Object.entries(o)) {
    if (!isPlain(k)) return undefined;
    if (typeof v === 'string') {
      if (!isPlain(v)) return undefined;
      out += `${indent}${k}: ${v}\n`;
    } else if (Array.isArray(v)) {
      if (!v.length) return undefined;
      out += `${indent}${k}:\n`;
      for (const item of v) {
        // a map in a sequence: its first entry on the dash's line, the others under it
        const body = isMap(item) ? plainYaml(item, `${indent}    `) : undefined;
        if (!body) return undefined;
        out += `${indent}  - ${body.slice(indent.length + 4)}`;
      }
    } else if (isMap(v)) {
      if (!Object.keys(v).length) {
        out += `${indent}${k}: {}\n`;
        continue;
      }
      const body = plainYaml(v, `${indent}  `);
      if (body === undefined) return undefined;
      out += `${indent}${k}:\n${body}`;
    } else return undefined;
  }
  return out;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

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
