// Where the suites send their requests: URL and credentials from CLI flags, environment
// (ORCH_*), or a kubeconfig file (bearer token, token file, client certificate and key,
// CA bundle or skip-verify, exec credential plugins). A target may have several URLs, servers
// of one API (replicas on one store): the same credentials go to each, and the requests
// alternate between them (endpoints.ts).
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { DialectName } from './dialect.ts';
import { Endpoints, parseEndpointList } from './endpoints.ts';
import { type ExecConfig, ExecCredentialSource } from './exec-credential.ts';

export interface Target {
  /** The API's endpoint; with several, the first of them. */
  url: string;
  /**
   * Several endpoints of the API, `url` first: each request and watch takes the next one.
   * Clients made from one target share it (one rotation per target). Absent: `url` alone.
   */
  endpoints?: Endpoints;
  token?: string;
  /** PEM client certificate and key. */
  cert?: string;
  key?: string;
  /** PEM CA bundle; absent with insecure=false means the system roots. */
  ca?: string;
  insecure?: boolean;
  /** Exec credential plugin (kubeconfig `users[].user.exec`). */
  exec?: ExecCredentialSource;
  dialect: DialectName;
}

export interface TargetFlags {
  /** One URL, several (a repeated --endpoint), or a comma-separated list. */
  endpoint?: string | string[];
  token?: string;
  tokenFile?: string;
  cert?: string;
  key?: string;
  ca?: string;
  insecure?: boolean;
  kubeconfig?: string;
  context?: string;
  dialect?: DialectName;
}

const read = (p: string) => readFileSync(p, 'utf8');

/** Flags win over environment, environment over kubeconfig. */
export function resolveTarget(flags: TargetFlags = {}, env: NodeJS.ProcessEnv = process.env): Target {
  const dialectName = (flags.dialect ??
    (env.ORCH_DIALECT as DialectName | undefined) ??
    'orch') as DialectName;
  if (dialectName !== 'orch' && dialectName !== 'kubernetes')
    throw new Error(`unknown dialect "${dialectName}" (orch or kubernetes)`);
  const kubeconfig = flags.kubeconfig ?? env.ORCH_KUBECONFIG;
  let t: Target = { url: '', dialect: dialectName };
  if (kubeconfig)
    t = { ...fromKubeconfig(kubeconfig, flags.context ?? env.ORCH_CONTEXT), dialect: dialectName };
  let urls: string[] | undefined;
  if (flags.endpoint !== undefined) urls = parseEndpointList(flags.endpoint, '--endpoint');
  else if (env.ORCH_ENDPOINT) urls = parseEndpointList(env.ORCH_ENDPOINT, 'ORCH_ENDPOINT');
  if (urls) t.url = urls[0]!;
  if (urls && urls.length > 1) t.endpoints = new Endpoints(urls);
  const token = flags.token ?? env.ORCH_TOKEN ?? (flags.tokenFile ? read(flags.tokenFile).trim() : undefined);
  if (token) t.token = token;
  const cert = flags.cert ?? env.ORCH_CLIENT_CERT;
  const key = flags.key ?? env.ORCH_CLIENT_KEY;
  if (cert) t.cert = pemOrFile(cert);
  if (key) t.key = pemOrFile(key);
  const ca = flags.ca ?? env.ORCH_CA;
  if (ca) t.ca = pemOrFile(ca);
  if (flags.insecure || env.ORCH_INSECURE === '1' || env.ORCH_INSECURE === 'true') t.insecure = true;
  if (!t.url) throw new Error('no endpoint: pass --endpoint URL, set ORCH_ENDPOINT, or give a kubeconfig');
  if (!urls) parseEndpointList(t.url, 'kubeconfig server'); // throws on a malformed URL
  return t;
}

/** Every URL of a target, the one it sends to first leading. */
export function targetUrls(t: Target): readonly string[] {
  return t.endpoints?.urls ?? [t.url];
}

function pemOrFile(v: string): string {
  return v.includes('-----BEGIN') ? v : read(v);
}

interface KubeconfigFile {
  'current-context'?: string;
  clusters?: { name: string; cluster: Record<string, unknown> }[];
  users?: { name: string; user: Record<string, unknown> }[];
  contexts?: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
}

export function fromKubeconfig(path: string, contextName?: string): Omit<Target, 'dialect'> {
  const base = dirname(resolve(path));
  const cfg = parseYaml(read(path)) as KubeconfigFile;
  const ctxName = contextName ?? cfg['current-context'];
  const ctx = cfg.contexts?.find((c) => c.name === ctxName)?.context;
  if (!ctx) throw new Error(`kubeconfig ${path}: context "${ctxName ?? ''}" not found`);
  const cluster = cfg.clusters?.find((c) => c.name === ctx.cluster)?.cluster;
  if (!cluster) throw new Error(`kubeconfig ${path}: cluster "${ctx.cluster}" not found`);
  const user = cfg.users?.find((u) => u.name === ctx.user)?.user ?? {};
  const file = (p: unknown) => read(isAbsolute(String(p)) ? String(p) : resolve(base, String(p)));
  const b64 = (v: unknown) => Buffer.from(String(v), 'base64').toString('utf8');
  const t: Omit<Target, 'dialect'> = { url: String(cluster.server ?? '') };
  if (cluster['certificate-authority-data']) t.ca = b64(cluster['certificate-authority-data']);
  else if (cluster['certificate-authority']) t.ca = file(cluster['certificate-authority']);
  if (cluster['insecure-skip-tls-verify']) t.insecure = true;
  if (user.token) t.token = String(user.token);
  else if (user.tokenFile) t.token = file(user.tokenFile).trim();
  if (user['client-certificate-data']) t.cert = b64(user['client-certificate-data']);
  else if (user['client-certificate']) t.cert = file(user['client-certificate']);
  if (user['client-key-data']) t.key = b64(user['client-key-data']);
  else if (user['client-key']) t.key = file(user['client-key']);
  if (user.exec) {
    // the cluster's `client.authentication.orch.io/exec` extension is the plugin's config
    const extensions = (cluster.extensions ?? []) as { name?: string; extension?: unknown }[];
    const config = extensions.find((e) =>
      ['client.authentication.orch.io/exec', 'client.authentication.k8s.io/exec'].includes(String(e?.name)),
    )?.extension;
    // the plugin learns the kubeconfig's cluster; its credential serves every endpoint of the run
    t.exec = new ExecCredentialSource(user.exec as ExecConfig, base, {
      server: t.url,
      'tls-server-name': cluster['tls-server-name'] as string | undefined,
      'certificate-authority-data': cluster['certificate-authority-data'] as string | undefined,
      'insecure-skip-tls-verify': cluster['insecure-skip-tls-verify'] as boolean | undefined,
      'proxy-url': cluster['proxy-url'] as string | undefined,
      'disable-compression': cluster['disable-compression'] as boolean | undefined,
      config,
    });
  }
  return t;
}
